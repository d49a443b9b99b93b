"""``uno-attack launcher …``: bring-up and table mode for any launcher backend.

* ``serve``  the launcher of a physical game: fire on each button press, log, survive jams;
* ``fire``   press a few times and print what came out;
* ``test``   bring-up checks: motor spin, beam, button (GPIO); one press elsewhere;
* ``status`` what the launcher is and can do, its latched fault, the device's own report
  (for a gpio:// launcher served by ``serve``: that server's fault, read from its state file);
* ``doctor`` is this Pi set up so that a dead process cannot leave the motor running;
* ``off``    drive the motor pins low and release them (the service's ``ExecStopPost=``);
* ``list``   every launcher scheme this install knows, built-in or from other distributions;
* ``clear``  clear a latched fault (in a running ``serve`` via its pid file, or on the launcher);
* ``ports``  list serial ports (for ``serial://`` launchers).

Every sub-command takes ``--launcher SPEC`` (``sim://``, ``gpio://…``, ``serial://…``,
``emu://…``; default ``$UNO_ATTACK_LAUNCHER`` or ``sim://``). ``fire``, ``test`` and
``status`` take ``--json`` for scripts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from game.cli.launcher_serve import (
    EMPTY_NOTE,
    ServeStats,
    StateFile,
    motor_settings,
    simulated_and_empty,
    state_file_for,
)
from game.cli.pidlock import PidLock, default_pid_file, holder_pid, signal_server
from hardware import safety
from hardware.errors import ConfigError, LauncherError
from hardware.files import PathError
from hardware.sd_notify import Notifier
from launcher.base import Capability, Launcher
from launcher.gpio import GpioLauncher
from launcher.spec import open_launcher, parse_spec, resolve_spec

EXIT_OK, EXIT_CHECK_FAILED = 0, 1
#: Cards a simulated hopper (sim://, gpio://?mock=1) gets when --cards is not given: an
#: empty simulated hopper would answer 0 to every press.
DEFAULT_SIMULATED_LOAD = 90
MAX_FIRE = 10_000
#: Most cards loaded at once (docs/errors.md, "Limits"); a real hopper holds about 100.
MAX_CARDS = 10_000
CARDS_HELP = (
    f"load this many cards first (default: {DEFAULT_SIMULATED_LOAD} into an empty simulated "
    "hopper; a real hopper is left as it is; 0 loads nothing)"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("launcher", help="bring up, test and serve a launcher")
    commands = parser.add_subparsers(dest="launcher_command", metavar="SUBCOMMAND", required=True)
    _add(commands, "serve", "fire on every button press (table mode), logging each press", _serve)
    _add(commands, "fire", "press the launcher and print what came out", _fire)
    _add(commands, "test", "bring-up checks: motor spin, beam and button", _test)
    _add(
        commands, "status", "what the launcher is, can do, and whether a fault is latched", _status
    )
    _add(commands, "clear", "clear a latched fault", _clear)
    _add(commands, "doctor", "is this Pi set up to stop the motor when the software dies", _doctor)
    _add(commands, "off", "drive the motor pins low and release them (after a crash)", _off)
    _add(commands, "ports", "list serial ports", _ports)
    _add(commands, "list", "every launcher scheme: built-in, or added by another package", _list)
    from game.cli import acceptance

    acceptance.register(commands)


def _add(commands: Any, name: str, help_text: str, func: Any) -> None:
    parser = commands.add_parser(name, help=help_text, description=help_text)
    parser.add_argument(
        "--launcher", metavar="SPEC", help="launcher spec (default: $UNO_ATTACK_LAUNCHER or sim://)"
    )
    parser.add_argument(
        "--seed", type=int, help="seed for the launcher's profile when the spec has none"
    )
    _OPTIONS[name](parser)
    parser.set_defaults(func=func)


def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log", metavar="FILE", help="append presses to this session file (JSON Lines)"
    )
    parser.add_argument("--cards", type=int, help=CARDS_HELP)
    parser.add_argument(
        "--pid-file",
        metavar="FILE",
        help="the locked pid file `launcher clear --pid-file` finds this server by "
        "(default: $XDG_RUNTIME_DIR/uno-attack/serve.pid)",
    )
    parser.add_argument("--max-presses", type=int, help="stop after this many presses")
    parser.add_argument(
        "--idle", type=float, metavar="SECONDS", help="stop after this long without a press"
    )


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _fire_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--presses", type=int, default=1, help=f"how many presses (default 1, at most {MAX_FIRE})"
    )
    parser.add_argument("--cards", type=int, help=CARDS_HELP)
    _json_option(parser)


def _test_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--spin-ms", type=float, default=500.0, help="how long to spin the motor (default 500)"
    )
    parser.add_argument(
        "--button-timeout", type=float, default=10.0, help="seconds to wait for a button press"
    )
    parser.add_argument(
        "--no-button",
        action="store_true",
        help="do not wait for a button press (the report lists the button as not checked)",
    )
    parser.add_argument(
        "--cards",
        type=int,
        help="cards in the hopper: with some loaded, a motor spin (gpio) or pulse (a Pico) that "
        "moves none past the beam fails the test",
    )
    _json_option(parser)


def _clear_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pid-file",
        metavar="FILE",
        nargs="?",
        const="",
        help="clear the fault of the `serve` holding this pid file (no FILE: serve's default, "
        "$XDG_RUNTIME_DIR/uno-attack/serve.pid); only that server is ever signalled",
    )


def _pid_file_option(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--pid-file",
        metavar="FILE",
        help=f"{verb} the `serve` holding this pid file (default: serve's default, "
        "$XDG_RUNTIME_DIR/uno-attack/serve.pid; the service's is /run/uno-attack/serve.pid)",
    )


def _status_options(parser: argparse.ArgumentParser) -> None:
    _json_option(parser)
    _pid_file_option(parser, "read the state of")


def _doctor_options(parser: argparse.ArgumentParser) -> None:
    _json_option(parser)
    parser.add_argument(
        "--sys-root",
        metavar="DIR",
        default="/",
        help="read /sys and /proc under this folder instead of / (to check a copied image)",
    )


_OPTIONS = {
    "serve": _serve_options,
    "fire": _fire_options,
    "test": _test_options,
    "clear": _clear_options,
    "ports": lambda parser: None,
    "status": _status_options,
    "doctor": _doctor_options,
    "off": lambda parser: None,
    "list": _json_option,
}


def _open(args: argparse.Namespace) -> Launcher[Any]:
    return open_launcher(args.launcher, default_seed=args.seed)


# -- serve ----------------------------------------------------------------------------
def _serve(
    args: argparse.Namespace, *, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    from game.cli.launcher_serve import serve

    if args.pid_file:
        PidLock.check_path(Path(args.pid_file))

    out = out or sys.stdout
    safety.install_sigterm_handler()
    safety.install_thread_death_hook()
    with ExitStack() as stack:
        launcher = stack.enter_context(_open(args))
        _follow_real_time(launcher)
        _load(launcher, args.cards, out)
        writer = stack.enter_context(_session_writer(args, launcher)) if args.log else None
        pid_file = _write_pid_file(Path(args.pid_file) if args.pid_file else None, stack, out)
        state = StateFile(state_file_for(pid_file), launcher) if pid_file is not None else None
        if state is not None:
            state.write(ServeStats())  # there before "serving" is said
            stack.callback(state.remove)
        source, how = _press_source(launcher, stdin or sys.stdin)
        print(f"serving {launcher!r}: {how}", file=out, flush=True)
        stats = serve(
            launcher,
            source,
            writer,
            out=out,
            max_presses=args.max_presses,
            idle_s=args.idle,
            notifier=Notifier(),
            state=state,
        )
    print(
        f"stopped: {stats.presses} presses, {stats.cards} cards, {stats.faults} faults, motor off",
        file=out,
    )
    return EXIT_OK


def _follow_real_time(launcher: Launcher[Any]) -> None:
    """A mock rig served interactively runs its virtual clock at the pace of real time."""
    if isinstance(launcher, GpioLauncher) and launcher.rig is not None:
        launcher.rig.clock.pace = 1.0


def _press_source(launcher: Launcher[Any], stdin: TextIO) -> tuple[Any, str]:
    """The GPIO button when there is one, else lines on stdin; SIGUSR1 clears with either."""
    from game.cli.launcher_serve import ButtonPresses, LinePresses, PressSource

    driver = launcher.driver if isinstance(launcher, GpioLauncher) else None
    source: PressSource
    if driver is not None and driver.button is not None:
        source, how = ButtonPresses(driver), "press the button to fire; hold it to clear a jam"
    else:
        source, how = LinePresses(stdin), "Enter fires, 'clear' clears a fault, 'quit' stops"
    _on_sigusr1(lambda: source.request("clear"))
    return source, how


def _session_writer(args: argparse.Namespace, launcher: Launcher[Any]) -> Any:
    from launcher.calibration.session import SessionHeader, SessionWriter, read_session

    path = Path(args.log)
    if path.exists() and not path.is_file():
        raise PathError(f"--log {path} is not a regular file", hint="give a session file name")
    if path.exists() and path.stat().st_size:
        return SessionWriter.resume(read_session(path))
    if path.exists():
        path.unlink()  # an empty regular file: start the session in it
    header = SessionHeader(
        launcher=resolve_spec(args.launcher),
        cards_loaded=launcher.remaining,
        reload_below=0,
        presses_planned=args.max_presses or 0,
        notes="uno-attack launcher serve",
        seed=args.seed,
    )
    return SessionWriter.create(path, header)


def _on_sigusr1(callback: Any) -> None:
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, lambda signum, frame: callback())


def _write_pid_file(path: Path | None, stack: ExitStack, out: TextIO) -> Path | None:
    """The locked pid file (``game.cli.pidlock``): held while serving, removed at the end.

    A second server on the same machine without ``--pid-file`` runs without one (and says
    so) rather than fail: the default file already belongs to the first.
    """
    try:
        lock = PidLock(path or default_pid_file())
    except LauncherError as error:
        if path is not None:
            raise
        print(f"note: no pid file for this server ({error}); use --pid-file", file=out)
        return None
    stack.callback(lock.release)
    return lock.path


# -- fire -----------------------------------------------------------------------------
def _fire(args: argparse.Namespace) -> int:
    if not 1 <= args.presses <= MAX_FIRE:
        raise ConfigError(f"--presses {args.presses}: expected 1 to {MAX_FIRE}")
    presses = []
    with _open(args) as launcher:
        _load(launcher, args.cards, sys.stderr if args.json else sys.stdout)  # JSON alone on stdout
        for n in range(1, args.presses + 1):
            empty = simulated_and_empty(launcher)
            volley = launcher.hit()
            presses.append({"n": n, "counted": volley.counted, "meta": dict(volley.meta)})
            if not args.json:
                print(
                    f"press {n}: {volley.counted} card(s){_describe_meta(volley.meta)}"
                    f"{EMPTY_NOTE if empty and not volley.counted else ''}"
                )
        if args.json:
            _print_json(
                {
                    "launcher": repr(launcher),
                    "backend": launcher.backend,
                    "presses": presses,
                    "remaining": launcher.remaining,
                }
            )
        else:
            print(f"{launcher!r}")
    return EXIT_OK


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))


def _load(launcher: Launcher[Any], cards: int | None, out: TextIO) -> None:
    """``--cards``: load that many; by default fill an empty simulated hopper, and say so."""
    if cards is not None and not 0 <= cards <= MAX_CARDS:
        raise ConfigError(f"--cards {cards}: expected a whole number from 0 to {MAX_CARDS:,}")
    if cards is None and simulated_and_empty(launcher):
        cards = DEFAULT_SIMULATED_LOAD
        print(f"loaded {cards} cards into the simulated hopper (--cards N to choose)", file=out)
    if cards:
        launcher.load(range(cards))


def _describe_meta(meta: dict[str, Any]) -> str:
    parts = [f"{key}={meta[key]}" for key in ("requested", "motor_ms", "stopped") if key in meta]
    return f" ({', '.join(parts)})" if parts else ""


# -- test -----------------------------------------------------------------------------
def _test(args: argparse.Namespace) -> int:
    """Bring-up checks; ``--json`` prints ``{"ok": …, "checks": …, "unchecked": …, "output": …}``.

    ``unchecked`` lists what could not be checked and why (no cards loaded, no button
    press asked for): a pass says what it passed on.
    """
    lines: list[str] = []
    unchecked: list[str] = []
    emit = lines.append if args.json else print
    with _open(args) as launcher:
        driver = launcher.driver if isinstance(launcher, GpioLauncher) else None
        if driver is None and launcher.supports(Capability.SELF_TEST):
            checks = _device_self_test(launcher, args, emit)
        elif driver is None:
            checks = _test_other_backend(launcher, args, emit)
        else:
            _load_for_test(launcher, args.cards)
            checks = {"motor": _check_motor(launcher, driver, args.spin_ms, emit, unchecked)}
            if args.no_button:
                emit("button: not checked (--no-button)")
                unchecked.append("button (--no-button)")
            else:
                checks["button"] = _check_button(launcher, driver, args.button_timeout, emit)
        if args.json:
            _print_json(
                {
                    "launcher": repr(launcher),
                    "backend": launcher.backend,
                    "ok": all(checks.values()),
                    "checks": checks,
                    "unchecked": unchecked,
                    "output": lines,
                }
            )
        elif unchecked:
            print(f"not checked: {'; '.join(unchecked)}")
    return EXIT_OK if all(checks.values()) else EXIT_CHECK_FAILED


def _test_other_backend(launcher: Launcher[Any], args: argparse.Namespace, emit: Any) -> Any:
    """sim:// and other backends without a self-test: one press (nothing else to check)."""
    volley = launcher.hit()
    emit(
        f"press: {volley.counted} card(s) -- ok "
        f"({launcher.backend} has no motor, beam or button to check)"
    )
    return {"press": True}


