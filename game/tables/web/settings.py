"""What a ``table serve`` server plays, and where it listens: one :class:`WebSettings` value.

The game part mirrors a ``play`` journal header (ruleset, options, seed, seats, launcher,
rounds): a web game *is* a ``play`` game whose people sit at phones, so its journal is a
``play`` journal (``uno-attack replay`` reads it) and :meth:`WebSettings.header` is that header.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.bots import BOT_NAMES
from game.core.errors import JournalError
from game.core.rulesets import DEFAULT_RULESET
from game.tables.prompt import MAX_SEATS, SeatSpec, check_seat_names

LOCALHOST = "127.0.0.1"
ALL_INTERFACES = "0.0.0.0"
DEFAULT_PORT = 8000


@dataclass
class WebSettings:
    """Everything ``create_app`` needs; the CLI fills it from flags or from a journal's header.

    ``seats``: one :class:`~game.tables.prompt.SeatSpec` per seat (``bot`` set: a bot plays it
    server-side). ``journal``: where the game is written (crash-safe); ``resume``: a journal
    to continue (its header defines the game; the tokens saved beside it are reused).
    ``lan``: listen on every interface (``host`` becomes 0.0.0.0 unless given).
    """

    ruleset: str = DEFAULT_RULESET
    options: dict[str, Any] = field(default_factory=dict)
    seats: list[SeatSpec] = field(default_factory=lambda: default_seats(4, ("greedy",)))
    launcher: str | None = None
    seed: int | None = None
    rounds: int | None = None
    journal: Path | None = None
    resume: Path | None = None
    host: str = LOCALHOST
    port: int = DEFAULT_PORT
    allowed_origins: tuple[str, ...] = ()
    lan: bool = False
    #: The address phones use to reach the server (``--lan`` finds the LAN address);
    #: None: the address the host's page was opened with.
    public_url: str | None = None
    #: What the server runs: ``virtual`` (phones hold the hands). Other pages (the referee
    #: page, live calibration) may read it to decide what they offer.
    mode: str = "virtual"
    #: ``mode="calibration"``: the ``calibrate record`` session file the live page follows.
    calibration: Path | None = None

    @property
    def names(self) -> list[str]:
        return [seat.name for seat in self.seats]

    @property
    def people(self) -> list[int]:
        """The seats people play (each gets a join link)."""
        return [index for index, seat in enumerate(self.seats) if seat.bot is None]

    def header(self, seed: int, launcher: str) -> dict[str, Any]:
        """The ``play`` journal header of this game (``game.play.journal_schema.PlayHeader``)."""
        return {
            "mode": "play",
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "seed": seed,
            "seats": [{"name": seat.name, "bot": seat.bot} for seat in self.seats],
            "launcher": launcher,
            "rounds": self.rounds,
        }

    def with_header(self, header: dict[str, Any]) -> WebSettings:
        """These settings with the game part taken from a journal header (for ``--resume``)."""
        if header.get("mode") != "play":
            raise JournalError(
                f"a {header.get('mode')!r} journal cannot be served as a virtual table",
                hint="`table serve --resume` continues journals written by `table serve` or `play`",
            )
        seats = [SeatSpec(raw["name"], raw.get("bot")) for raw in header["seats"]]
        check_seat_names([seat.name for seat in seats], f"--resume {self.resume}")
        return WebSettings(
            ruleset=header["ruleset"],
            options=dict(header.get("options") or {}),
            seats=seats,
            launcher=header["launcher"],
            seed=int(header["seed"]),
            rounds=header.get("rounds"),
            journal=None,
            resume=self.resume,
            host=self.host,
            port=self.port,
            allowed_origins=self.allowed_origins,
            lan=self.lan,
            public_url=self.public_url,
            mode=self.mode,
            calibration=self.calibration,
        )


def default_seats(players: int, bots: tuple[str, ...] | list[str]) -> list[SeatSpec]:
    """``players`` seats, the last ``len(bots)`` played by those bots, the others by people."""
    if not 2 <= players <= MAX_SEATS:
        raise JournalError(f"--players {players}: a game needs 2 to {MAX_SEATS} seats")
    if len(bots) >= players:
        raise JournalError(
            f"--bots {','.join(bots)}: {len(bots)} bot(s) for {players} seats leaves no seat "
            "for a person",
            hint="raise --players or name fewer bots",
        )
    for bot in bots:
        if bot not in BOT_NAMES:
            raise JournalError(f"unknown bot {bot!r}", hint=f"bots are: {', '.join(BOT_NAMES)}")
    people = players - len(bots)
    seats = [SeatSpec(f"Seat {index + 1}") for index in range(people)]
    seats += [SeatSpec(f"{bot.capitalize()}Bot{people + i + 1}", bot) for i, bot in enumerate(bots)]
    return seats


def lan_address() -> str:
    """This machine's address on the network: the interface that routes off this machine."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # UDP connect sends nothing: it only picks a route
        address: str = probe.getsockname()[0]
    except OSError:
        address = socket.gethostname()
    finally:
        probe.close()
    return address
