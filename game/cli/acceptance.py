"""``uno-attack launcher acceptance``: the 15-minute check of a real build, with a report to attach.

It walks a hobbyist through every check a first build gets wrong (docs/hardware.md,
"Acceptance test"): the motor inputs low at boot, after a stop and after ``kill -9``;
the beam with one real card; ten presses giving ten; no fire after hold-to-clear; an
empty hopper counting 0; the beam's count against a hand count; jam detection; and,
for a Pico, a BOOT line without a fault. Each check says what to do, waits for Enter
or asks a question (``y``/``n``/``s`` to skip, or a number), and the results go to a
JSON report (``--report``), written after every check so a crash loses nothing.

On ``gpio://?mock=1`` the mock rig plays the person (it presses the bouncy button,
holds a card in the beam, empties the hopper), so the whole walk runs in tests with
scripted answers; measurements with a multimeter are still asked.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from game.cli.common import add_force_argument
from hardware.errors import LauncherError, LauncherFault, UnoAttackError
from hardware.files import atomic_write_text, check_output
from launcher.base import Launcher
from launcher.spec import open_launcher, resolve_spec

EXIT_OK, EXIT_FAILED = 0, 1
DEFAULT_REPORT = "uno-attack-acceptance.json"
#: How long the button checks wait for the person after their last press (s).
BUTTON_IDLE_S = 6.0


@dataclass
class Check:
    id: str
    title: str
    result: str = "skip"  # pass, fail or skip
    details: dict[str, Any] = field(default_factory=dict)


class Session:
    """The person at the bench (stdin/stdout), the launcher spec, and the report being written."""

    def __init__(self, spec: str, seed: int | None, stdin: TextIO, out: TextIO, report: Path):
        self.spec, self.seed, self.stdin, self.out, self.report = spec, seed, stdin, out, report
        self.checks: list[Check] = []
        #: Where /sys and /proc are read from (a test's fake Pi; ``/`` on a real one).
        self.sys_root = Path("/")
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.environment: dict[str, Any] = {}

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def ask(self, question: str) -> str | None:
        """One line of answer (None at end of input: the rest is skipped)."""
        print(f"{question} ", end="", file=self.out, flush=True)
        line = self.stdin.readline()
        if not line:
            print("(no answer)", file=self.out)
            return None
        return line.strip().lower()

    def confirm(self, question: str) -> str:
        """``pass``/``fail``/``skip`` from a y/n/s answer."""
        while True:
            answer = self.ask(f"{question} [y/n/s]")
            if answer is None or answer in ("s", "skip"):
                return "skip"
            if answer in ("y", "yes", "n", "no"):
                return "pass" if answer.startswith("y") else "fail"
            self.say("  please answer y (yes), n (no) or s (skip)")

    def number(self, question: str) -> int | None:
        while True:
            answer = self.ask(question)
            if answer is None or answer in ("s", "skip"):
                return None
            if answer.isdecimal():
                return int(answer)
            self.say("  please type a whole number (or s to skip)")

    def open(self) -> Launcher[Any]:
        return open_launcher(self.spec, default_seed=self.seed)

    def record(self, check: Check) -> None:
        self.checks.append(check)
        mark = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}[check.result]
        self.say(f"  -> {mark}: {check.title}")
        self.write()

    def write(self) -> None:
        summary = {
            kind: sum(c.result == kind for c in self.checks) for kind in ("pass", "fail", "skip")
        }
        data = {
            "uno_attack_acceptance": 1,
            "started": self.started,
            "launcher": self.spec,
            "environment": self.environment,
            "checks": [asdict(c) for c in self.checks],
            "summary": summary,
        }
        atomic_write_text(self.report, json.dumps(data, indent=2) + "\n")


# -- the checks ----------------------------------------------------------------------------
def environment(launcher: Launcher[Any]) -> dict[str, Any]:
    """What a bug report needs to reproduce: versions, pin factory, lgpio, pins."""
    from importlib import metadata

    env: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "backend": launcher.backend,
        "describe": launcher.describe(),
    }
    for package in ("uno-attack", "gpiozero", "lgpio", "pyserial"):
        try:
            env[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            env[package] = None
    driver = getattr(launcher, "driver", None)
    if driver is not None:
        from hardware.pin_factory import lgpio_problem

        env["pin_factory"] = type(driver.motor.pin_factory).__name__
        env["lgpio_problem"] = lgpio_problem()
        env["pinmap"] = {k: v for k, v in vars(driver.pinmap).items() if v is not None}
    model = Path("/proc/device-tree/model")
    env["board"] = model.read_text(errors="replace").strip("\x00\n") if model.exists() else None
    return env


class Bench:
    """The person's hands: on real hardware they do it; on a mock rig the rig does it."""

    def __init__(self, session: Session, launcher: Launcher[Any]):
        self.session = session
        self.rig = getattr(launcher, "rig", None)

    def do(self, instruction: str, mock: Callable[[], None] | None = None) -> bool:
        """Ask the person to do something (True when done); a mock rig does it itself."""
        if self.rig is not None and mock is not None:
            self.session.say(f"{instruction}  (mock rig: done for you)")
            mock()
            return True
        return self.session.ask(f"{instruction}, then press Enter.") is not None