def _load_for_test(launcher: Launcher[Any], cards: int | None) -> None:
    """``--cards N``: the hopper holds N cards (the model, and a mock rig's mechanism)."""
    if cards is None:
        return
    if not 0 <= cards <= MAX_CARDS:
        raise ConfigError(f"--cards {cards}: expected a whole number from 0 to {MAX_CARDS:,}")
    launcher.unload()
    if cards:
        launcher.load(range(cards))


def _cards_in_hopper(launcher: Any) -> int:
    """What the hopper holds as far as we know: the mock rig's mechanism, else the model."""
    rig = getattr(launcher, "rig", None)
    return int(rig.mechanism.hopper) if rig is not None else int(launcher.remaining)


def _device_self_test(
    launcher: Launcher[Any], args: argparse.Namespace, emit: Any
) -> dict[str, bool]:
    """A Pico (real or emulated): its pins, the beam at rest, a motor pulse with the beam."""
    if args.cards:
        _load(launcher, args.cards, sys.stderr if args.json else sys.stdout)
    result = launcher.self_test(pulse_ms=args.spin_ms)
    for check in result.checks:
        emit(check.line())
    return {check.name: check.ok is not False for check in result.checks}


def _check_motor(
    launcher: Any, driver: Any, spin_ms: float, emit: Any = print, unchecked: Any = None
) -> bool:
    emit(f"beam before spin: {_beam_state(driver)}")
    loaded = _cards_in_hopper(launcher)
    try:
        result = driver.run_for(spin_ms)
    except LauncherError as error:
        emit(f"motor: FAILED -- {error}")
        return False
    if driver.beam is not None and loaded and not result.counted:
        emit(
            f"motor: ran {result.motor_ms:.0f} ms with {loaded} card(s) loaded and the beam "
            "counted none -- FAILED (motor not turning, roller not touching the cards, or the "
            "beam not seeing them: check the motor supply and wiring, then beam_active)"
        )
        return False
    emit(f"motor: ran {result.motor_ms:.0f} ms, beam counted {result.counted} card(s) -- ok")
    if driver.beam is not None and not loaded and unchecked is not None:
        unchecked.append("that the motor feeds cards (none loaded: give --cards N after loading)")
    if driver.passages_ms:
        shown = ", ".join(f"{ms:.0f}" for ms in list(driver.passages_ms)[-10:])
        emit(f"beam: each card blocked it for {shown} ms (set double_ms above the longest single)")
    if driver.beam is not None and not driver.wait_beam_clear(driver.pinmap.blocked_ms / 1000.0):
        emit("beam: still blocked after the spin -- FAILED (card stuck, or wrong beam_active?)")
        return False
    return True


