"""How many WebSockets the server keeps open, so idle sockets never lock the players out.

Every open socket is a file descriptor, and a process has a limit of them (often 1,024).
Without a cap, a page left open 1,100 times (or a script) fills them and the next phone's
link fails with "too many open files". So:

* a socket **without a token** (the public table screen, or a wrong token) takes one of a
  limited number of public places: at most :attr:`Limits.per_address` from one client
  address, and at most :meth:`Limits.public_places` in all, which leaves room below the
  process's open-file limit for every token's sockets, the journal and the launcher;
* a socket **with a token** (a seat, the host, the referee) never competes with those: it
  takes one of :attr:`Limits.per_token` places of its own token (a phone that reloads holds
  two for a moment), so a seat's link works however many public sockets are open;
* a page must say hello within :attr:`Limits.hello_timeout` seconds, or it is closed.

A socket refused for want of a place is closed before its handshake completes (HTTP 403).
"""

from __future__ import annotations

import resource
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from game.tables.prompt import MAX_SEATS
from game.tables.web.auth import TABLE

#: Public sockets at most, whatever the open-file limit.
MOST_PUBLIC = 256
#: Descriptors kept free for everything but sockets: journal, launcher, pages being served.
SPARE_FILES = 64
#: WebSocket close code for a page that did not say hello in time.
CLOSE_SLOW = 4408


def open_file_limit() -> int:
    """This process's soft limit on open files (``ulimit -n``)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


@dataclass(frozen=True)
class Limits:
    """The caps (defaults for a home table; tests make them small or quick)."""

    hello_timeout: float = 5.0
    per_address: int = 16
    per_token: int = 4
    #: Public places in all; None: as many as the open-file limit leaves room for.
    public: int | None = None

    def public_places(self, file_limit: int | None = None) -> int:
        """Public places: what the open-file limit leaves after every token's sockets."""
        if self.public is not None:
            return self.public
        limit = open_file_limit() if file_limit is None else file_limit
        tokens = self.per_token * (MAX_SEATS + 2)  # every seat, the host, the referee
        return max(1, min(MOST_PUBLIC, limit - tokens - SPARE_FILES))


@dataclass
class Admission:
    """Counts the open sockets and hands out places (one event loop: no lock needed)."""

    limits: Limits = field(default_factory=Limits)
    _public: Counter[str] = field(default_factory=Counter)
    _tokens: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.public_places = self.limits.public_places()

    @contextmanager
    def place(self, role: str | None, address: str) -> Iterator[bool]:
        """Hold a place for a socket of ``role`` (None or ``table``: public) from ``address``
        while the block runs; yields False (and holds nothing) when there is none."""
        counter, key = (
            (self._public, address) if role in (None, TABLE) else (self._tokens, str(role))
        )
        if not self._free(counter, key):
            yield False
            return
        counter[key] += 1
        try:
            yield True
        finally:
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]

    def _free(self, counter: Counter[str], key: str) -> bool:
        if counter is self._tokens:
            return counter[key] < self.limits.per_token
        return counter[key] < self.limits.per_address and sum(counter.values()) < self.public_places

    @property
    def open_public(self) -> int:
        return sum(self._public.values())
