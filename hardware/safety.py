"""Last-resort motor stops: SIGTERM, SIGHUP, SIGINT and dying threads.

gpiozero closes its devices in an ``atexit`` hook, which does not run when a
process is killed by an unhandled SIGTERM (``systemctl stop``) or SIGHUP (the SSH
session of a `launcher fire` dropping), and a thread that dies with the motor on
leaves it on. Every motor driver registers here (:class:`~hardware.gpio_driver.GpioDriver`
does in its constructor, and installs the handlers when it is built on the main
thread, so every command that opens GPIO pins is covered by this one mechanism);

* :func:`install_stop_handlers` makes SIGTERM, SIGHUP and SIGINT stop every
  registered motor *inside the signal handler*, first thing, and then end the
  process the way that signal would: ``SystemExit(128 + n)`` for SIGTERM and SIGHUP
  (so ``finally`` blocks and context managers run too), the previous SIGINT handler
  (``KeyboardInterrupt``: Ctrl-C keeps what was done) for SIGINT; a handler someone
  else installed before (a web server's) is called after the motors are off;
* :func:`install_thread_death_hook` chains :data:`threading.excepthook`: when a
  thread dies of an uncaught exception, every motor that thread started is
  stopped and its driver latches a ``thread_died`` fault.
"""

from __future__ import annotations

import signal
import threading
import weakref
from types import FrameType
from typing import Any, Protocol

SIGTERM_EXIT = 128 + signal.SIGTERM
#: The signals that stop the motors, and the fault each one latches if a motor ran.
STOP_SIGNALS = {signal.SIGTERM: "sigterm", signal.SIGHUP: "sighup", signal.SIGINT: "sigint"}


class EmergencyStoppable(Protocol):
    def emergency_stop(self, reason: str) -> None:
        """Motor off now, latch a fault named ``reason``; must be safe from any thread."""

    def owned_by(self, thread: threading.Thread) -> bool:
        """True if ``thread`` started the motor that is running now."""


_registry: weakref.WeakSet[Any] = weakref.WeakSet()
_registry_lock = threading.Lock()
_previous_excepthook = threading.excepthook


def register(driver: EmergencyStoppable) -> None:
    with _registry_lock:
        _registry.add(driver)


def unregister(driver: EmergencyStoppable) -> None:
    with _registry_lock:
        _registry.discard(driver)


def registered() -> list[EmergencyStoppable]:
    with _registry_lock:
        return list(_registry)


def stop_all(reason: str) -> int:
    """Stop every registered motor; returns how many drivers were told."""
    drivers = registered()
    for driver in drivers:
        driver.emergency_stop(reason)
    return len(drivers)


_previous_handlers: dict[int, Any] = {}


_handling = threading.local()


def in_signal_handler() -> bool:
    """True inside :func:`_on_stop_signal`: start no thread there (the LED blinks steady)."""
    return bool(getattr(_handling, "active", False))


def _on_stop_signal(signum: int, frame: FrameType | None) -> None:
    """Motors off first, whatever else happens; then end as the signal would have."""
    _handling.active = True
    try:
        stop_all(STOP_SIGNALS.get(signal.Signals(signum), "signal"))
    finally:
        _handling.active = False
    previous = _previous_handlers.get(signum)
    if callable(previous):
        previous(signum, frame)  # SIGINT: Python's KeyboardInterrupt; or a server's own handler
        return
    if previous == signal.SIG_IGN:
        return  # the process was told to ignore it (nohup): the motors are off, carry on
    raise SystemExit(128 + signum)


#: The old name of the SIGTERM handler (tests and docs call it so).
_on_sigterm = _on_stop_signal


def install_stop_handlers() -> bool:
    """Make SIGTERM, SIGHUP and SIGINT stop the motors first; False if not on the main thread.

    Idempotent; a handler installed earlier by someone else is kept and called after the
    motors are off.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in STOP_SIGNALS:
        current = signal.getsignal(signum)
        if current is not _on_stop_signal:
            _previous_handlers[signum] = current
            signal.signal(signum, _on_stop_signal)
    return True


def install_sigterm_handler() -> bool:
    """Kept for callers of the first version: installs every stop handler."""
    return install_stop_handlers()


def _on_thread_death(args: threading.ExceptHookArgs) -> None:
    thread = args.thread
    if thread is not None:
        for driver in registered():
            if driver.owned_by(thread):
                driver.emergency_stop("thread_died")
    _previous_excepthook(args)


def install_thread_death_hook() -> None:
    """Chain :data:`threading.excepthook` so a dying thread never leaves its motor on."""
    global _previous_excepthook
    if threading.excepthook is not _on_thread_death:
        _previous_excepthook = threading.excepthook
        threading.excepthook = _on_thread_death