def _beam_state(driver: Any) -> str:
    if driver.beam is None:
        return "no beam sensor configured (open loop)"
    return "blocked" if driver.beam_blocked else "clear"


#: When the mock rig presses the button for `launcher test` (s after the prompt).
MOCK_PRESS_AFTER_S = 0.5


def _check_button(launcher: Any, driver: Any, timeout: float, emit: Any = print) -> bool:
    if driver.button is None:
        emit("button: none configured -- skipped")
        return True
    # the prompt goes to a person even when the report is JSON
    print(
        f"button: press it now (within {timeout:g} s; --no-button skips this) ...",
        file=sys.stdout if emit is print else sys.stderr,
    )
    driver.drop_button_events()
    driver.button_changed.clear()
    rig = getattr(launcher, "rig", None)
    if rig is not None:  # the mock rig is the person at the bench
        rig.press_button(at=driver.clock.now() + min(MOCK_PRESS_AFTER_S, timeout / 2))
    pressed = _wait_for_press(driver, timeout)
    by = " (the mock rig pressed it)" if rig is not None and pressed else ""
    emit(
        f"button: pressed -- ok{by}"
        if pressed
        else "button: not pressed -- FAILED (check wiring / pin, or use --no-button)"
    )
    return pressed


def _wait_for_press(driver: Any, timeout: float) -> bool:
    """A debounced press within ``timeout`` (on the driver's clock)."""
    deadline = driver.clock.now() + timeout
    while True:
        driver.poll_inputs()
        if any(kind == "press" for kind, _ in driver.button_events):
            return True
        remaining = deadline - driver.clock.now()
        if remaining <= 0:
            return False
        driver.button_changed.clear()
        due = driver.inputs_due()
        wait = remaining if due is None else max(0.0, min(remaining, due - driver.clock.now()))
        driver.clock.wait(driver.button_changed, wait)


