"""The firmware compiles with mpy-cross for the RP2040, the compiled codec runs under real
MicroPython, and ``uno-attack firmware build|install`` build the right files and command."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from micropython_runner import MODULES, SCRIPTS, run_cpython, run_micropython

from game.cli import firmware as fw_cli
from game.cli import main

ALL_SOURCES = fw_cli.source_files()


def test_the_firmware_is_every_module_the_pico_needs() -> None:
    assert [p.name for p in ALL_SOURCES] == ["protocol.py", "logic.py", "hal_rp2.py", "main.py"]
    assert all(p.exists() for p in ALL_SOURCES)


@pytest.mark.parametrize("source", ALL_SOURCES, ids=lambda p: p.name)
def test_every_module_compiles_for_the_rp2040(source: Path, tmp_path: Path) -> None:
    target = tmp_path / (source.stem + ".mpy")
    result = subprocess.run(
        fw_cli.mpy_cross_command(source, target), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    header = target.read_bytes()[:2]
    assert header[:1] == b"M" and header[1] == 6  # .mpy format version 6 (MicroPython >= 1.22)


def test_build_writes_mpy_modules_and_the_source_entry_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["firmware", "build", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["hal_rp2.mpy", "logic.mpy", "main.py", "protocol.mpy"]
    assert "protocol.mpy" in capsys.readouterr().out


def test_compiled_modules_run_the_scenario_under_micropython(
    micropython_dir: Path, tmp_path: Path
) -> None:
    """The .mpy files mpy-cross makes for the Pico load and behave the same in MicroPython."""
    built = {p.name: p.read_bytes() for p in fw_cli.build(tmp_path)}
    binary = {name: built[name] for name in ("protocol.mpy", "logic.mpy")}
    expected = run_cpython(SCRIPTS / "scenario.py")
    out = run_micropython(micropython_dir, (SCRIPTS / "scenario.py").read_text(), {}, binary)
    assert out.splitlines() == expected.splitlines()


# -- install -------------------------------------------------------------------------------------
def test_install_command_copies_everything_then_resets() -> None:
    files = fw_cli.compiled_files(Path("out"))
    command = fw_cli.install_command("/dev/ttyACM0", files)
    assert Path(command[0]).name == "mpremote"
    assert command[1:6] == ["connect", "/dev/ttyACM0", "exec", fw_cli.WATCHDOG_OFF, "+"]
    assert command[6:9] == ["exec", fw_cli.clean_snippet(), "+"]
    chain = " ".join(command[8:])
    assert chain == (
        "+ cp out/protocol.mpy :protocol.mpy + cp out/logic.mpy :logic.mpy"
        " + cp out/hal_rp2.mpy :hal_rp2.mpy + cp out/main.py :main.py + reset"
    )


def test_the_clean_step_removes_only_old_firmware_under_micropython(micropython_dir: Path) -> None:
    code = (
        "import os\n"
        "for name in ('logic.py', 'protocol.mpy', 'keep.txt', 'profile.txt'):\n"
        "    open(name, 'w').write('x')\n" + fw_cli.clean_snippet() + "\n"
        "print(sorted(f for f in os.listdir() if f.endswith(('.py', '.mpy', '.txt'))))\n"
    )
    out = run_micropython(micropython_dir, code, {})
    assert out.strip() == "['keep.txt', 'profile.txt']"


def test_install_dry_run_prints_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["firmware", "install", "--port", "/dev/null", "--dry-run", "--source"]) == 0
    printed = capsys.readouterr().out
    assert "connect /dev/null exec" in printed and "logic.py :logic.py" in printed
    assert printed.rstrip().endswith("+ reset")


def test_install_to_a_missing_port_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["firmware", "install", "--port", "/dev/no-such-pico"]) == 2
    err = capsys.readouterr().err
    assert "uno-attack: error: no serial port /dev/no-such-pico" in err and "hint:" in err


def test_modules_stay_in_sync_with_the_micropython_test_set() -> None:
    assert set(MODULES) <= {p.name for p in ALL_SOURCES}