def check_pins_low_at_boot(s: Session) -> Check:
    """Before any process opens the pins: only the pull-downs hold the H-bridge inputs low."""
    check = Check("pins_low_at_boot", "motor inputs IN1/IN2 low at boot, before anything runs")
    check.result = s.confirm(
        "Boot the Pi (or plug in the Pico) with the service stopped. With a multimeter on the "
        "H-bridge inputs IN1 and IN2: is each below 0.4 V against GND?"
    )
    return check


def check_kernel_releases_outputs(s: Session) -> Check:
    """Without ``dtparam=strict_gpiod`` a killed launcher leaves its motor pins driven."""
    from hardware.kernel_gpio import check_output_release

    check = Check("kernel_releases_outputs", "a dead process's GPIO outputs return to inputs")
    if "mock=1" in s.spec or not s.spec.startswith("gpio://"):
        check.details["reason"] = "needs real GPIO pins (a Pico stops on its own watchdog)"
        return check
    verdict = check_output_release(s.sys_root)
    check.details.update(detail=verdict.detail, parameters=verdict.parameters)
    if verdict.hint:
        check.details["hint"] = verdict.hint
        s.say(f"  {verdict.detail}\n  hint: {verdict.hint}")
    check.result = {"ok": "pass", "fail": "fail", "not_a_pi": "skip"}[verdict.result]
    return check


def check_pins_low_after_stop(s: Session, launcher: Launcher[Any]) -> Check:
    check = Check("pins_low_after_stop", "motor inputs low after a stop")
    driver = getattr(launcher, "driver", None)
    if driver is not None:
        check.details["motor_value_when_opened"] = driver.motor.value
    if driver is None:
        launcher.hit()
    else:
        s.say("The motor runs for 0.3 s now (keep fingers off the roller).")
        result = driver.run_for(300.0)
        check.details.update(motor_ms=result.motor_ms, counted=result.counted)
        check.details["motor_value"] = driver.motor.value
        if driver.motor.value != 0:
            check.result = "fail"
            return check
    check.result = s.confirm(f"Measure again{_motor_pins(launcher)}: both below 0.4 V?")
    return check