# -- status ---------------------------------------------------------------------------
def _status(args: argparse.Namespace) -> int:
    """Exit 0 when no fault is latched, 1 when one is (scripts can test it).

    A gpio:// fault lives in the process driving the pins: when a ``serve`` holds the pid
    file, its state file is the report (opening the pins again would show a fresh launcher
    with "none latched"); otherwise the pins are opened here.
    """
    spec = resolve_spec(args.launcher)
    report = _served_status(spec, args.pid_file)
    if report is None:
        with _open(args) as launcher:
            report = status_report(launcher)
    report["spec"] = spec
    if args.json:
        _print_json(report)
    else:
        _print_status(report)
    return EXIT_CHECK_FAILED if report["fault"] else EXIT_OK


def _print_status(report: dict[str, Any]) -> None:
    print(f"launcher: {report['launcher']}")
    print(f"backend: {report['backend']} ({report['spec']})")
    if report.get("served_by"):
        print(f"served by: pid {report['served_by']} (state {report['state_file']})")
    else:
        print(f"capabilities: {', '.join(report['capabilities']) or 'none'}")
        print(f"cards in the hopper model: {report['remaining']}")
    print(f"fault: {report['fault'] or 'none latched'}")
    if report.get("fault_message"):
        print(f"  {report['fault_message']}")
    settings = report.get("settings")
    if settings:
        print("motor settings: " + " ".join(f"{key}={value}" for key, value in settings.items()))
    device = report["device"]
    if device is not None:
        print("device: " + " ".join(f"{key}={value}" for key, value in device.items()))


