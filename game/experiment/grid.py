"""What an experiment runs: a grid of cells, each cut into tasks with their own seeds.

A **cell** is one combination of ruleset × player count × launcher profile × bots ×
rule options. A **task** is one chunk of a cell's games. Each task's seed is derived
from (master seed, cell key, chunk index) by SHA-256, so a task plays the same games
whichever process, machine or executor runs it, and in whatever order: the results
are identical for any worker count, and a rerun can skip the tasks a results file
already holds.

A profile is named as ``default`` (the ruleset's own: a draw pile for classic/pocket,
the default spit-out profile otherwise), a preset name or TOML path, a launcher spec
(``sim://?profile=escalating``), or a derived i.i.d. profile ``BASE@p0=X`` (P(0) set
to X, the firing counts kept in proportion) or ``BASE@mean=X`` (P(0) kept, the firing
counts 1 + Binomial(8, q) with q set so that the mean cards per press is X).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from itertools import product
from math import comb
from typing import Any

from game.bots import make_bot
from game.core.errors import RulesetError
from game.core.rulesets import load_ruleset
from hardware.files import MAX_TEXT_BYTES, read_user_text
from launcher.profiles import DEFAULT_PROFILE, IIDProfile, Profile, load_profile

#: Bump when a task record's meaning changes: a results file of another schema is refused.
SCHEMA = 1
#: The bot used when a grid names none: the rule-based bot (game/bots/rule.py).
DEFAULT_BOT = "rule"
DEFAULT_GAMES = 200
DEFAULT_CHUNK = 25
#: Largest firing count of a ``@mean=`` profile (1 + Binomial(8, q)).
MEAN_FAMILY_MAX = 9


class GridError(RulesetError):
    """An experiment grid that cannot be run as written; nothing was run."""

    hint = "docs/experiment-cluster.md, 'Grid files', describes the grid"


@dataclass(frozen=True)
class Cell:
    """One combination of the grid; ``key`` names it in results files and seeds."""

    ruleset: str
    players: int
    profile: str
    bots: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """Canonical JSON of the cell: its identity in results files and seeds."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        """The cell as JSON-ready data (what a task record stores)."""
        return {
            "ruleset": self.ruleset,
            "players": self.players,
            "profile": self.profile,
            "bots": list(self.bots),
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cell:
        return cls(
            ruleset=str(data["ruleset"]),
            players=int(data["players"]),
            profile=str(data["profile"]),
            bots=tuple(data["bots"]),
            options=tuple(sorted((str(k), str(v)) for k, v in data["options"].items())),
        )

    def label(self) -> str:
        """A short human name: ``attack 4p web-game rule``."""
        extra = " ".join(f"{k}={v}" for k, v in self.options)
        text = f"{self.ruleset} {self.players}p {self.profile} {','.join(self.bots)}"
        return f"{text} {extra}".strip()

    def bot_for(self, seat: int) -> str:
        """The bot in ``seat``: the line-up cycled over the seats."""
        return self.bots[seat % len(self.bots)]


@dataclass(frozen=True)
class Task:
    """Games ``chunk * chunk_size`` .. of one cell, with their seed."""

    cell: Cell
    chunk: int
    games: int
    seed: int

    @property
    def key(self) -> str:
        """The task's identity in a results file: cell key, chunk index and its games.

        The games count is part of it because a grid grown from 55 to 100 games turns the
        short last chunk (5 games) into a full one (25): a new task, whose first 5 games are
        the old task's (game seeds derive from the task seed and the game's index).
        """
        return f"{self.cell.key}#{self.chunk}:{self.games}"


def task_seed(master: int, cell_key: str, chunk: int) -> int:
    """A 63-bit seed from (master seed, cell key, chunk): stable across Python versions."""
    digest = hashlib.sha256(f"{master}\x1f{cell_key}\x1f{chunk}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class Grid:
    """The axes of an experiment; :meth:`cells` is their product, in a fixed order."""

    rulesets: list[str] = field(default_factory=lambda: ["attack"])
    players: list[int] = field(default_factory=lambda: [4])
    profiles: list[str] = field(default_factory=lambda: ["default"])
    bots: list[tuple[str, ...]] = field(default_factory=lambda: [(DEFAULT_BOT,)])
    options: list[dict[str, str]] = field(default_factory=lambda: [{}])
    games: int = DEFAULT_GAMES

    def cells(self) -> list[Cell]:
        """Every combination of the axes, rulesets varying slowest."""
        axes = product(self.rulesets, self.players, self.profiles, self.bots, self.options)
        return [Cell(r, p, prof, b, tuple(sorted(o.items()))) for r, p, prof, b, o in axes]

    def tasks(self, master_seed: int, chunk: int = DEFAULT_CHUNK) -> list[Task]:
        """Every task of the grid, cell by cell, chunk by chunk (the last chunk may be short)."""
        out = []
        for cell in self.cells():
            key = cell.key
            for index, start in enumerate(range(0, self.games, chunk)):
                size = min(chunk, self.games - start)
                out.append(Task(cell, index, size, task_seed(master_seed, key, index)))
        return out

    def validate(self) -> None:
        """Fail before any game on anything that would fail in every game of a cell."""
        if self.games < 1:
            raise GridError(f"games must be at least 1, not {self.games}")
        for cell in self.cells():
            rules = load_ruleset(cell.ruleset, dict(cell.options))
            rules.check_players(cell.players)
            for seat in range(cell.players):
                make_bot(cell.bot_for(seat), 0)
            launcher_for(cell.profile, rules.draws_from_pile, 0).close()


# -- profiles ---------------------------------------------------------------------------------
def derived_profile(text: str) -> Profile:
    """``BASE@p0=X`` or ``BASE@mean=X`` (BASE defaults to the default profile)."""
    base_name, _, setting = text.partition("@")
    knob, sep, raw = setting.partition("=")
    base = load_profile(base_name or DEFAULT_PROFILE)
    if not isinstance(base, IIDProfile) or not sep:
        raise GridError(
            f"profile {text!r}: expected I.I.D.-BASE@p0=X or BASE@mean=X",
            hint="BASE must be an i.i.d. profile, e.g. web-game@p0=0.3",
        )
    try:
        value = float(raw)
    except ValueError:
        raise GridError(f"profile {text!r}: {raw!r} is not a number") from None
    if knob == "p0":
        return with_p0(base, value, name=text)
    if knob == "mean":
        return with_mean(base, value, name=text)
    raise GridError(f"profile {text!r}: unknown setting {knob!r}", hint="use p0= or mean=")


def with_p0(base: IIDProfile, p0: float, *, name: str) -> IIDProfile:
    """``base`` with P(0) = ``p0`` and the firing counts kept in proportion."""
    if not 0 <= p0 < 1:
        raise GridError(f"profile {name!r}: P(0) must be in [0, 1), not {p0}")
    probabilities = base.probabilities
    rest = 1 - probabilities[0]
    scaled = (p0,) + tuple(p * (1 - p0) / rest for p in probabilities[1:])
    return IIDProfile(name, f"derived from {base.name}", f"{base.name} with P(0)={p0:g}", scaled)


def with_mean(base: IIDProfile, mean: float, *, name: str) -> IIDProfile:
    """P(0) of ``base``; a firing press shoots 1 + Binomial(8, q) cards, q giving ``mean``."""
    p0 = base.probabilities[0]
    firing_mean = mean / (1 - p0)
    top = MEAN_FAMILY_MAX - 1
    if not 1 <= firing_mean <= MEAN_FAMILY_MAX:
        low, high = (1 - p0), MEAN_FAMILY_MAX * (1 - p0)
        raise GridError(
            f"profile {name!r}: with P(0)={p0:g} the mean must be in [{low:.3g}, {high:.3g}]"
        )
    q = (firing_mean - 1) / top
    firing = [comb(top, k) * q**k * (1 - q) ** (top - k) for k in range(top + 1)]
    probabilities = (p0,) + tuple((1 - p0) * p for p in firing)
    description = f"{base.name}'s P(0)={p0:g}, firing 1+Binomial({top}, {q:.4f}), mean {mean:g}"
    return IIDProfile(name, f"derived from {base.name}", description, probabilities)


def launcher_for(profile: str, draws_from_pile: bool, seed: int) -> Any:
    """The launcher a cell plays with: a :class:`~launcher.base.Launcher` seeded by ``seed``."""
    from launcher.sim import SimLauncher
    from launcher.spec import open_launcher

    if profile == "default":
        spec = "pile://" if draws_from_pile else f"sim://?profile={DEFAULT_PROFILE}"
        return open_launcher(spec, default_seed=seed)
    if "@" in profile and "://" not in profile:
        return SimLauncher(derived_profile(profile), seed=seed)
    if "://" in profile:
        return open_launcher(profile, default_seed=seed)
    return SimLauncher(load_profile(profile), seed=seed)


# -- grid files and command-line lists ---------------------------------------------------------
def split_list(text: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]`` (a command-line list)."""
    return [part.strip() for part in text.split(",") if part.strip()]


