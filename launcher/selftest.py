"""What a bring-up test found: named checks that passed or failed, with what a person should do.

:meth:`launcher.base.Launcher.self_test` returns a :class:`SelfTestResult`; ``uno-attack
launcher test`` prints it (one line per check) and exits 1 when a check failed. A backend
says what it could check and what it could not (``ok=None``: not checked, and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Check:
    """One check: ``ok`` True (passed), False (failed) or None (could not be checked)."""

    name: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        verdict = {True: "ok", False: "FAILED", None: "not checked"}[self.ok]
        return f"{self.name}: {self.detail} -- {verdict}"


@dataclass
class SelfTestResult:
    """Every check of one bring-up test, in the order they ran, plus raw readings."""

    checks: list[Check] = field(default_factory=list)
    #: What the device reported (pin states, counters), for ``--json``.
    readings: dict[str, Any] = field(default_factory=dict)

    def add(self, name: str, ok: bool | None, detail: str) -> Check:
        check = Check(name, ok, detail)
        self.checks.append(check)
        return check

    @property
    def ok(self) -> bool:
        """True when no check failed (checks that could not run do not fail the test)."""
        return all(check.ok is not False for check in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checks": {check.name: check.ok for check in self.checks},
            "details": {check.name: check.detail for check in self.checks},
            "readings": self.readings,
        }