def _served_status(spec: str, pid_file: str | None) -> dict[str, Any] | None:
    """The state of the live ``serve`` of a gpio:// launcher, or None (open the pins).

    Looked for at ``--pid-file`` when given, else at serve's default pid file for a real
    (not mock) gpio:// spec.
    """
    if parse_spec(spec).scheme != "gpio" or (not pid_file and "mock=1" in spec):
        return None
    pid_path = Path(pid_file) if pid_file else default_pid_file()
    pid = holder_pid(pid_path)
    if pid is None:
        if pid_file:
            raise LauncherError(
                f"{pid_path}: no `launcher serve` holds this pid file",
                hint="start the server (or the service) first, or leave out --pid-file",
            )
        return None
    path = state_file_for(pid_path)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise LauncherError(
            f"{path}: the state of the server (pid {pid}) cannot be read ({error})",
            hint="run `launcher status` as the service's user or with sudo",
        ) from None
    return {
        "launcher": state.get("launcher"),
        "backend": state.get("backend"),
        "served_by": pid,
        "state_file": str(path),
        "fault": state.get("fault"),
        "fault_message": state.get("fault_message"),
        "settings": state.get("settings") or {},
        "stats": state.get("stats") or {},
        "updated": state.get("updated"),
        "device": None,
    }


