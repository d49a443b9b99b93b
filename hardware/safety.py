"""Last-resort motor stops: SIGTERM and dying threads.

gpiozero closes its devices in an ``atexit`` hook, which does not run when a
process is killed by an unhandled SIGTERM (``systemctl stop``), and a thread
that dies with the motor on leaves it on. Every motor driver registers here;

* :func:`install_sigterm_handler` stops every registered motor *inside the
  signal handler* (the main thread might be blocked) and then raises
  ``SystemExit(143)`` so ``finally`` blocks and context managers run too;
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


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    stop_all("sigterm")
    raise SystemExit(SIGTERM_EXIT)


def install_sigterm_handler() -> bool:
    """Make SIGTERM stop the motors and exit cleanly; False if not on the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.signal(signal.SIGTERM, _on_sigterm)
    return True


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