def check_pins_low_after_kill(s: Session) -> Check:
    """kill -9 runs no cleanup: only the wiring (pull-downs) and the kernel can stop the motor."""
    check = Check("pins_low_after_kill", "motor stops and inputs low after kill -9")
    if "mock=1" in s.spec or not s.spec.startswith("gpio://"):
        check.details["reason"] = "needs real GPIO pins (a Pico stops on its own watchdog)"
        return check
    if (
        s.ask("A second process will start the motor and be killed with SIGKILL. Enter to go.")
        is None
    ):
        return check
    command = [sys.executable, "-c", "from game.cli import main; raise SystemExit(main())"]
    child = subprocess.Popen(
        [
            *command,
            "launcher",
            "test",
            "--launcher",
            s.spec,
            "--spin-ms",
            "8000",
            "--no-button",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # its first line must reach us at once
    )
    assert child.stdout is not None
    started = child.stdout.readline()  # "beam before spin: ..." comes just before the motor
    time.sleep(0.5)  # sleep-ok: let the motor get going, in real time, on real hardware
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    check.details.update(child_said=started.strip(), returncode=child.returncode)
    check.result = s.confirm(f"Is the motor stopped, and IN1/IN2{_motor_pins(None)} below 0.4 V?")
    return check


def check_beam_one_card(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    check = Check("beam_one_card", "the beam sees one real card and sees it leave")
    driver = getattr(launcher, "driver", None)
    if driver is None or driver.beam is None:
        check.details["reason"] = "no beam on this launcher"
        return check
    rig = bench.rig
    if not bench.do("Hold ONE card in the beam", rig and (lambda: rig.hold_card(True))):
        return check
    blocked = _settled_beam(driver)
    if not bench.do("Take the card out of the beam", rig and (lambda: rig.hold_card(False))):
        return check
    cleared = not _settled_beam(driver)
    check.details.update(blocked_with_card=blocked, clear_without=cleared)
    if not blocked:
        check.details["hint"] = (
            "wrong beam_active, IR emitter unpowered, or wiring (docs/hardware.md)"
        )
    check.result = "pass" if blocked and cleared else "fail"
    return check


def check_ten_presses(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    from game.cli.launcher_serve import ButtonPresses

    check = Check("button_ten_presses", "10 single button presses give 10 presses")
    driver = getattr(launcher, "driver", None)
    if driver is None or driver.button is None:
        check.details["reason"] = "no button on this launcher"
        return check
    rig = bench.rig
    source = ButtonPresses(driver)
    source.settled()

    def press_ten() -> None:
        assert rig is not None
        start = driver.clock.now() + 1.0
        for n in range(10):
            rig.press_button(at=start + 1.0 * n, hold_s=0.12)

    if not bench.do("Press the button 10 times, about once a second, then wait", rig and press_ten):
        return check
    presses = 0
    while source.next(BUTTON_IDLE_S, faulted=False) == "press":
        presses += 1
    check.details["presses"] = presses
    check.result = "pass" if presses == 10 else "fail"
    return check


def check_hold_to_clear(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    from game.cli.launcher_serve import ButtonPresses, serve

    check = Check(
        "hold_to_clear_no_fire", "hold-to-clear clears a fault and its release never fires"
    )
    driver = getattr(launcher, "driver", None)
    if driver is None or driver.button is None:
        check.details["reason"] = "no button on this launcher"
        return check
    driver.latch_fault("acceptance")
    hold_s = driver.pinmap.hold_clear_ms / 1000.0 + 1.0
    rig = bench.rig
    source = ButtonPresses(driver)
    source.settled()
    action = rig and (lambda: rig.press_button(at=driver.clock.now() + 1.0, hold_s=hold_s))
    if not bench.do(
        f"A test fault is latched. Hold the button for {hold_s:.0f} s, release it, then wait",
        action,
    ):
        driver.clear_fault()
        return check
    log = io.StringIO()
    stats = serve(launcher, source, None, out=log, idle_s=BUTTON_IDLE_S)
    check.details.update(clears=stats.clears, fired=stats.presses, log=log.getvalue().splitlines())
    check.result = "pass" if stats.clears == 1 and stats.presses == 0 else "fail"
    driver.clear_fault()
    return check


def check_empty_hopper(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    check = Check("empty_hopper_counts_0", "an empty hopper counts 0 and raises a jam")
    driver = getattr(launcher, "driver", None)
    if driver is None or driver.beam is None:
        check.details["reason"] = "needs the GPIO beam (a Pico: run it on the Pico's own jam test)"
        return check
    rig = bench.rig
    if not bench.do("Take every card out of the hopper", rig and (lambda: rig.mechanism.unload())):
        return check
    try:
        result = driver.feed(1)
        check.details.update(counted=result.counted, stopped=result.stopped)
        check.result = "fail"
    except LauncherFault as fault:
        check.details.update(counted=getattr(fault, "counted", None), fault=fault.fault)
        check.result = "pass" if fault.fault == "jam" and fault.counted == 0 else "fail"
    driver.clear_fault()
    return check


def check_hand_count(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    check = Check("count_vs_hand", "the beam's count matches a hand count of 3 volleys")
    rig = bench.rig
    if not bench.do("Load at least 12 cards in the hopper", rig and (lambda: rig.load(20))):
        return check
    counted = 0
    try:
        for _ in range(3):
            counted += _shoot(launcher, 3)
    except LauncherError as error:
        check.details["error"] = str(error)
        check.result = "fail"
        return check
    check.details["counted"] = counted
    by_hand = s.number("Count the cards that came out: how many?")
    if by_hand is None:
        return check
    check.details["by_hand"] = by_hand
    check.result = "pass" if by_hand == counted else "fail"
    return check


def check_jam(s: Session, launcher: Launcher[Any], bench: Bench) -> Check:
    check = Check("jam_detection", "a card stuck in the mouth stops the motor with a jam")
    driver = getattr(launcher, "driver", None)
    if driver is None or driver.beam is None:
        check.details["reason"] = "needs the GPIO beam"
        return check
    rig = bench.rig
    if not bench.do(
        "Wedge a card in the mouth so that it blocks the beam",
        rig and (lambda: rig.hold_card(True)),
    ):
        return check
    try:
        driver.feed(2)
        check.result = "fail"
    except LauncherFault as fault:
        check.details.update(fault=fault.fault, motor_ms=fault.motor_ms)
        check.result = (
            "pass" if fault.fault == "beam_blocked" and not driver.motor_running else "fail"
        )
    bench.do("Take the wedged card out", rig and (lambda: rig.hold_card(False)))
    driver.clear_fault()
    return check


def check_pico_boot(s: Session, launcher: Launcher[Any]) -> Check:
    check = Check("pico_boot", "the Pico reports a BOOT with no fault")
    client = getattr(launcher, "client", None)
    if client is None:
        check.details["reason"] = "not a Pico launcher"
        return check
    hello = client.hello or client.connect()
    check.details.update(asdict(hello))
    check.result = "pass" if hello.fault == "none" else "fail"
    if hello.fault != "none":
        check.details["hint"] = "run `uno-attack launcher clear`, reinstall, then run this again"
    return check


def _settled_beam(driver: Any) -> bool:
    """The beam's state once a change just made has had time to pass the glitch filter."""
    import threading

    driver.clock.wait(threading.Event(), 0.05)
    return bool(driver.beam_blocked)


def _shoot(launcher: Launcher[Any], n: int) -> int:
    driver = getattr(launcher, "driver", None)
    if driver is not None:
        return int(driver.feed(n).counted)
    if not launcher.remaining:
        launcher.load(range(20))
    return int(launcher.hit().counted)


def _motor_pins(launcher: Launcher[Any] | None) -> str:
    driver = getattr(launcher, "driver", None) if launcher is not None else None
    return f" (GPIO {driver.pinmap.motor[0]} and {driver.pinmap.motor[1]})" if driver else ""


# -- the walk --------------------------------------------------------------------------------
def run(s: Session) -> int:
    s.say(f"uno-attack acceptance test of {s.spec}; report: {s.report}")
    s.say("Answer y/n, s to skip a check, a number when asked; Ctrl-C stops (the report stays).")
    s.record(check_pins_low_at_boot(s))
    s.record(check_kernel_releases_outputs(s))
    try:
        opened = s.open()
    except UnoAttackError as error:  # the most useful report of all: why the pins did not open
        s.environment = {"python": sys.version.split()[0], "platform": platform.platform()}
        details = {"error": str(error), "hint": error.hint}
        s.record(Check("open_launcher", f"open {s.spec}", "fail", details))
        s.say(f"cannot open the launcher: {error}\n  hint: {error.hint}")
        s.say(f"report written to {s.report}: attach it to your bug report")
        return EXIT_FAILED
    with opened as launcher:
        s.environment = environment(launcher)
        s.write()
        bench = Bench(s, launcher)
        steps: list[Callable[[], Check]] = [
            lambda: check_pico_boot(s, launcher),
            lambda: check_pins_low_after_stop(s, launcher),
            lambda: check_beam_one_card(s, launcher, bench),
            lambda: check_ten_presses(s, launcher, bench),
            lambda: check_hold_to_clear(s, launcher, bench),
            lambda: check_empty_hopper(s, launcher, bench),
            lambda: check_hand_count(s, launcher, bench),
            lambda: check_jam(s, launcher, bench),
        ]
        for step in steps:
            s.record(_guarded(step))
    s.record(check_pins_low_after_kill(s))  # the pins must be free for the second process
    summary = {kind: sum(c.result == kind for c in s.checks) for kind in ("pass", "fail", "skip")}
    s.say(f"done: {summary['pass']} passed, {summary['fail']} failed, {summary['skip']} skipped")
    s.say(f"report written to {s.report}: attach it to your bug report")
    return EXIT_FAILED if summary["fail"] else EXIT_OK


def _guarded(step: Callable[[], Check]) -> Check:
    """A check that raises is a failed check with the error in the report, not a traceback."""
    try:
        return step()
    except UnoAttackError as error:
        return Check("error", f"{type(error).__name__}: {error}", "fail", {"hint": error.hint})


def register(commands: Any) -> None:
    """Add ``acceptance`` to the ``launcher`` sub-commands."""
    help_text = "the 15-minute acceptance test of a real build, with a report file"
    parser = commands.add_parser("acceptance", help=help_text, description=help_text)
    parser.add_argument(
        "--launcher", metavar="SPEC", help="launcher spec (default: $UNO_ATTACK_LAUNCHER or sim://)"
    )
    parser.add_argument("--seed", type=int, help="seed for the launcher's profile")
    parser.add_argument(
        "--report",
        metavar="FILE",
        default=DEFAULT_REPORT,
        help=f"where to write the results (JSON, default {DEFAULT_REPORT})",
    )
    add_force_argument(parser)
    parser.set_defaults(func=_acceptance)


def _acceptance(args: argparse.Namespace) -> int:
    check_output(args.report, what="--report", force=args.force)
    session = Session(
        resolve_spec(args.launcher), args.seed, sys.stdin, sys.stdout, Path(args.report)
    )
    return run(session)