def status_report(launcher: Launcher[Any]) -> dict[str, Any]:
    """What ``launcher status`` shows: backend, capabilities, latched fault, device report."""
    device: dict[str, Any] | None = None
    fault = launcher.fault.fault if launcher.fault is not None else ""
    if launcher.supports(Capability.STATUS):
        reply = launcher.status()
        is_record = dataclasses.is_dataclass(reply) and not isinstance(reply, type)
        device = dataclasses.asdict(reply) if is_record else dict(reply)
        if device.get("state") == "fault":  # the firmware says fault=none when none is latched
            fault = fault or str(device.get("fault") or "fault")
    return {
        "launcher": repr(launcher),
        "backend": launcher.backend,
        "capabilities": sorted(c.value for c in launcher.capabilities),
        "remaining": launcher.remaining,
        "fault": fault or None,
        "fault_message": str(launcher.fault) if launcher.fault is not None else None,
        "settings": motor_settings(launcher),
        "device": device,
    }


# -- doctor and off ---------------------------------------------------------------------
def _doctor(args: argparse.Namespace) -> int:
    """Exit 1 when this Pi would leave a motor running after the launcher's process dies."""
    from hardware.kernel_gpio import check_output_release
    from hardware.pin_factory import LGPIO_HINT, lgpio_problem

    release = check_output_release(Path(args.sys_root))
    missing = lgpio_problem() if release.result != "not_a_pi" else None
    checks = {
        "released_outputs": dataclasses.asdict(release),
        "lgpio": {"ok": missing is None, "problem": missing},
    }
    ok = release.ok and missing is None
    if args.json:
        _print_json({"ok": ok, "checks": checks})
        return EXIT_OK if ok else EXIT_CHECK_FAILED
    verdict = {"ok": "ok", "fail": "FAILED", "not_a_pi": "not checked"}[release.result]
    print(f"kernel: {release.detail} -- {verdict}")
    if release.hint:
        print(f"  hint: {release.hint}")
    if release.result != "not_a_pi":
        print(f"lgpio: {'imports -- ok' if missing is None else f'{missing} -- FAILED'}")
        if missing is not None:
            print(f"  hint: {LGPIO_HINT}")
    return EXIT_OK if ok else EXIT_CHECK_FAILED


