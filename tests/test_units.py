"""Every systemd unit in docs/ passes ``systemd-analyze verify`` and a sandbox review (issue 29).

systemd checks the units offline, where ``systemd-analyze`` exists (skipped with a reason
elsewhere): ``verify`` catches unknown keys and bad values (it needs the programs a unit
runs to exist, so the copy checked here points at this checkout's venv instead of
/opt/uno-attack/venv), and ``security --offline=yes`` rates the sandbox.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_gpio_service import parse_unit

DOCS = Path(__file__).resolve().parent.parent / "docs"
UNITS = sorted(DOCS.glob("*.service"))
#: The most exposure each unit may have (systemd's scale: under 1 SAFE, under 2 OK ...);
#: a unit that listens on the network cannot be as closed as one that only drives pins.
MAX_EXPOSURE = {"uno-attack-launcher.service": 1.0}
DEFAULT_MAX_EXPOSURE = 2.5
VENV_BIN = Path(sys.executable).parent

needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="no systemd-analyze on this machine"
)


def _local_copy(unit: Path, folder: Path) -> Path:
    """The unit with its programs at paths that exist here (this venv; kill where it is)."""
    text = unit.read_text(encoding="utf-8").replace("/opt/uno-attack/venv/bin/", f"{VENV_BIN}/")
    kill = shutil.which("kill") or "/usr/bin/kill"
    text = text.replace("/usr/bin/kill ", f"{kill} ")
    copy = folder / unit.name
    copy.write_text(text, encoding="utf-8")
    return copy


def _analyze(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["systemd-analyze", *argv], capture_output=True, text=True, timeout=120)


def test_the_units_are_found() -> None:
    names = {unit.name for unit in UNITS}
    assert {"uno-attack-launcher.service", "uno-attack-pico.service"} <= names


@needs_systemd
@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_systemd_verifies_the_unit_without_a_warning(unit: Path, tmp_path: Path) -> None:
    copy = _local_copy(unit, tmp_path)
    run = _analyze("verify", "--man=no", str(copy))
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == "", run.stderr  # unknown keys are only warnings: none allowed


@needs_systemd
@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_systemd_rates_the_sandbox(unit: Path, tmp_path: Path) -> None:
    copy = _local_copy(unit, tmp_path)
    run = _analyze("security", "--offline=yes", str(copy))
    if "--offline" in run.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd before 250)")
    score = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", run.stdout)
    assert score is not None, run.stdout + run.stderr
    assert float(score.group(1)) <= MAX_EXPOSURE.get(unit.name, DEFAULT_MAX_EXPOSURE)


def test_the_pico_unit_reaches_the_usb_serial_port_and_nothing_else() -> None:
    service = parse_unit((DOCS / "uno-attack-pico.service").read_text(encoding="utf-8"))["Service"]
    assert service["SupplementaryGroups"] == ["dialout"]  # /dev/ttyACM* is root:dialout
    assert service["DevicePolicy"] == ["closed"] and service["DeviceAllow"] == ["char-ttyACM rw"]
    assert "PrivateUsers" not in service  # it would drop the dialout group
    assert int(service["LimitNOFILE"][0]) <= 4096
    assert service["User"] != ["root"]
