"""The file-safety policy (docs/errors.md, "Files"): each bug of issue 12, then the policy module.

Every test here failed before its fix: the command destroyed a file, printed a
traceback, tried to allocate gigabytes, or silently did something else than asked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.emulator import Emulator
from game.cli import main
from hardware.errors import ConfigError, UnoAttackError
from hardware.files import (
    MAX_TEXT_BYTES,
    PathError,
    atomic_path,
    atomic_write_text,
    check_output,
    leftover_temporaries,
    read_user_text,
)

ROOT = Path(__file__).resolve().parent.parent
PROFILE = 'schema = 1\nkind = "iid"\ndescription = "{}"\np = [0.5, 0.5]\n'


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("UNO_ATTACK_LAUNCHER", raising=False)
    yield tmp_path
    assert leftover_temporaries(tmp_path) == []


@pytest.fixture
def session(folder: Path) -> Path:
    assert main(["calibrate", "record", "toy.jsonl", "--presses", "40", "--seed", "2"]) == 0
    return folder / "toy.jsonl"


def _latin1(path: Path) -> Path:
    path.write_bytes(PROFILE.format("café").encode("latin-1"))
    return path


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "uno-attack: error: " in err or ": error: argument" in err, err
    return err


# -- outputs: never an input, never replaced without --force, checked before any work --------------
def test_fit_refuses_to_write_its_profile_over_the_session_it_reads(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = session.read_bytes()
    capsys.readouterr()
    assert main(["calibrate", "fit", "toy.jsonl", "--out", "toy.jsonl"]) == 2
    assert "is also an input" in _error(capsys)
    assert session.read_bytes() == before


def test_fit_writes_a_new_profile_and_replaces_one_only_with_force(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", "fit", "toy.jsonl", "--out", "fitted.toml"]) == 0
    first = Path("fitted.toml").read_text(encoding="utf-8")
    assert main(["calibrate", "fit", "toy.jsonl", "--out", "fitted.toml", "--name", "x"]) == 2
    assert "already exists" in _error(capsys)
    assert Path("fitted.toml").read_text(encoding="utf-8") == first
    assert (
        main(["calibrate", "fit", "toy.jsonl", "--out", "fitted.toml", "--name", "x"] + ["--force"])
        == 0
    )
    assert 'name = "x"' in Path("fitted.toml").read_text(encoding="utf-8")


def test_simulate_log_never_overwrites_without_force(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = folder / "existing.jsonl"
    existing.write_text("a week of measurements\n", encoding="utf-8")
    assert main(["simulate", "--games", "1", "--log", "existing.jsonl"]) == 2
    assert "--force" in _error(capsys)
    assert existing.read_text(encoding="utf-8") == "a week of measurements\n"
    assert main(["simulate", "--games", "1", "--log", "existing.jsonl", "--force"]) == 0
    assert existing.read_text(encoding="utf-8").startswith('{"type":"sim_game"')


def test_simulate_log_is_written_whole_or_not_at_all(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C before any game finished leaves neither a log nor a temporary file.

    (Once games have finished, Ctrl-C keeps them: tests/test_cli_simulate.py.)
    """
    import game.play.simulate as engine_side  # the CLI imports run() when it runs

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine_side, "run", interrupted)
    assert main(["simulate", "--games", "1", "--log", "new.jsonl"]) == 130
    assert not (folder / "new.jsonl").exists()
    assert not list(folder.glob(".new.jsonl.*"))


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["calibrate", "fit", "toy.jsonl", "--plot", "out.jsonl"], "'.jsonl' is not supported"),
        (["calibrate", "compare", "toy.jsonl", "web-game", "--plot", "plot.txt"], "'.txt'"),
        (["calibrate", "fit", "toy.jsonl", "--plot", "missing/x.png"], "does not exist"),
        (["profile", "show", "web-game", "--plot", "toy.jsonl"], "'.jsonl'"),
    ],
)
def test_a_bad_plot_path_is_refused_before_any_work(
    session: Path, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no report printed first, then a failure
    assert words in err and "hint: use one of" in err or words in err


def test_a_plot_is_written_and_then_only_replaced_with_force(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profile", "show", "web-game", "--plot", "web.svg"]) == 0
    assert Path("web.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert main(["profile", "show", "web-game", "--plot", "web.svg"]) == 2
    assert main(["profile", "show", "web-game", "--plot", "web.svg", "--force"]) == 0


# -- emulate --link --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["notes.txt", "adir", "missing/dir/x", "mylink"])
def test_emulate_link_never_replaces_what_is_there(
    folder: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    (folder / "adir").mkdir()
    (folder / "mylink").symlink_to(folder / "notes.txt")
    assert main(["emulate", "--link", name]) == 2
    _error(capsys)
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (folder / "adir").is_dir() and (folder / "mylink").is_symlink()
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []


def test_the_emulator_leaves_no_temporary_link_when_the_link_cannot_be_made(
    folder: Path,
) -> None:
    (folder / "adir").mkdir()
    emulator = Emulator(seed=1, link=str(folder / "adir"))
    with pytest.raises(OSError):
        emulator.start()
    emulator.stop()
    assert sorted(p.name for p in folder.iterdir()) == ["adir"]


def test_emulate_link_takes_over_a_stale_link_of_an_earlier_emulator(folder: Path) -> None:
    from game.cli.emulate import check_link

    (folder / "launcher").symlink_to("/dev/pts/999")
    check_link("launcher")  # a dangling pty link: replaced, not refused


# -- every parser of user files: encoding, folders, devices ----------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["profile", "show", "latin1.toml"],
        ["launcher", "fire", "--launcher", "sim://?profile=latin1.toml"],
        ["simulate", "--games", "1", "--custom", "latin1.toml"],
        ["launcher", "fire", "--launcher", "gpio://?mock=1&config=latin1.toml"],
        ["calibrate", "plan", "--precision", "0.1", "--profile", "latin1.toml"],
    ],
)
def test_a_latin1_file_is_an_error_naming_file_line_and_column(
    folder: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _latin1(folder / "latin1.toml")
    assert main(argv) == 2
    err = _error(capsys)
    assert "latin1.toml: line 3, column 19: byte 0xe9 is not UTF-8 text" in err
    assert "hint: save the file as UTF-8" in err


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_a_profile_that_is_not_a_regular_file_is_refused_without_reading_it(
    folder: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = folder / "p.toml"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)  # reading it would wait forever
    else:
        path.symlink_to("/dev/zero")  # reading it would never end
    assert main(["profile", "show", "p.toml"]) == 2
    assert "cannot read profile" in _error(capsys)


def test_launcher_clear_never_reads_an_endless_pid_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "zero").symlink_to("/dev/zero")
    assert main(["launcher", "clear", "--pid-file", "zero"]) == 2
    assert "cannot read the pid file" in _error(capsys)


def test_serve_refuses_a_pid_file_that_is_a_user_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = folder / "notes.txt"
    notes.write_text("mine\n", encoding="utf-8")
    assert main(["launcher", "serve", "--pid-file", "notes.txt"]) == 2
    assert "already exists" in _error(capsys)
    assert notes.read_text(encoding="utf-8") == "mine\n"


def test_serve_never_deletes_a_device_given_as_its_log(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "null").symlink_to("/dev/null")
    assert main(["launcher", "serve", "--log", "null", "--max-presses", "1"]) == 2
    assert "not a regular file" in _error(capsys)
    assert (folder / "null").is_symlink()


def test_a_file_name_that_is_not_utf8_is_printed_not_a_crash(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.svg")
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ATTACK")}
    env.update(PYTHONPATH=str(ROOT), LC_ALL="C.UTF-8")
    done = subprocess.run(
        [sys.executable, "-m", "game", "profile", "show", "web-game", "--plot", os.fsencode(name)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"plot written to caf\xe9.svg" in done.stdout
    assert (tmp_path / name).exists()


# -- limits and values -----------------------------------------------------------------------------
def test_profile_sample_refuses_beyond_its_documented_limit(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profile", "sample", "web-game", "--presses", "2000000000"]) == 2
    assert "from 1 to 10,000,000" in _error(capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "1", "--workers", "65"],
        ["simulate", "--games", "1000001"],
        ["launcher", "fire", "--cards", "99999999999999999999"],
        ["launcher", "fire", "--presses", "10001"],
        ["calibrate", "record", "new.jsonl", "--presses", "100001"],
        ["calibrate", "record", "new.jsonl", "--cards", "10001"],
    ],
)
def test_resource_limits_are_clear_errors(
    folder: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    _error(capsys)
    assert not (folder / "new.jsonl").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["launcher", "fire", "--launcher", ""],
        ["simulate", "--launcher", " "],
        ["play", "--delay", "-1"],
        ["referee", "--delay", "nan"],
        ["play", "--journal", ""],
        ["calibrate", "compare", "web-game", "web-game", "--alpha", "nan"],
        ["launcher", "serve", "--idle", "inf"],
        ["firmware", "build", "--out", ""],
        ["calibrate", "compare", "web-game", "web-game", "--seed", "-1"],
        ["profile", "sample", "web-game", "--presses", "3", "--seed", "-1"],
    ],
)
def test_empty_negative_and_nan_values_are_refused(
    folder: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "error: argument" in capsys.readouterr().err


# -- the launcher's hopper -------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["sim://?seed=4", "gpio://?mock=yes&seed=4"])
def test_fire_fills_an_empty_simulated_hopper_and_says_so(
    folder: Path, spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["launcher", "fire", "--launcher", spec, "--presses", "12"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("loaded 90 cards into the simulated hopper")
    counts = [
        int(line.split(": ")[1].split()[0]) for line in out.splitlines() if "press" in line[:6]
    ]
    assert len(counts) == 12 and sum(counts) > 0


def test_an_empty_hopper_is_reported_as_empty(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["launcher", "fire", "--launcher", "sim://", "--cards", "0", "--presses", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("the hopper is empty") == 2


def test_serve_without_cards_logs_real_presses(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 15 + "quit\n"))
    assert main(["launcher", "serve", "--launcher", "sim://?seed=1", "--log", "s.jsonl"]) == 0
    from launcher.calibration.session import read_session

    session = read_session(folder / "s.jsonl")
    assert len(session.presses) == 15 and session.counts.sum() > 0
    assert session.presses[0].loaded == 90


def test_simulate_on_a_real_time_emulator_says_it_will_be_slow(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import game.play.simulate as engine_side  # the CLI imports run() when it runs

    def stop(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine_side, "run", stop)
    assert main(["simulate", "--games", "1", "--launcher", "emu://"]) == 130
    assert "runs the emulated mechanism in real time" in capsys.readouterr().err
    assert main(["simulate", "--games", "1", "--launcher", "emu://?fast=1"]) == 130
    assert "real time" not in capsys.readouterr().err


# -- the CLI's last line of defence ----------------------------------------------------------------
def test_an_unexpected_exception_is_reported_as_a_bug_without_a_traceback(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import game.cli as cli

    def broken(args: object) -> int:
        raise ZeroDivisionError("oops")

    args = cli.build_parser().parse_args(["rules", "list"])
    args.func = broken
    monkeypatch.setattr(cli, "build_parser", lambda only=None: _Fixed(args))
    assert main(["rules", "list"]) == 2
    err = capsys.readouterr().err
    assert "internal error (a bug in uno-attack): ZeroDivisionError: oops" in err
    assert "Traceback" not in err


class _Fixed:
    """A parser that always answers the same arguments."""

    def __init__(self, args: object) -> None:
        self.args = args

    def parse_args(self, argv: object) -> object:
        return self.args


# -- the policy module -----------------------------------------------------------------------------
def test_check_output_refusals(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("x", encoding="utf-8")
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "pipe")
    cases = {
        "": "empty",
        str(tmp_path / "old.txt"): "already exists",
        str(tmp_path / "dir"): "is a directory",
        str(tmp_path / "pipe"): "not a regular file",
        str(tmp_path / "no" / "x.txt"): "does not exist",
    }
    for path, words in cases.items():
        with pytest.raises(PathError, match=words):
            check_output(path)
    with pytest.raises(PathError, match="also an input"):
        check_output(tmp_path / "old.txt", inputs=[str(tmp_path / "." / "old.txt")], force=True)
    with pytest.raises(PathError, match="extension"):
        check_output(tmp_path / "x.txt", suffixes=["png"])
    assert check_output(tmp_path / "old.txt", force=True) == tmp_path / "old.txt"
    assert issubclass(PathError, ConfigError) and PathError.hint


def test_atomic_path_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "profile.toml"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half", encoding="utf-8")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old"
    assert leftover_temporaries(tmp_path) == []
    target.chmod(0o640)
    atomic_write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert leftover_temporaries(tmp_path) == []
    assert target.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its permissions
    fresh = atomic_write_text(tmp_path / "fresh.toml", "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask  # as open(path, "w") would


def test_read_user_text_limits_and_errors(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(PathError, match="over the limit"):
        read_user_text(big)

    class MyError(ConfigError):
        pass

    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"ok = 1\nname = '\xff'\n")
    with pytest.raises(MyError, match=r"bad.toml: line 2, column 9: byte 0xff"):
        read_user_text(bad, error=MyError)
    with pytest.raises(UnoAttackError, match="cannot read file"):
        read_user_text(tmp_path / "missing.toml")
