"""``uno-attack completion bash|zsh|fish``: shell completion generated from the parsers.

The script is built by walking the very argparse parsers the command runs with, so a new
sub-command or option completes as soon as it exists. It is static (no Python starts on
each Tab press, unlike argcomplete), so regenerate it after upgrading uno-attack::

    uno-attack completion bash > ~/.local/share/bash-completion/completions/uno-attack
    uno-attack completion zsh > ~/.zfunc/_uno-attack        # with fpath+=(~/.zfunc)
    uno-attack completion fish > ~/.config/fish/completions/uno-attack.fish
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

SHELLS = ("bash", "zsh", "fish")


@dataclass(frozen=True)
class Node:
    """One command on the path (``()`` is ``uno-attack`` itself): its sub-commands and options."""

    path: tuple[str, ...]
    commands: dict[str, str]  # name -> help
    options: dict[str, str]  # --flag -> help
    values: dict[str, list[str]] = field(default_factory=dict)  # --flag -> what may follow it
    positionals: list[str] = field(default_factory=list)  # choices of positional arguments


def register(subparsers: Any) -> None:
    """Add ``completion SHELL``."""
    parser = subparsers.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script generated from the command's own parsers. "
        "Example: uno-attack completion bash > ~/.local/share/bash-completion/completions/"
        "uno-attack",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from game.cli import PROG, build_parser

    print(script(args.shell, build_parser(), PROG), end="")
    return 0


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[Node]:
    """Every command of ``parser``, depth first, with its sub-commands and long options."""
    commands: dict[str, str] = {}
    children: list[tuple[str, argparse.ArgumentParser]] = []
    options: dict[str, str] = {}
    values: dict[str, list[str]] = {}
    positionals: list[str] = []
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}  # noqa: SLF001
            for name, child in action.choices.items():
                commands[name] = helps.get(name, "")
                children.append((name, child))
            continue
        hints = _value_hints(action)
        if not action.option_strings:
            positionals.extend(hints)
        for flag in action.option_strings:
            if flag.startswith("--"):
                options[flag] = "" if action.help in (None, argparse.SUPPRESS) else str(action.help)
                if hints:
                    values[flag] = hints
    yield Node(path, commands, options, values, positionals)
    for name, child in children:
        yield from walk(child, (*path, name))


def _value_hints(action: argparse.Action) -> list[str]:
    """What may follow an option: its choices, the launcher schemes, the ruleset ids."""
    if action.choices is not None:
        return [str(choice) for choice in action.choices]
    if "--launcher" in action.option_strings:
        from launcher.spec import registered_schemes

        return [f"{info.scheme}://" for info in registered_schemes()]
    if "--ruleset" in action.option_strings:
        from game.core.rulesets import RULESET_IDS

        return list(RULESET_IDS)
    return []


def script(shell: str, parser: argparse.ArgumentParser, prog: str) -> str:
    """The completion script for ``shell``."""
    nodes = list(walk(parser))
    if shell == "bash":
        return _bash(nodes, prog)
    if shell == "zsh":
        return _zsh(nodes, prog)
    return _fish(nodes, prog)


def _words(node: Node) -> str:
    return " ".join([*node.commands, *node.positionals, *node.options])


def _function(prog: str) -> str:
    return "_" + prog.replace("-", "_")


def _bash_body(nodes: list[Node], prog: str) -> str:
    """Shell code that sets ``candidates`` from the command path typed so far (bash and zsh)."""
    cases = "\n".join(
        f'        "{" ".join(node.path)}") candidates="{_words(node)}" ;;' for node in nodes
    )
    known = " ".join(sorted({name for node in nodes for name in node.commands}))
    values = "\n".join(
        f'        "{" ".join(node.path)}|{flag}") candidates="{" ".join(hints)}" ;;'
        for node in nodes
        for flag, hints in node.values.items()
    )
    return f"""    local cmdpath="" word
    for word in "${{COMP_WORDS[@]:1:$((COMP_CWORD-1))}}"; do
        case " {known} " in
            *" $word "*) cmdpath="${{cmdpath:+$cmdpath }}$word" ;;
        esac
    done
    local candidates=""
    case "$cmdpath" in
{cases}
    esac
    case "$cmdpath|$prev" in
{values}
    esac
"""


def _bash(nodes: list[Node], prog: str) -> str:
    fn = _function(prog)
    return f"""# bash completion for {prog}, generated by `{prog} completion bash`
{fn}() {{
    local prev="${{COMP_WORDS[COMP_CWORD-1]}}"
{_bash_body(nodes, prog)}    local current="${{COMP_WORDS[COMP_CWORD]}}"
    COMPREPLY=($(compgen -W "$candidates" -- "$current"))
    if [[ ${{#COMPREPLY[@]}} -eq 0 ]]; then
        COMPREPLY=($(compgen -f -- "${{COMP_WORDS[COMP_CWORD]}}"))
    fi
}}
complete -o filenames -F {fn} {prog}
"""


def _zsh(nodes: list[Node], prog: str) -> str:
    fn = _function(prog)
    return f"""#compdef {prog}
# zsh completion for {prog}, generated by `{prog} completion zsh`
{fn}() {{
    local -a COMP_WORDS
    local COMP_CWORD
    COMP_WORDS=("${{words[@]}}")
    COMP_CWORD=$((CURRENT - 1))
    local prev="${{words[CURRENT-1]}}"
    {{
{_bash_body(nodes, prog)}        compadd -- ${{=candidates}}
        _files
    }}
}}
compdef {fn} {prog}
"""


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(nodes: list[Node], prog: str) -> str:
    lines = [f"# fish completion for {prog}, generated by `{prog} completion fish`"]
    for node in nodes:
        condition = _fish_condition(node, nodes)
        for name, help_text in node.commands.items():
            lines.append(
                f"complete -c {prog} -n {_fish_quote(condition)} -a {name} "
                f"-d {_fish_quote(help_text)}"
            )
        for choice in node.positionals:
            lines.append(f"complete -c {prog} -n {_fish_quote(condition)} -a {_fish_quote(choice)}")
        for flag, help_text in node.options.items():
            hints = node.values.get(flag)
            takes = f" -x -a {_fish_quote(' '.join(hints))}" if hints else ""
            lines.append(
                f"complete -c {prog} -n {_fish_quote(condition)} -l {flag[2:]}{takes} "
                f"-d {_fish_quote(help_text or '')}"
            )
    return "\n".join(lines) + "\n"


def _fish_condition(node: Node, nodes: list[Node]) -> str:
    """True in fish when the words typed so far are exactly ``node``'s command path."""
    if not node.path:
        top = " ".join(nodes[0].commands)
        return f"not __fish_seen_subcommand_from {top}"
    seen = " && ".join(f"__fish_seen_subcommand_from {word}" for word in node.path)
    deeper = " ".join(node.commands)
    return f"{seen} && not __fish_seen_subcommand_from {deeper}" if deeper else seen
