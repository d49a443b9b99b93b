"""``uno-attack emulate``: serve the emulated launcher (real firmware logic) on a pseudo-terminal.

Any serial tool then opens it like a Pico on USB::

    uno-attack emulate --link /tmp/launcher --fast --faults drop:0.02
    uno-attack play --launcher serial:///tmp/launcher          # in another terminal

Runs until Ctrl-C or SIGTERM, then stops the motor, removes the link and prints what
happened. ``--link`` is a symlink that follows the pty across replugs (like
``/dev/serial/by-id/...``). Details: ``docs/firmware.md``, "The emulator".
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from firmware_bridge import protocol
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FAULTS_FORM, FaultPlan
from hardware.errors import ConfigError
from hardware.files import PathError
from hardware.mechanism import OPTION_FIELDS, MechanismParams

EXAMPLE = "uno-attack emulate --link /tmp/launcher --fast --faults drop:0.02,reboot@30s"
#: Where pseudo-terminals live: a symlink pointing there is an earlier emulator's link.
PTY_PREFIX = "/dev/pts/"
FAST = {"cards_per_second": 400.0, "card_transit_ms": 1.0}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "emulate",
        help="serve an emulated Pico launcher on a pseudo-terminal",
        description=f"Serve the launcher firmware, emulated, on a pty. Example: {EXAMPLE}",
    )
    parser.add_argument(
        "--link", metavar="PATH", help="make PATH a symlink to the pty (kept across replugs)"
    )
    parser.add_argument(
        "--profile", metavar="NAME|FILE", help="standalone profile on the emulated flash"
    )
    parser.add_argument("--faults", default="", metavar="PLAN", help=f"fault plan: {FAULTS_FORM}")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for the mechanism, boot ids and faults"
    )
    parser.add_argument(
        "--cards", type=int, default=90, help="cards in the hopper at start (default 90)"
    )
    parser.add_argument("--fast", action="store_true", help="a 100x faster mechanism (400 cards/s)")
    parser.add_argument(
        "--mechanism",
        default="",
        metavar="K=V,...",
        help=f"mechanism parameters: {', '.join(OPTION_FIELDS)} (e.g. cps=8,slip=0.05)",
    )
    parser.set_defaults(func=run)


def mechanism_params(text: str, *, fast: bool) -> MechanismParams:
    """``cps=8,slip=0.05`` (over ``--fast``'s values) -> MechanismParams; ConfigError if bad."""
    values: dict[str, Any] = dict(FAST) if fast else {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        if not sep or key not in OPTION_FIELDS:
            known = ", ".join(OPTION_FIELDS)
            raise ConfigError(f"--mechanism {item!r}: expected KEY=NUMBER with KEY one of {known}")
        try:
            values[OPTION_FIELDS[key]] = float(raw)
        except ValueError:
            raise ConfigError(f"--mechanism {item!r}: {raw!r} is not a number") from None
    try:
        return MechanismParams(**values)
    except ConfigError as error:
        raise ConfigError(f"--mechanism {text!r}: {error}") from None


def profile_text(name: str | None) -> str | None:
    """The PROFILE field text the emulated flash holds for a named or file profile."""
    if not name:
        return None
    from launcher.profiles import load_profile
    from launcher.serial import profile_fields

    fields = profile_fields(load_profile(name))
    return " ".join(f"{key}={protocol.format_value(value)}" for key, value in fields)


def check_link(path: str) -> None:
    """``--link PATH`` may only be new, or a link an earlier emulator left (nothing else is lost).

    The link is replaced while the emulator runs and removed when it stops, so a file,
    a folder or a user's own symlink there would be destroyed: they are refused.
    """
    link = Path(path)
    if link.is_symlink():
        target = os.readlink(link)
        if target.startswith(PTY_PREFIX) or not link.exists():
            return  # a stale link from an emulator that did not stop cleanly
        raise PathError(
            f"--link {link} is a symlink to {target}, not to an emulator's pseudo-terminal",
            hint="emulate replaces --link and removes it on exit: choose another path",
        )
    if link.exists():
        kind = "a directory" if link.is_dir() else "an existing file"
        raise PathError(
            f"--link {link} is {kind}; emulate would replace it with a symlink and remove it",
            hint="give a new path, e.g. /tmp/launcher",
        )
    folder = link.parent
    if not folder.is_dir():
        raise PathError(f"--link {link}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PathError(f"--link {link}: the folder {folder} is not writable")


def build_emulator(args: argparse.Namespace) -> Emulator:
    if args.cards < 0:
        raise ConfigError(f"--cards must not be negative, not {args.cards}")
    if args.link is not None:
        check_link(args.link)
    return Emulator(
        seed=args.seed,
        profile=profile_text(args.profile),
        faults=FaultPlan.parse(args.faults, seed=args.seed),
        mechanism=mechanism_params(args.mechanism, fast=args.fast),
        cards=args.cards,
        link=args.link,
    )


def run(args: argparse.Namespace) -> int:
    emulator = build_emulator(args)
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        port = emulator.start()
        where = f"{port} (link {args.link})" if args.link else port
        print(
            f"emulating the launcher on {where}; boot id {emulator.boot_id}; Ctrl-C stops",
            flush=True,
        )
        stop.wait()
    finally:
        emulator.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(_summary(emulator), file=sys.stderr)
    return 0


def _summary(emulator: Emulator) -> str:
    jobs = emulator.jobs_executed
    spans = emulator.motor_on_spans()
    longest = max((off - on for on, off in spans), default=0)
    return (
        f"stopped: {len(jobs)} jobs, {emulator.cards_ejected} cards ejected, "
        f"{len(emulator.board.boots)} boots, longest motor run {longest} ms"
    )
