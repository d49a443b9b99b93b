"""Who may do what: unguessable tokens per role (Host, Origin checks: :mod:`game.tables.web.guard`).

Every join link carries a token made by :func:`secrets.token_urlsafe` (32 bytes of
randomness): ``/seat/TOKEN`` for a seat, ``/host/TOKEN`` for the host (who alone may
press the launcher again or clear a jam), and a ``referee`` token for the referee page.
The roles are the strings ``host``, ``referee`` and ``seat:N``; a page without a token
is the public table screen and sees only what everyone at the table sees.

The tokens of a journaled game are saved beside the journal (``JOURNAL.tokens``, mode
0600, written atomically) so that a server restarted with ``--resume`` gives every phone
back its seat with the link it already has.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from game.core.errors import JournalError
from hardware.files import atomic_path, read_user_text

HOST = "host"
REFEREE = "referee"
TABLE = "table"  #: no token: the public table screen (read-only)
SEAT_PREFIX = "seat:"
TOKEN_BYTES = 32
#: WebSocket close code for a refused token or origin (HTTP 403's twin).
CLOSE_FORBIDDEN = 4403


def seat_role(seat: int) -> str:
    return f"{SEAT_PREFIX}{seat}"


def role_seat(role: str) -> int | None:
    """The seat of a ``seat:N`` role, else None."""
    if role.startswith(SEAT_PREFIX) and role[len(SEAT_PREFIX) :].isdecimal():
        return int(role[len(SEAT_PREFIX) :])
    return None


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Tokens:
    """The secret of each role at one table."""

    host: str
    referee: str
    seats: tuple[str, ...]

    @classmethod
    def new(cls, seats: int) -> Tokens:
        return cls(new_token(), new_token(), tuple(new_token() for _ in range(seats)))

    def by_role(self) -> dict[str, str]:
        roles = {HOST: self.host, REFEREE: self.referee}
        roles.update((seat_role(i), token) for i, token in enumerate(self.seats))
        return roles

    def role_of(self, token: str | None) -> str | None:
        """The role ``token`` grants, or None (compared in constant time, every role tried)."""
        if not token:
            return None
        found = None
        for role, secret in self.by_role().items():
            if secrets.compare_digest(secret.encode(), token.encode("utf-8", "replace")):
                found = role
        return found

    def check(self, token: str | None, role: str) -> bool:
        """Does ``token`` grant ``role``? (The host token does not act for a seat.)"""
        return self.role_of(token) == role

    def token_of(self, role: str) -> str:
        return self.by_role()[role]

    # -- kept beside the journal ---------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write the tokens to ``path`` atomically, readable by the owner only (0600)."""
        text = json.dumps({"host": self.host, "referee": self.referee, "seats": self.seats})
        with atomic_path(path) as temporary:
            os.chmod(temporary, 0o600)
            with temporary.open("w", encoding="utf-8") as stream:
                stream.write(text + "\n")
                stream.flush()
                os.fsync(stream.fileno())

    @classmethod
    def load(cls, path: Path, seats: int) -> Tokens:
        """Read tokens saved by :meth:`save`; refused unless they fit a table of ``seats``."""
        try:
            data = json.loads(read_user_text(path, what="tokens file"))
            tokens = cls(str(data["host"]), str(data["referee"]), tuple(map(str, data["seats"])))
        except (KeyError, TypeError, ValueError) as error:
            raise JournalError(f"tokens file {path} is damaged ({error})") from None
        if len(tokens.seats) != seats:
            raise JournalError(
                f"tokens file {path} has {len(tokens.seats)} seats, the journal {seats}"
            )
        return tokens

    @classmethod
    def for_journal(cls, journal: Path | None, seats: int, *, resume: bool) -> Tokens:
        """The tokens of a journaled table: reused when resuming, else new (and saved)."""
        if journal is None:
            return cls.new(seats)
        path = tokens_path(journal)
        if resume and path.exists():
            return cls.load(path, seats)
        tokens = cls.new(seats)
        tokens.save(path)
        return tokens


def tokens_path(journal: Path) -> Path:
    """Where a journal's tokens are kept: ``game.jsonl`` -> ``game.jsonl.tokens``."""
    return journal.with_name(journal.name + ".tokens")
