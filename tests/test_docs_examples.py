"""Every recipe in docs/examples runs, says what it should, and writes only to a temporary folder.

Each ``docs/examples/*.py`` runs as a subprocess with this interpreter and each ``*.sh`` with
``sh``, the interpreter's ``bin`` folder first on ``PATH`` (so ``uno-attack`` is this checkout's).
The examples are independent programs, so the ones selected for this run are started together
on a small thread pool (one per CPU) and each test waits for its own: the whole file takes about
as long as the slowest examples rather than their sum.

docs/recipes.md embeds every example verbatim; a test checks the copies match the files.
``UNO_ATTACK_REGEN=1`` (as for the golden playthroughs) rewrites the embedded copies instead.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
RECIPES = ROOT / "docs" / "recipes.md"
TIMEOUT_S = 120
UPDATE_ENV = "UNO_ATTACK_REGEN"

#: example -> a line its output must contain (a regular expression): the recipe's point.
EXPECTED = {
    "open_and_press.py": r"^hint: expected sim://\?profile=NAME\|PATH&seed=N$",
    "play_one_game.py": r"^winner: \w+ after \d+ rounds, \d+ presses$",
    "replay_same_seed.py": r"^same seed, same game: OK$",
    "custom_profile.py": r"^sim://\?profile=<tmp>/stingy\.toml: .* 0\.\d+ cards per press$",
    "custom_card.py": r"^5 games: Revenge played [1-9]\d* times, causing [1-9]\d* presses$",
    "recording_launcher.py": r"the game never closed our launcher: closed=False$",
    "calibrate_fit.py": r"^fitted profile: kind pattern; source: measured: ",
    "compare_sessions.py": r"^  DIFFERENT: p = ",
    "gpio_jam.py": r"^cards handed out (\d+), ejected by the mechanism \1; ",
    "emu_link_faults.py": r"^cards counted by the host (\d+), fed by the mechanism \1$",
    "card_ledger.py": r"^every card accounted for after each of \d+ events$",
    "journal_and_replay.sh": r"^the resumed game ended exactly like the uninterrupted one$",
    "calibrate.sh": r"^measured distance after tuning \(300 open-loop presses\): 0\.\d+$",
    "first_steps.sh": r"^<EmuLauncher backend=emu ",
}


def example_names() -> list[str]:
    return sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".py", ".sh"))


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    workdir: Path
    tmpdir: Path


def _environment(tmpdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("UNO_ATTACK_LAUNCHER", None)  # each example names its launcher or means sim://
    bindir = str(Path(sys.executable).parent)
    env.update(PATH=bindir + os.pathsep + env.get("PATH", ""), TMPDIR=str(tmpdir), NO_COLOR="1")
    return env


def _run_example(name: str, base: Path) -> Run:
    """Run one example in an empty working folder, with its own empty TMPDIR."""
    workdir, tmpdir = base / "cwd", base / "tmp"
    workdir.mkdir()
    tmpdir.mkdir()
    path = EXAMPLES / name
    command = [sys.executable, str(path)] if name.endswith(".py") else ["sh", str(path)]
    done = subprocess.run(
        command,
        cwd=workdir,
        env=_environment(tmpdir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    return Run(done.returncode, done.stdout, done.stderr, workdir, tmpdir)


def _selected_examples(session: pytest.Session) -> list[str]:
    names = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        module = getattr(item, "module", None)
        if module is not None and module.__name__ == __name__ and callspec:
            name = callspec.params.get("example")
            if name is not None:
                names.append(name)
    return sorted(set(names))


@pytest.fixture(scope="module")
def example_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Run]]]:
    """Start every selected example at once (one worker per CPU); tests wait for their own.

    The shell recipes start first: each of their commands pays the CLI's start-up time, so
    they are the longest, and the short Python recipes fill the other workers meanwhile.
    """
    workers = max(1, min(4, os.cpu_count() or 1))
    names = sorted(_selected_examples(request.session), key=lambda n: (n.endswith(".py"), n))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield {
            name: pool.submit(_run_example, name, tmp_path_factory.mktemp(Path(name).stem))
            for name in names
        }


@pytest.mark.parametrize("example", example_names())
def test_example_runs_and_says_what_it_should(
    example: str, example_runs: dict[str, Future[Run]]
) -> None:
    run = example_runs[example].result(timeout=TIMEOUT_S + 10)
    output = f"--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
    assert run.returncode == 0, f"{example} exited with {run.returncode}\n{output}"
    assert "Traceback" not in run.stderr, output
    pattern = EXPECTED.get(example)
    assert pattern is not None, f"add the line {example} must print to EXPECTED"
    assert re.search(pattern, run.stdout, re.M), f"{example}: no line matches {pattern!r}\n{output}"
    assert not list(run.workdir.iterdir()), f"{example} wrote to the current folder"
    assert not list(run.tmpdir.iterdir()), f"{example} left files in its temporary folder"


def test_every_expectation_names_an_example() -> None:
    missing = sorted(set(example_names()) - set(EXPECTED))
    stale = sorted(set(EXPECTED) - set(example_names()))
    assert not missing and not stale, f"no expected line for {missing}; no example for {stale}"


# -- docs/recipes.md embeds every example verbatim ---------------------------------------------
BLOCK = re.compile(r"<!-- example: (?P<name>\S+) -->\n```(?P<lang>\w+)\n(?P<code>.*?)```", re.S)


def embedded_examples(text: str) -> dict[str, str]:
    return {match["name"]: match["code"] for match in BLOCK.finditer(text)}


def refresh_embedded(text: str) -> str:
    """The recipes text with every embedded example replaced by the file's current content."""

    def fresh(match: re.Match[str]) -> str:
        code = (EXAMPLES / match["name"]).read_text(encoding="utf-8")
        return f"<!-- example: {match['name']} -->\n```{match['lang']}\n{code}```"

    return BLOCK.sub(fresh, text)


def test_recipes_embed_every_example_verbatim() -> None:
    text = RECIPES.read_text(encoding="utf-8")
    if os.environ.get(UPDATE_ENV) == "1":
        text = refresh_embedded(text)
        RECIPES.write_text(text, encoding="utf-8")
    embedded = embedded_examples(text)
    assert sorted(embedded) == example_names(), "docs/recipes.md must embed each example once"
    for name, code in embedded.items():
        assert code == (EXAMPLES / name).read_text(encoding="utf-8"), (
            f"docs/recipes.md's copy of {name} differs from the file; "
            f"run {UPDATE_ENV}=1 pytest tests/test_docs_examples.py to refresh it"
        )


# -- docs/index.md maps every page; links in the pages written with the recipes resolve --------
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_index_lists_every_page() -> None:
    linked = set(LINK.findall((DOCS / "index.md").read_text(encoding="utf-8")))
    pages = {path.name for path in DOCS.glob("*.md")}
    missing = sorted(pages - linked)
    assert not missing, f"docs/index.md should list {missing} (one line each, in reading order)"


@pytest.mark.parametrize("page", ["index.md", "recipes.md", "env.md"])
def test_relative_links_resolve(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t]
    broken = [t for t in targets if not (DOCS / t).exists()]
    assert targets and not broken, f"docs/{page}: broken links {broken}"


def test_env_page_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNO_ATTACK_LAUNCHER", raising=False)
    text = (DOCS / "env.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/env.md", "exec"), {})