def bots_axis(values: list[str]) -> list[tuple[str, ...]]:
    """Each value is one line-up: ``rule`` (every seat) or ``rule+random`` (cycled over seats)."""
    return [tuple(b.strip() for b in v.split("+") if b.strip()) for v in values]


def grid_from_toml(path: str) -> Grid:
    """Read a grid file (``docs/experiments.md``, "Grid files")."""
    text = read_user_text(path, what="grid file", limit=MAX_TEXT_BYTES, error=GridError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise GridError(f"{path}: {error}") from None
    return grid_from_dict(data, where=path)


_KEYS = {"rulesets", "players", "profiles", "bots", "options", "games", "time_model"}


def grid_from_dict(data: dict[str, Any], where: str = "grid") -> Grid:
    """A grid from parsed TOML; unknown keys and ill-typed values are errors naming ``where``."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise GridError(f"{where}: unknown keys {unknown}", hint=f"known: {sorted(_KEYS)}")
    grid = Grid()
    if "rulesets" in data:
        grid.rulesets = [str(r) for r in _list(data, "rulesets", where)]
    if "players" in data:
        grid.players = [_whole(p, "players", where) for p in _list(data, "players", where)]
    if "profiles" in data:
        grid.profiles = [str(p) for p in _list(data, "profiles", where)]
    if "bots" in data:
        grid.bots = bots_axis([str(b) for b in _list(data, "bots", where)])
    if "options" in data:
        grid.options = [
            {str(k): _option_text(v) for k, v in dict(o).items()}
            for o in _list(data, "options", where)
        ]
    if "games" in data:
        grid.games = _whole(data["games"], "games", where)
    return grid


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list) or not value:
        raise GridError(f"{where}: {key} must be a non-empty list, e.g. {key} = [...]")
    return value


def _whole(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GridError(f"{where}: {key} must be whole numbers, not {value!r}")
    return value


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
