"""A fuzzer for the whole command line: nothing lost, nothing crashes (docs/errors.md).

Command lines are generated from our own argparse parsers: every sub-command, every
flag, with values drawn from good, boundary and hostile sets (empty, huge, negative,
NaN, non-UTF-8, paths to files, folders, missing folders, ``/dev/null``, the user's own
files). Devices are reached through symlinks in the folder (``devnull``, ``devzero``) and
a FIFO stands for "not a regular file": a bug that unlinks or replaces a path then only
removes our link, never the machine's ``/dev/null`` (tests may run as root). Each line
runs in a fresh folder seeded with user files, in-process (and a sample in a
subprocess), and must:

* exit with 0, 1, 2 or 130, print no traceback and report no internal error;
* change no file except the outputs it names (checksums before and after); an input is
  never changed, an existing output only with ``--force``, an append-only journal or
  session only by appending;
* leave no temporary file behind;
* finish within :data:`BOUND_S` seconds.

Commands that would touch hardware or run forever are kept out by construction: launcher
specs are drawn from simulated ones, counts from small sets (plus the refused huge ones),
``emulate`` stops at once, ``firmware install`` only with ``--dry-run``. The CI run tries
:data:`CI_EXAMPLES` lines; the ``slow`` test many more. Lines that once failed are kept
as ``@example`` regressions.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from cli_fuzz_values import (
    APPENDED,
    COUNTS,
    FLOATS,
    FORCED,
    HOSTILE_TEXT,
    INPUT_DESTS,
    INPUTS,
    INTS,
    LATIN1_NAME,
    POOLS,
    REPLACED,
)
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from game.cli import build_parser, main
from hardware.files import TEMP_MARK

ROOT = Path(__file__).resolve().parent.parent
BOUND_S = 30.0
#: Memory a line may take on top of what the test process holds: a 20 GB allocation
#: becomes a MemoryError (reported as a bug) instead of the machine's OOM killer.
MEMORY_HEADROOM = 1536 << 20
CI_EXAMPLES = int(os.environ.get("UNO_ATTACK_FUZZ_EXAMPLES", "250"))
SLOW_EXAMPLES = 600
ALLOWED_EXITS = {0, 1, 2, 130}

# -- the user's folder -------------------------------------------------------------------------
PROFILE = """schema = 1
name = "mine"
kind = "iid"
description = "{description}"
p = [0.5, 0.3, 0.2]
"""
CUSTOM = 'name = "Revenge"\neffects = ["choose_color", "target", "hit n=2 who=target"]\n'


def _seed_folder(folder: Path) -> None:
    """The files a user has lying around, some made by our own commands."""
    (folder / "notes.txt").write_text("my notes: do not lose\n", encoding="utf-8")
    (folder / "good.toml").write_text(PROFILE.format(description="ok"), encoding="utf-8")
    (folder / "latin1.toml").write_bytes(PROFILE.format(description="café").encode("latin-1"))
    (folder / LATIN1_NAME).write_text(PROFILE.format(description="x"), encoding="utf-8")
    (folder / "custom.toml").write_text(CUSTOM, encoding="utf-8")
    (folder / "pins.toml").write_text("motor = [5, 6]\nbeam = 13\n", encoding="utf-8")
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "stale.pid").write_text("999999999\n", encoding="utf-8")  # above any pid_max
    (folder / "adir").mkdir()
    (folder / "adir" / "inside.txt").write_text("keep me\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with _quiet():
            assert main(["calibrate", "record", "toy.jsonl", "--presses", "30", "--seed", "1"]) == 0
            assert (
                main(
                    [
                        "play",
                        "--seats",
                        "bot:greedy,bot:random",
                        "--rounds",
                        "1",
                        "--seed",
                        "3",
                        "--journal",
                        "game.jsonl",
                    ]
                )
                == 0
            )
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("seed")
    _seed_folder(folder)
    return folder


@dataclass(frozen=True)
class Leaf:
    words: tuple[str, ...]
    parser: argparse.ArgumentParser

    def options(self) -> list[argparse.Action]:
        return [
            a
            for a in self.parser._actions  # noqa: SLF001
            if a.option_strings and not isinstance(a, argparse._HelpAction)  # noqa: SLF001
        ]

    def positionals(self) -> list[argparse.Action]:
        return [a for a in self.parser._actions if not a.option_strings]  # noqa: SLF001


def _leaves(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[Leaf]:
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            found: list[Leaf] = []
            for name, child in sorted(action.choices.items()):
                found += _leaves(child, (*words, name))
            return found
    return [Leaf(words, parser)]


LEAVES = _leaves(build_parser())


def _pool(leaf: Leaf, action: argparse.Action) -> list[str]:
    dest = action.dest
    if (leaf.words[-1], dest) in COUNTS:
        return COUNTS[(leaf.words[-1], dest)]
    if dest in POOLS:
        return POOLS[dest]
    if action.choices:
        return [str(c) for c in action.choices] + [""]
    type_name = getattr(action.type, "__name__", "")
    if action.type is int:
        return INTS
    if type_name in ("finite_float", "parse") or action.type is float:
        return FLOATS
    if type_name == "seed_number":
        return INTS
    return HOSTILE_TEXT + INPUTS[:4]


def _value(draw: st.DrawFn, pool: list[str]) -> str:
    """A value of ``pool``; two draws in three come from its first (good) third."""
    index = draw(st.integers(0, len(pool) - 1))
    if draw(st.integers(0, 2)):
        index %= max(1, len(pool) // 3)
    return pool[index]


def _leaf(command: str) -> Leaf:
    return next(leaf for leaf in LEAVES if " ".join(leaf.words) == command)


@st.composite
def command_lines(draw: st.DrawFn, leaf: Leaf | None = None) -> list[str]:
    leaf = leaf or draw(st.sampled_from(LEAVES))
    options: list[str] = []
    for action in leaf.options():
        if not action.required and draw(st.integers(0, 3)):  # a flag in one line of four
            continue
        flag = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            options.append(flag)
        else:
            options += [flag, _value(draw, _pool(leaf, action))]
    positionals: list[str] = []
    for action in leaf.positionals():
        count = 1 if action.nargs in (None, "?") else draw(st.integers(1, 2))
        positionals += [_value(draw, _pool(leaf, action)) for _ in range(count)]
    options_first = draw(st.booleans())  # argparse takes both orders
    argv = (
        [*leaf.words, *options, *positionals]
        if options_first
        else [*leaf.words, *positionals, *options]
    )
    forced = FORCED.get(leaf.words, [])
    if forced and forced[0] not in argv:
        argv[len(leaf.words) : len(leaf.words)] = forced
    return argv


# -- what a run may change -----------------------------------------------------------------------
def _snapshot(folder: Path) -> dict[str, tuple[str, str]]:
    """relative path -> (kind, content digest or link target); never follows links."""
    found: dict[str, tuple[str, str]] = {}
    for path in [folder, *folder.rglob("*")]:
        rel = os.fsdecode(os.path.relpath(path, folder))
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            found[rel] = ("dir", "")
        elif path.is_file():
            found[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            found[rel] = ("other", "")
    return found


def _named(argv: list[str], leaf_words: tuple[str, ...]) -> dict[str, set[str]]:
    """dest -> the values the command line gave it (paths as written, normalised)."""
    leaf = next(leaf for leaf in LEAVES if leaf.words == leaf_words)
    by_flag = {flag: a for a in leaf.options() for flag in a.option_strings}
    named: dict[str, set[str]] = {}
    words = argv[len(leaf_words) :]
    positional_values = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in by_flag and by_flag[word].nargs == 0:
            i += 1
        elif word in by_flag and i + 1 < len(words):
            named.setdefault(by_flag[word].dest, set()).add(os.path.normpath(words[i + 1] or "."))
            i += 2
        elif word in by_flag:
            named.setdefault(by_flag[word].dest, set()).add("")
            i += 1
        else:
            positional_values.append(os.path.normpath(word or "."))
            i += 1
    for action in leaf.positionals():
        named.setdefault(action.dest, set()).update(positional_values)
    if leaf_words == ("calibrate", "record"):
        named["journal"] = named.pop("session", set())  # record appends to its session file
    if leaf_words == ("simulate",):
        named["out"] = named.pop("log", set())  # simulate --log replaces
    if leaf_words == ("launcher", "serve"):
        named["journal"] = named.pop("log", set())  # serve --log appends to a session
    if leaf_words == ("firmware", "build"):
        named["build_folder"] = named.pop("out", {"build/firmware"})
    return named


def _allowed(rel: str, named: dict[str, set[str]]) -> bool:
    inputs = set().union(*(named.get(d, set()) for d in INPUT_DESTS))
    if rel in inputs:
        return False
    outputs = set().union(*(named.get(d, set()) for d in REPLACED | APPENDED | {"build_folder"}))
    return any(
        rel == out or rel.startswith(out + os.sep) or out.startswith(rel + os.sep)
        for out in outputs
    )


def check_files(
    before: dict[str, tuple[str, str]],
    after: dict[str, tuple[str, str]],
    named: dict[str, set[str]],
    argv: list[str],
    folder: Path,
    old_bytes: dict[str, bytes],
) -> None:
    leftovers = [p for p in after if TEMP_MARK in p or p.endswith(".tmp")]
    assert not leftovers, f"temporary files left behind: {leftovers}"
    for rel in sorted(set(before) | set(after)):
        if before.get(rel) == after.get(rel) or rel == ".":
            continue
        assert _allowed(rel, named), f"{rel} changed, but it is not an output the command names"
        if rel in before and before[rel][0] != "dir":
            _check_replacement(rel, named, argv, folder, old_bytes)


def _check_replacement(
    rel: str, named: dict[str, set[str]], argv: list[str], folder: Path, old: dict[str, bytes]
) -> None:
    if any(rel in named.get(d, set()) for d in APPENDED):
        now = folder / rel
        appended = (
            rel in old
            and now.is_file()
            and not now.is_symlink()
            and now.read_bytes().startswith(old[rel])
        )
        assert appended, f"{rel} was not only appended to"
    elif any(rel in named.get(d, set()) for d in REPLACED):
        replaced_ok = "--force" in argv or (rel == "stale.pid" and "--pid-file" in argv)
        assert replaced_ok, f"{rel} existed and was replaced without --force"


# -- running a line --------------------------------------------------------------------------------
class Overtime(BaseException):
    """Raised in the main thread when a line runs past the bound."""


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float


class _InstantEvent(threading.Event):
    """``emulate`` waits for Ctrl-C on an Event: here the Ctrl-C comes at once."""

    def wait(self, timeout: float | None = None) -> bool:
        return True


def _alarm(signum: int, frame: object) -> None:
    raise Overtime()


@contextlib.contextmanager
def memory_cap(headroom: int = MEMORY_HEADROOM) -> Iterator[None]:
    """Cap the address space at its current size plus ``headroom`` while the block runs."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + headroom if hard == resource.RLIM_INFINITY else min(hard, size + headroom)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _cap_child_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))


