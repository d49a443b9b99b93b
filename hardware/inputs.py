"""Debouncing and glitch filtering for digital inputs, on edge timestamps (pure logic, no I/O).

A switch contact bounces for a few milliseconds; a beam line near a brushed motor
picks up microsecond spikes. Both are handled the same way: a new level is
believed only once it has held for ``settle_s``, and it is dated at the raw edge
that started it (the edge's own timestamp, not the moment a callback ran). Time
is whatever the caller says, so the filter runs the same on the Pi's monotonic
clock and on the mock rig's virtual one.
"""

from __future__ import annotations

_EPS = 1e-9

#: A settled change of level: (new level, time of the raw edge that began it).
Change = tuple[bool, float]


class SettleFilter:
    """Report a level only once it has been steady for ``settle_s`` (0: report every edge).

    >>> f = SettleFilter(0.02, initial=False)
    >>> f.edge(True, 1.000), f.edge(False, 1.001), f.edge(True, 1.002)  # a bouncy press
    ([], [], [])
    >>> f.due()
    1.022
    >>> f.poll(1.030)
    [(True, 1.002)]
    """

    def __init__(self, settle_s: float, *, initial: bool) -> None:
        self.settle_s = max(0.0, settle_s)
        self.level = initial  # the filtered level
        self._raw = initial
        self._raw_since = 0.0

    def edge(self, level: bool, t: float) -> list[Change]:
        """A raw edge to ``level`` at ``t``; returns the changes that settled up to then."""
        settled = self.poll(t)
        if level != self._raw:
            self._raw, self._raw_since = level, t
        return settled + (self.poll(t) if self.settle_s == 0.0 else [])

    def due(self) -> float | None:
        """When the pending raw level will have settled (None: nothing pending)."""
        if self._raw == self.level:
            return None
        return self._raw_since + self.settle_s

    def poll(self, now: float) -> list[Change]:
        """The change that has settled by ``now``, if any."""
        due = self.due()
        if due is None or now < due - _EPS:
            return []
        self.level = self._raw
        return [(self.level, self._raw_since)]

    def reset(self, level: bool, t: float) -> None:
        """Believe ``level`` as of ``t`` (after a person touched the hardware)."""
        self.level = self._raw = level
        self._raw_since = t
