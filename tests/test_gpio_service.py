"""The systemd unit in docs/ runs the server from the venv, as a gpio user, in a tight sandbox.

The unit is parsed here (systemd's own syntax: repeated keys, backslash continuations), its
``ExecStart`` is checked against our real CLI parser, and, where ``systemd-analyze`` exists,
systemd itself verifies the sandbox offline (docs/hardware.md quotes its exposure score).
"""

from __future__ import annotations

import shlex
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


def test_devices_are_limited_to_the_gpio_chips_every_one_of_them(
    service: dict[str, list[str]],
) -> None:
    assert one(service, "DevicePolicy") == "closed"
    # a Pi 5 on a kernel before 6.6.45 has its header on gpiochip4: the class covers it
    assert service["DeviceAllow"] == ["char-gpiochip rw"]
    assert "PrivateDevices" not in service  # it would hide /dev/gpiochip*


def _cli(command_line: str) -> tuple[list[str], object]:
    from game.cli import build_parser

    argv = shlex.split(command_line)
    assert argv[0] == VENV_BIN + "uno-attack"
    return argv, build_parser().parse_args(argv[1:])


def test_after_every_stop_the_motor_pins_are_driven_low(service: dict[str, list[str]]) -> None:
    _, served = _cli(one(service, "ExecStart"))
    _, after = _cli(one(service, "ExecStopPost"))
    assert (after.command, after.launcher_command) == ("launcher", "off")  # type: ignore[attr-defined]
    assert after.launcher == served.launcher  # type: ignore[attr-defined]


def test_it_refuses_to_start_on_a_kernel_that_keeps_released_outputs(
    service: dict[str, list[str]],
) -> None:
    _, before = _cli(one(service, "ExecStartPre"))
    assert (before.command, before.launcher_command) == ("launcher", "doctor")  # type: ignore[attr-defined]


def test_the_watchdog_the_oom_killer_and_file_limits(service: dict[str, list[str]]) -> None:
    assert one(service, "Type") == "notify"  # serve sends READY=1 (hardware.sd_notify)
    assert one(service, "NotifyAccess") == "main"
    assert 2 <= int(one(service, "WatchdogSec")) <= 30  # pinged at least every second
    assert int(one(service, "OOMScoreAdjust")) <= -500
    assert int(one(service, "LimitNOFILE")) <= 1024


def test_stop_reload_and_restart_match_the_server(service: dict[str, list[str]]) -> None:
    from hardware.safety import SIGTERM_EXIT

    assert one(service, "KillSignal") == "SIGTERM"
    assert one(service, "SuccessExitStatus") == str(SIGTERM_EXIT)
    assert one(service, "ExecReload") == "/usr/bin/kill -USR1 $MAINPID"  # serve clears on SIGUSR1
    assert one(service, "Restart") == "on-failure"
