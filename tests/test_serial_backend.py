"""The ``serial://`` backend: spec options, errors a user meets, standalone profiles, real presses.

Presses go through a real ``serial.Serial`` to the firmware emulator's pseudo-terminal
(the emulator runs the firmware's own logic); ``open_launcher("serial://<pty>")`` is
exactly what a user runs against a Pico.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol
from firmware_bridge.errors import PortNotFound
from firmware_bridge.link import FrameLink, open_port
from hardware.errors import ConfigError, LauncherFault, LauncherJam
from launcher.errors import BadSpec
from launcher.profiles import IIDProfile, PatternProfile, load_profile
from launcher.serial import SerialLauncher, feed_settings, link_timing, per_mille, profile_fields
from launcher.spec import open_launcher, parse_spec


# -- spec options ------------------------------------------------------------------------
def test_spec_without_a_port_is_refused() -> None:
    with pytest.raises(BadSpec, match="no serial port given"):
        open_launcher("serial://")


def test_unknown_option_names_the_expected_form() -> None:
    with pytest.raises(BadSpec, match="unknown option.*speed") as caught:
        open_launcher("serial:///dev/ttyACM0?speed=9600")
    assert "baud=115200" in caught.value.hint


def test_bad_option_values_are_clear() -> None:
    with pytest.raises(BadSpec, match="duty=150 must be 0..100"):
        open_launcher("serial:///dev/ttyACM0?duty=150")
    with pytest.raises(BadSpec, match="baud='fast' is not a whole number"):
        open_launcher("serial:///dev/ttyACM0?baud=fast")


def test_feed_and_timing_options() -> None:
    options = parse_spec(
        "serial:///x?duty=70&jam_ms=900&ms_per_card=120&retry_ms=20&tries=5&timeout=1.5"
    ).options
    settings = feed_settings(options)
    timing = link_timing(options)
    assert (settings.duty, settings.jam_ms, settings.ms_per_card) == (70, 900, 120.0)
    assert settings.job_max_ms(4) == int(3 * 120 * 4 + 1000)
    assert timing.retry.timeouts == (0.02, 0.04, 0.08, 0.16, 0.32)
    assert timing.connect_timeout == 1.5


def test_missing_port_lists_existing_ports() -> None:
    with pytest.raises(
        PortNotFound, match=r"/dev/serial/by-id/usb-nothing does not exist \(ports present:"
    ):
        open_launcher("serial:///dev/serial/by-id/usb-nothing?timeout=0")


# -- standalone profiles -----------------------------------------------------------------
@given(st.lists(st.integers(0, 50), min_size=1, max_size=16).filter(lambda w: sum(w) > 0))
def test_per_mille_always_sums_to_1000(weights: list[int]) -> None:
    total = sum(weights)
    values = per_mille([w / total for w in weights])
    assert sum(values) == 1000
    assert all(abs(v - 1000 * w / total) < 1 for v, w in zip(values, weights, strict=False))


def test_iid_profile_fields_fit_a_frame() -> None:
    profile = load_profile("web-game")
    assert isinstance(profile, IIDProfile)
    fields = profile_fields(profile)
    assert fields[0] == ("kind", "iid")
    assert len(protocol.encode("C", 0, "PROFILE", fields)) <= protocol.MAX_FRAME


def test_pattern_profile_is_sent_as_a_mask() -> None:
    profile = load_profile("original-1999")
    assert isinstance(profile, PatternProfile)
    fields = dict(profile_fields(profile))
    assert fields["cycle"] == 96
    assert protocol.fires_from_mask(str(fields["fires"])) == list(profile.fires)
    p = fields["p"]
    assert isinstance(p, list) and sum(p) == 1000 and p[:3] == [0, 0, 0] and len(p) == 9


def test_profiles_the_firmware_cannot_hold_are_refused() -> None:
    with pytest.raises(ConfigError, match="stores iid and pattern profiles only"):
        profile_fields(load_profile("escalating"))
    wide = IIDProfile(name="wide", source="", description="", probabilities=tuple([1 / 20] * 20))
    with pytest.raises(ConfigError, match="at most 16"):
        profile_fields(wide)


# -- real presses through serial:// to the emulator ----------------------------------------
FAST_SPEC = "?retry_ms=30&tries=4&timeout=2&ms_per_card=20"


@pytest.fixture
def emulator() -> Iterator[object]:
    emulator_module = pytest.importorskip("firmware_bridge.emulator")
    emu = emulator_module.Emulator(seed=3, mechanism=fast_mechanism(), cards=0)
    emu.start()
    yield emu
    emu.stop()


def fast_mechanism() -> object:
    from hardware.mechanism import MechanismParams

    return MechanismParams(cards_per_second=400.0, card_transit_ms=1.0)


def test_presses_count_every_card(emulator: object) -> None:
    emu = emulator
    launcher = open_launcher(f"serial://{emu.port}{FAST_SPEC}&profile=irc-bot&seed=4")  # type: ignore[attr-defined]
    assert isinstance(launcher, SerialLauncher)
    with launcher:
        launcher.load(range(40))
        emu.load(40)  # type: ignore[attr-defined]
        volleys = [launcher.hit() for _ in range(6)]
    dealt = sum(v.counted for v in volleys)
    assert dealt > 0
    assert dealt == 40 - emu.mechanism.hopper  # type: ignore[attr-defined]  # cards that left it
    assert launcher.remaining == 40 - dealt
    assert all(v.meta["requested"] == v.counted for v in volleys)
    assert not any(v.identities_known for v in volleys)


def test_an_empty_hopper_is_reported_as_empty_not_as_a_stuck_card(emulator: object) -> None:
    """Issue 12: an empty hopper said "remove the stuck card"."""
    emu = emulator
    launcher = open_launcher(f"serial://{emu.port}{FAST_SPEC}&jam_ms=50&profile=irc-bot&seed=1")  # type: ignore[attr-defined]
    assert isinstance(launcher, SerialLauncher)
    with launcher:
        launcher.load(range(10))  # the hopper model says 10, the real hopper is empty
        with pytest.raises(LauncherFault, match="the hopper is empty") as caught:
            while True:
                launcher.hit()
        assert not isinstance(caught.value, LauncherJam)
        assert caught.value.fault == "empty" and "stuck" not in caught.value.hint
        assert caught.value.volley.counted == 0  # type: ignore[attr-defined]
        assert launcher.status().state == "idle"  # nothing latched: load cards, press again
        emu.load(10)  # type: ignore[attr-defined]
        assert launcher.hit().counted >= 0 and launcher.status().fault == "none"


def test_a_stuck_card_is_counted_once_for_the_press_that_fed_it(emulator: object) -> None:
    """Issue 17: the card pulled out after a beam_blocked jam went uncounted."""
    emu = emulator
    launcher = open_launcher(f"serial://{emu.port}{FAST_SPEC}&block_ms=20&profile=irc-bot&seed=1")  # type: ignore[attr-defined]
    assert isinstance(launcher, SerialLauncher)
    with launcher:
        launcher.load(range(10))
        emu.load(10)  # type: ignore[attr-defined]
        emu.jam()  # type: ignore[attr-defined]
        dealt = 0
        with pytest.raises(LauncherJam, match="launcher fault beam_blocked") as caught:
            while True:
                dealt += launcher.hit().counted
        dealt += caught.value.volley.counted  # type: ignore[attr-defined]
        with pytest.raises(LauncherFault, match="fault beam_blocked"):
            launcher.hit()  # latched until cleared
        emu.clear_jam()  # type: ignore[attr-defined]  # a person pulls the card out
        assert launcher.clear_fault() is True
        assert launcher.status().state == "idle"
        assert dealt == 10 - emu.mechanism.hopper == launcher.status().total  # type: ignore[attr-defined]
        assert launcher.remaining == 10 - dealt


def test_replug_through_a_stable_path_reconnects(tmp_path: Path) -> None:
    emulator_module = pytest.importorskip("firmware_bridge.emulator")
    link = tmp_path / "usb-uno-attack-if00"  # what /dev/serial/by-id/ gives a real board
    emulator = emulator_module.Emulator(seed=5, mechanism=fast_mechanism(), cards=0, link=str(link))
    with emulator as emu:
        emu.start()
        launcher = open_launcher(f"serial://{link}{FAST_SPEC}&profile=irc-bot&seed=2")
        assert isinstance(launcher, SerialLauncher)
        with launcher:
            launcher.load(range(30))
            emu.load(30)
            first = launcher.hit().counted
            emu.unplug()  # while idle: nothing is lost
            assert launcher.client.wait_for_disconnect(timeout=5)
            emu.replug()  # a new pty behind the same path
            second = launcher.hit().counted
            assert launcher.client.reconnects == 1 and launcher.client.restarts == 1
        assert first + second == 30 - emu.mechanism.hopper


def test_a_restart_while_idle_is_reported_once(emulator: object) -> None:
    emu = emulator
    launcher = open_launcher(f"serial://{emu.port}{FAST_SPEC}&profile=irc-bot&seed=2")  # type: ignore[attr-defined]
    assert isinstance(launcher, SerialLauncher)
    with launcher:
        launcher.load(range(30))
        emu.load(30)  # type: ignore[attr-defined]
        assert launcher.status().state == "idle"
        emu.reboot("wdt")  # type: ignore[attr-defined]
        with pytest.raises(LauncherFault, match=r"restarted .*reset cause wdt") as caught:
            launcher.status()
        assert caught.value.fault == "restart"
        status = launcher.status()  # reported once; the watchdog fault is latched at boot
        assert status.fault == "watchdog"


# -- issue 17: the exclusive open is enforced by the kernel, not only advisory ----------------
def _drop_to_nobody() -> None:  # pragma: no cover - runs in the child
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def _outsider_opens(path: str) -> str:
    """A program that knows nothing of our locks opens the port (os.open); its outcome.

    Root may open a TIOCEXCL tty anyway, so under root the outsider runs as ``nobody``
    (with the system Python, which that user can read).
    """
    code = (
        "import os, sys\n"
        "try:\n os.close(os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)); print('opened')\n"
        "except OSError as e:\n print('refused', e.errno)\n"
    )
    root = os.geteuid() == 0
    python = shutil.which("python3", path="/usr/bin:/bin") if root else sys.executable
    if python is None:
        pytest.skip("no system python3 to run the outsider as nobody")
    result = subprocess.run(
        [python, "-c", code, path],
        preexec_fn=_drop_to_nobody if root else None,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result.stdout.strip() or result.stderr.strip()


def test_a_program_that_ignores_our_lock_cannot_open_the_port_while_we_hold_it() -> None:
    master, slave = os.openpty()
    path = os.ttyname(slave)
    os.chmod(path, 0o666)  # so that the outsider is stopped by the lock, not by permissions
    try:
        assert _outsider_opens(path) == "opened"  # control: nothing holds the port
        port = open_port(path)
        assert _outsider_opens(path) == f"refused {errno.EBUSY}"
        if os.geteuid() != 0:  # pyserial without exclusive=True does not look at the flock
            with pytest.raises(serial.SerialException):
                serial.Serial(path)
        link = FrameLink(port, name=path)
        link.close()
        assert _outsider_opens(path) == "opened"  # released on close
    finally:
        os.close(master)
        os.close(slave)
