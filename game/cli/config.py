"""The user's config file, ``~/.config/uno-attack/config.toml``, and ``uno-attack config``.

Three settings, each looked up in one documented order, the first found wins:

1. the command-line flag (``--launcher``, ``--seats``, a spec's ``profile=``);
2. the environment (``UNO_ATTACK_LAUNCHER``, ``UNO_ATTACK_SEATS``, ``UNO_ATTACK_PROFILE``);
3. the config file;
4. the built-in default.

The file lives in ``$XDG_CONFIG_HOME/uno-attack/config.toml`` (``~/.config`` when unset);
``UNO_ATTACK_CONFIG`` points somewhere else. A missing file is no error; a malformed one or
an unknown key is, with the path in the message. ``uno-attack config`` shows where each
setting comes from.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from hardware.errors import ConfigError

CONFIG_ENV = "UNO_ATTACK_CONFIG"


class Setting(NamedTuple):
    """A setting of the config file: its key, environment variable, flag and default.

    (A named tuple, not a dataclass: every command loads this module, and making a frozen
    dataclass costs about five times as much; docs/performance.md, "Start-up".)
    """

    key: str
    env: str
    flag: str
    default: str
    help: str


SETTINGS = (
    Setting(
        "launcher",
        "UNO_ATTACK_LAUNCHER",
        "--launcher",
        "sim:// (a draw pile for classic and pocket)",
        "launcher spec every command uses",
    ),
    Setting("seats", "UNO_ATTACK_SEATS", "--seats", "You,bot:greedy,bot:random", "`play` seats"),
    Setting(
        "profile",
        "UNO_ATTACK_PROFILE",
        "profile= in the spec",
        "the backend's default profile",
        "spit-out profile of a launcher spec that names none",
    ),
)
BY_KEY = {setting.key: setting for setting in SETTINGS}


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the config file is read from (it need not exist)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base) / "uno-attack" / "config.toml"


def load_config(path: Path) -> dict[str, str]:
    """The settings in ``path``; empty when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None
    import tomllib  # here: most runs have no config file, and every command reads this one

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})", hint=_FILE_HINT) from None
    unknown = sorted(set(data) - set(BY_KEY))
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting(s) {', '.join(unknown)}",
            hint=f"the config file knows {', '.join(BY_KEY)}; `uno-attack config` shows them",
        )
    for key, value in data.items():
        if not isinstance(value, str):
            raise ConfigError(f'{path}: {key} must be a string, like {key} = "…"', hint=_FILE_HINT)
    return dict(data)


_FILE_HINT = 'the file holds lines like launcher = "sim://?seed=1" (docs/config.md)'


@contextmanager
def applied(environ: MutableMapping[str, str] | None = None) -> Iterator[list[str]]:
    """Put the config file's settings in the environment where the environment has none.

    Yields the names of the variables it added.

    Commands already read ``UNO_ATTACK_LAUNCHER`` when no flag is given, so this gives the
    order flag > environment > config > default with no change to any command. The
    environment is restored afterwards (tests call ``main`` in-process).
    """
    env = os.environ if environ is None else environ
    settings = load_config(config_path(env))
    added = [BY_KEY[key].env for key in settings if not env.get(BY_KEY[key].env)]
    for key, value in settings.items():
        if BY_KEY[key].env in added:
            env[BY_KEY[key].env] = value
    try:
        yield added
    finally:
        for name in added:
            env.pop(name, None)


def fill_seats(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> None:
    """``play --seats``: the flag, else ``$UNO_ATTACK_SEATS`` (which may come from the file)."""
    env = os.environ if environ is None else environ
    if getattr(args, "seats", "") is None and not getattr(args, "resume", None):
        args.seats = env.get("UNO_ATTACK_SEATS") or None


def register(subparsers: Any) -> None:
    """Add ``config``: where each setting comes from."""
    parser = subparsers.add_parser(
        "config",
        help="show the settings and where each comes from (flag > env > config file > default)",
        description="Show the user settings, their values and sources. The config file is "
        "~/.config/uno-attack/config.toml ($XDG_CONFIG_HOME, or $UNO_ATTACK_CONFIG).",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=_show)


def effective(environ: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """Each setting's value and source, as ``main`` applies them (flags aside)."""
    env = os.environ if environ is None else environ
    path = config_path(env)
    from_file = load_config(path)
    rows = []
    for setting in SETTINGS:
        if env.get(setting.env):
            value, source = env[setting.env], f"environment {setting.env}"
        elif setting.key in from_file:
            value, source = from_file[setting.key], f"config file {path}"
        else:
            value, source = setting.default, "default"
        rows.append({"key": setting.key, "value": value, "source": source, "flag": setting.flag})
    return rows


def _show(args: argparse.Namespace) -> int:
    # main() already copied the file into the environment: read the real sources again
    rows = effective(_environment_before_config(args))
    if args.json:
        import json

        print(json.dumps({"config_file": str(config_path()), "settings": rows}, indent=2))
        return 0
    print(f"config file: {config_path()}")
    for row in rows:
        print(f"{row['key']:9} {row['value']}  ({row['source']}; flag {row['flag']})")
    return 0


def _environment_before_config(args: argparse.Namespace) -> Mapping[str, str]:
    added = getattr(args, "_config_added", ())
    return {k: v for k, v in os.environ.items() if k not in added}
