"""The systemd unit in docs/ runs the server from the venv, as a gpio user, in a tight sandbox.

The unit is parsed here (systemd's own syntax: repeated keys, backslash continuations), its
``ExecStart`` is checked against our real CLI parser, and, where ``systemd-analyze`` exists,
systemd itself verifies the sandbox offline (docs/hardware.md quotes its exposure score).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parent.parent / "docs" / "uno-attack-launcher.service"
VENV_BIN = "/opt/uno-attack/venv/bin/"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections -> key -> every value given (systemd allows a key more than once)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def service() -> dict[str, list[str]]:
    return parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]


def one(service: dict[str, list[str]], key: str) -> str:
    values = service.get(key, [])
    assert len(values) == 1, f"{key}: expected one value, got {values}"
    return values[0]


def test_it_runs_our_cli_from_the_venv(service: dict[str, list[str]]) -> None:
    from game.cli import build_parser

    argv = shlex.split(one(service, "ExecStart"))
    assert argv[0] == VENV_BIN + "uno-attack"
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.launcher_command) == ("launcher", "serve")
    assert args.launcher.startswith("gpio://?config=/etc/uno-attack/")


def test_it_runs_as_an_unprivileged_user_in_the_gpio_group(service: dict[str, list[str]]) -> None:
    assert one(service, "User") not in ("", "root")
    assert "gpio" in one(service, "SupplementaryGroups").split()
    assert one(service, "NoNewPrivileges") == "yes"
    assert one(service, "CapabilityBoundingSet") == ""


def test_the_file_system_is_read_only_except_its_own_directories(
    service: dict[str, list[str]],
) -> None:
    assert one(service, "ProtectSystem") == "strict"
    assert one(service, "ProtectHome") == "yes"
    assert one(service, "PrivateTmp") == "yes"
    argv = shlex.split(one(service, "ExecStart"))
    writable = (
        "/run/" + one(service, "RuntimeDirectory"),
        "/var/lib/" + one(service, "StateDirectory"),
    )
    for option in ("--log", "--pid-file"):
        path = argv[argv.index(option) + 1]
        assert path.startswith(writable), f"{option} {path} is not writable under ProtectSystem"
    assert "LG_WD=/run/uno-attack" in service["Environment"]  # lgpio's pipe, in a writable dir


def test_devices_are_limited_to_the_gpio_chip(service: dict[str, list[str]]) -> None:
    assert one(service, "DevicePolicy") == "closed"
    allowed = service["DeviceAllow"]
    assert allowed and all(re.fullmatch(r"/dev/gpiochip\d+ rw", rule) for rule in allowed)
    assert "PrivateDevices" not in service  # it would hide /dev/gpiochip*


def test_stop_reload_and_restart_match_the_server(service: dict[str, list[str]]) -> None:
    from hardware.safety import SIGTERM_EXIT

    assert one(service, "KillSignal") == "SIGTERM"
    assert one(service, "SuccessExitStatus") == str(SIGTERM_EXIT)
    assert one(service, "ExecReload") == "/bin/kill -USR1 $MAINPID"  # serve clears on SIGUSR1
    assert one(service, "Restart") == "on-failure"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_rates_the_sandbox_safe(tmp_path: Path) -> None:
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text(encoding="utf-8"), encoding="utf-8")
    run = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "--offline" in run.stderr:
        pytest.skip("this systemd-analyze has no --offline")
    score = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", run.stdout)
    assert score is not None, run.stdout + run.stderr
    assert float(score.group(1)) <= 1.0 and score.group(2) == "SAFE"