def _serve_no_one(app: object, listening: socket.socket) -> None:
    """``table serve`` once its socket is bound: return instead of serving until a signal.

    A line the server accepts would otherwise run past the bound however right it is (the
    slow fuzz of ``table serve`` stopped at the first valid line); what comes before serving
    (the flags, the files, the bind) is what the fuzz checks.
    """
    listening.close()


def run_in_process(argv: list[str]) -> Outcome:
    """main(argv) with a closed stdin, real byte streams, no debug, the bound as an alarm."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)}
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
    fake_threading = types.SimpleNamespace(Event=_InstantEvent)
    started = time.monotonic()
    previous_alarm = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, BOUND_S)
    try:
        with (
            mock.patch.object(sys, "stdin", stdin),
            mock.patch.object(sys, "stdout", stdout),
            mock.patch.object(sys, "stderr", stderr),
            mock.patch.object(threading, "excepthook", threading.excepthook),
            mock.patch("game.cli.emulate.threading", fake_threading),
            mock.patch("game.cli.table.serve", _serve_no_one),
            memory_cap(),
        ):
            try:
                code = main(argv)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
    except Overtime:
        code = -1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_alarm)
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    seconds = time.monotonic() - started
    return Outcome(code, _text(stdout), _text(stderr), seconds)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="replace")


def run_in_subprocess(argv: list[str], folder: Path) -> Outcome:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ATTACK")}
    env["PYTHONPATH"] = str(ROOT)
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "game", *[os.fsencode(a) for a in argv]],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=BOUND_S,
            check=False,
            preexec_fn=_cap_child_memory,  # noqa: PLW1509 - no threads start before exec
        )
    except subprocess.TimeoutExpired:
        return Outcome(-1, "", "", BOUND_S)
    decode = lambda raw: raw.decode("utf-8", errors="replace")  # noqa: E731
    return Outcome(
        done.returncode, decode(done.stdout), decode(done.stderr), time.monotonic() - started
    )


@contextlib.contextmanager
def user_folder(seed: Path, parent: Path) -> Iterator[Path]:
    folder = Path(os.fsdecode(parent)) / f"case{time.monotonic_ns()}"
    shutil.copytree(seed, folder, symlinks=True)
    os.symlink("/nonexistent/pts/9", folder / "dangling-link")
    os.symlink("/dev/null", folder / "devnull")
    os.symlink("/dev/zero", folder / "devzero")
    os.mkfifo(folder / "fifo")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(cwd)
        shutil.rmtree(folder, ignore_errors=True)


def check_line(argv: list[str], seed: Path, parent: Path, *, subprocess_run: bool) -> None:
    leaf_words = next(leaf.words for leaf in LEAVES if tuple(argv[: len(leaf.words)]) == leaf.words)
    with user_folder(seed, parent) as folder, mock.patch.dict(os.environ, clear=False):
        os.environ.pop("UNO_ATTACK_LAUNCHER", None)
        os.environ.pop("UNO_ATTACK_DEBUG", None)
        before = _snapshot(folder)
        old_bytes = {
            rel: (folder / rel).read_bytes() for rel, kind in before.items() if kind[0] == "file"
        }
        outcome = run_in_subprocess(argv, folder) if subprocess_run else run_in_process(argv)
        _log(argv, outcome)
        shown = (
            f"uno-attack {' '.join(argv)!r}\n--- stdout\n{outcome.out[-2000:]}"
            f"\n--- stderr\n{outcome.err[-3000:]}"
        )
        assert outcome.code != -1, f"ran past {BOUND_S} s: {shown}"
        assert outcome.code in ALLOWED_EXITS, f"exit {outcome.code}: {shown}"
        assert "Traceback" not in outcome.err + outcome.out, shown
        assert "internal error" not in outcome.err, shown
        check_files(before, _snapshot(folder), _named(argv, leaf_words), argv, folder, old_bytes)


def _log(argv: list[str], outcome: Outcome) -> None:
    """With UNO_ATTACK_FUZZ_LOG=FILE, one line per case: exit code, seconds, the line."""
    path = os.environ.get("UNO_ATTACK_FUZZ_LOG")
    if path:
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as log:
            log.write(f"{outcome.code}\t{outcome.seconds:.2f}\t{argv!r}\n")


# -- the tests -------------------------------------------------------------------------------------
REGRESSIONS = [
    ["calibrate", "fit", "toy.jsonl", "--out", "toy.jsonl"],
    ["simulate", "--games", "1", "--log", "notes.txt"],
    ["emulate", "--link", "notes.txt"],
    ["emulate", "--link", "adir"],
    ["emulate", "--link", "missing/dir/x"],
    ["profile", "show", "latin1.toml"],
    ["launcher", "fire", "--launcher", "sim://?profile=latin1.toml"],
    ["simulate", "--games", "1", "--custom", "latin1.toml"],
    ["launcher", "fire", "--launcher", "gpio://?mock=1&config=latin1.toml"],
    ["calibrate", "fit", "toy.jsonl", "--plot", "out.jsonl"],
    ["calibrate", "compare", "toy.jsonl", "web-game", "--plot", "plot.txt"],
    ["profile", "sample", "web-game", "--presses", "2000000000"],
    # served for ever, printing links to "é/referee/...": --public-url is now checked
    [
        "table",
        "serve",
        "--bots",
        "",
        "--launcher",
        "sim://?profile=devzero",
        "--seed",
        "1",
        "--public-url",
        "é",
        "--referee",
    ],
    ["launcher", "fire", "--launcher", "gpio://?mock=yes"],
    ["launcher", "fire", "--launcher", ""],
    ["play", "--delay", "-1", "--rounds", "1"],
    ["launcher", "clear", "--pid-file", "devzero"],
    ["launcher", "serve", "--pid-file", "notes.txt"],
    ["launcher", "serve", "--log", "devnull"],
    ["profile", "show", "web-game", "--plot", LATIN1_NAME.replace(".toml", ".png")],
    ["launcher", "fire", "--cards", "99999999999999999999"],
    ["simulate", "--games", "2", "--workers", "65"],
    ["firmware", "build", "--out", ""],
    ["calibrate", "compare", "--seed", "-1", LATIN1_NAME, "toy.jsonl"],
    ["profile", "sample", "web-game", "--presses", "3", "--seed", "-1"],
    ["launcher", "serve", "--idle", "0.2", "--launcher", "gpio://?mock=yes&cards=20"],
]


def _fuzz(examples: int, *phases: Phase) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not os.environ.get("UNO_ATTACK_FUZZ_RANDOM"),  # =1: explore new lines
        suppress_health_check=list(HealthCheck),
        database=None,
        phases=phases or (Phase.explicit, Phase.generate),
    )


def _kept(lines: list[list[str]]) -> Any:
    """``@example(argv=line)`` for every line: explicit, always-run regression cases."""

    def decorate(test: Any) -> Any:
        for line in reversed(lines):
            test = example(argv=line)(test)
        return test

    return decorate


COMMANDS = [" ".join(leaf.words) for leaf in LEAVES]
PER_COMMAND = max(4, CI_EXAMPLES // len(COMMANDS))


@pytest.mark.parametrize("command", COMMANDS)
@_fuzz(PER_COMMAND)
@given(data=st.data())
def test_no_command_line_loses_a_file_or_crashes(
    command: str, data: st.DataObject, seed: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every command gets its share of the CI budget (a uniform draw starves some)."""
    argv = data.draw(command_lines(_leaf(command)), label="argv")
    check_line(argv, seed, tmp_path_factory.getbasetemp(), subprocess_run=False)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@_fuzz(SLOW_EXAMPLES // len(COMMANDS))
@given(data=st.data())
def test_no_command_line_loses_a_file_or_crashes_long(
    command: str, data: st.DataObject, seed: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    argv = data.draw(command_lines(_leaf(command)), label="argv")
    check_line(argv, seed, tmp_path_factory.getbasetemp(), subprocess_run=False)


@_fuzz(1, Phase.explicit)
@given(argv=command_lines())
@_kept(REGRESSIONS)
def test_lines_that_once_failed(
    argv: list[str], seed: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The issue's reproductions and every line the fuzzer found, kept as examples."""
    check_line(argv, seed, tmp_path_factory.getbasetemp(), subprocess_run=False)


@_fuzz(8)
@given(argv=command_lines().filter(lambda argv: argv[0] != "emulate"))
@example(argv=["profile", "show", LATIN1_NAME])
@example(argv=["calibrate", "fit", "toy.jsonl", "--plot", "out.jsonl"])
def test_a_sample_of_lines_in_a_real_process(
    argv: list[str], seed: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same checks through the console entry point: real streams, real exit codes."""
    check_line(argv, seed, tmp_path_factory.getbasetemp(), subprocess_run=True)


def test_the_fuzzer_reaches_every_command_and_flag() -> None:
    """Every sub-command and every flag of our parsers is in the generated space."""
    commands = {" ".join(leaf.words) for leaf in LEAVES}
    assert {"simulate", "calibrate fit", "emulate", "launcher serve", "profile sample"} <= commands
    for leaf in LEAVES:
        for action in leaf.options() + leaf.positionals():
            assert _pool(leaf, action) or action.nargs == 0, (leaf.words, action.dest)