def _off(args: argparse.Namespace) -> int:
    """Open the pins (gpiozero drives every output low on opening), then release them."""
    spec = resolve_spec(args.launcher)
    if parse_spec(spec).scheme != "gpio":
        raise ConfigError(
            f"{spec}: `launcher off` drives GPIO pins; other launchers stop their own motor",
            hint="give the gpio:// spec of the service, e.g. gpio://?config=/etc/uno-attack/launcher.toml",
        )
    with _open(args) as launcher:
        assert isinstance(launcher, GpioLauncher)
        driver = launcher.driver
        driver.stop_motor()
        pins = ", ".join(str(pin) for pin in driver.pinmap.motor)
        running = driver.motor_running
    if running:
        raise LauncherError(f"the motor pins GPIO {pins} did not go low")
    enable = driver.pinmap.enable
    extra = f" and the enable line GPIO {enable}" if enable is not None else ""
    print(f"motor pins GPIO {pins}{extra} driven low, then released")
    return EXIT_OK


# -- clear ----------------------------------------------------------------------------
def _clear(args: argparse.Namespace) -> int:
    """Clear a latched fault where it lives: in a serving process, or on the device."""
    if args.pid_file is not None:
        return _signal_server(Path(args.pid_file) if args.pid_file else default_pid_file())
    spec = resolve_spec(args.launcher)
    if parse_spec(spec).scheme == "gpio":
        # A gpio:// fault lives in the process driving the pins; opening them again here
        # would only give a fresh launcher with nothing latched, and report a false "clear".
        raise LauncherError(
            f"{spec}: nothing cleared (and no pin opened): a gpio:// fault is latched inside "
            "the `uno-attack launcher serve` process that drives the pins",
            hint="run `uno-attack launcher clear --pid-file FILE` with serve's --pid-file, "
            "`sudo systemctl reload uno-attack-launcher` for the service, "
            "or hold the launcher's button for hold_clear_ms (3 s) once the card is out",
        )
    with _open(args) as launcher:
        return _clear_on_device(launcher)


def _clear_on_device(launcher: Launcher[Any]) -> int:
    """``serial://`` and ``emu://``: the fault is latched in the firmware; send CLEAR."""
    if not launcher.supports(Capability.CLEAR_FAULT):
        print(f"no fault latched: {launcher.backend}:// launchers never latch one (nothing sent)")
        return EXIT_OK
    fault = launcher.status().fault if launcher.supports(Capability.STATUS) else ""
    if launcher.clear_fault():
        print(f"sent CLEAR to {launcher!r}: fault {fault or 'latched'} cleared")
    else:
        print(f"sent CLEAR to {launcher!r}: no fault was latched")
    return EXIT_OK


def _signal_server(path: Path) -> int:
    pid = signal_server(path)  # only a serve that holds the file's lock, as this user
    print(f"asked the launcher server (pid {pid}) to clear its fault")
    return EXIT_OK


# -- ports ----------------------------------------------------------------------------
def _ports(args: argparse.Namespace) -> int:
    from serial.tools import list_ports

    ports = sorted(list_ports.comports(), key=lambda port: port.device)
    if not ports:
        print("no serial ports found (is the launcher plugged in?)")
    for port in ports:
        print(f"{port.device}\t{port.description}\t{port.hwid}")
    return EXIT_OK


# -- list -----------------------------------------------------------------------------
def _list(args: argparse.Namespace) -> int:
    """The schemes ``--launcher`` accepts and where each comes from."""
    from launcher.spec import registered_schemes

    infos = registered_schemes()
    if args.json:
        _print_json([dataclasses.asdict(info) for info in infos])
        return EXIT_OK
    for info in infos:
        print(f"{info.scheme + '://':12} {info.source:24} {info.target}")
    return EXIT_OK
