"""Spit-out profiles: how many cards a launcher shoots, press by press.

A :class:`Profile` is data (a TOML file, ``docs/profiles.md``); it makes a
:class:`PressSampler`, the small seeded state machine a launcher consults on
every press. Presets ship in ``launcher/presets/*.toml``, each naming its source.

This module holds the minimal kinds the simulated launcher needs (``iid`` and
``pattern``); the profile toolkit extends it.
"""

from __future__ import annotations

import bisect
import itertools
import random
import tomllib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from launcher.errors import ProfileError

SCHEMA_VERSION = 1
DEFAULT_PROFILE = "web-game"
_PROB_TOLERANCE = 1e-6


class PressSampler(ABC):
    """Per-launcher state that decides each press's count; seeded, never global randomness."""

    @abstractmethod
    def next(self, loaded: int) -> int:
        """How many cards this press should shoot, with ``loaded`` cards in the hopper."""

    def reset(self) -> None:
        """The launcher was powered up or its hopper reloaded."""


@dataclass(frozen=True)
class Profile(ABC):
    """A named, sourced description of a launcher's spit-out behaviour."""

    name: str
    source: str
    description: str

    kind = "abstract"

    @abstractmethod
    def sampler(self, seed: int | None) -> PressSampler:
        """A fresh sampler whose choices all flow from ``seed``."""


class _CategoricalDraw:
    """Draw an index from fixed probabilities with one uniform number per draw."""

    def __init__(self, probabilities: tuple[float, ...]) -> None:
        self._cumulative = list(itertools.accumulate(probabilities))
        self._cumulative[-1] = 1.0

    def __call__(self, rng: random.Random) -> int:
        return bisect.bisect_right(self._cumulative, rng.random())


@dataclass(frozen=True)
class IIDProfile(Profile):
    """Every press independent: ``probabilities[k]`` = P(k cards)."""

    probabilities: tuple[float, ...]

    kind = "iid"

    def sampler(self, seed: int | None) -> PressSampler:
        return _IIDSampler(_CategoricalDraw(self.probabilities), random.Random(seed))


class _IIDSampler(PressSampler):
    def __init__(self, draw: _CategoricalDraw, rng: random.Random) -> None:
        self._draw = draw
        self._rng = rng

    def next(self, loaded: int) -> int:
        return self._draw(self._rng)


@dataclass(frozen=True)
class PatternProfile(Profile):
    """A fixed firing sequence over a cycle of presses; firing presses draw from ``firing``.

    ``fires`` are 1-based press numbers within a cycle of ``cycle`` presses. The
    position resets when the hopper is reloaded or the launcher powered up.
    """

    fires: tuple[int, ...]
    cycle: int
    firing: tuple[float, ...]

    kind = "pattern"

    def sampler(self, seed: int | None) -> PressSampler:
        return _PatternSampler(self, random.Random(seed))


class _PatternSampler(PressSampler):
    def __init__(self, profile: PatternProfile, rng: random.Random) -> None:
        self._fires = frozenset(profile.fires)
        self._cycle = profile.cycle
        self._draw = _CategoricalDraw(profile.firing)
        self._rng = rng
        self._position = 0

    def next(self, loaded: int) -> int:
        self._position = self._position % self._cycle + 1
        return self._draw(self._rng) if self._position in self._fires else 0

    def reset(self) -> None:
        self._position = 0


# -- loading ------------------------------------------------------------------------
def _probabilities(where: str, field: str, raw: Any) -> tuple[float, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(p, int | float) for p in raw):
        raise ProfileError(f"{where}: field {field} must be a non-empty list of probabilities")
    values = tuple(float(p) for p in raw)
    if any(p < 0 for p in values):
        raise ProfileError(f"{where}: field {field} has a negative probability")
    total = sum(values)
    if abs(total - 1.0) > _PROB_TOLERANCE:
        raise ProfileError(f"{where}: field {field} sums to {total:.6g}, expected 1")
    return values


def profile_from_dict(data: dict[str, Any], where: str) -> Profile:
    """Build a profile from parsed TOML; ``where`` names the file in errors."""
    if data.get("schema") != SCHEMA_VERSION:
        raise ProfileError(f"{where}: field schema is {data.get('schema')!r}, expected {SCHEMA_VERSION}")
    name = str(data.get("name") or Path(where).stem)
    common = {"name": name, "source": str(data.get("source", "")), "description": str(data.get("description", ""))}
    kind = data.get("kind")
    if kind == "iid":
        return IIDProfile(**common, probabilities=_probabilities(where, "p", data.get("p")))
    if kind == "pattern":
        fires = data.get("fires")
        cycle = data.get("cycle")
        if not isinstance(cycle, int) or cycle < 1:
            raise ProfileError(f"{where}: field cycle must be a positive whole number")
        if not isinstance(fires, list) or not all(isinstance(f, int) and 1 <= f <= cycle for f in fires):
            raise ProfileError(f"{where}: field fires must list press numbers between 1 and {cycle}")
        firing = _probabilities(where, "firing", data.get("firing"))
        return PatternProfile(**common, fires=tuple(fires), cycle=cycle, firing=firing)
    raise ProfileError(f"{where}: field kind is {kind!r}, expected one of iid, pattern")


def preset_names() -> list[str]:
    folder = resources.files("launcher") / "presets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_profile(name_or_path: str | Path) -> Profile:
    """A preset by name, or a profile TOML file by path."""
    text, where = _read_profile_text(str(name_or_path))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{where}: not valid TOML ({error})") from None
    return profile_from_dict(data, where)


def _read_profile_text(name_or_path: str) -> tuple[str, str]:
    if name_or_path in preset_names():
        preset = resources.files("launcher") / "presets" / f"{name_or_path}.toml"
        return preset.read_text(encoding="utf-8"), f"preset {name_or_path}"
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except OSError as error:
            raise ProfileError(f"{path}: cannot read profile ({error.strerror})") from None
    raise ProfileError(
        f"no profile named {name_or_path!r}",
        hint=f"presets: {', '.join(preset_names())}; or give a path to a .toml file",
    )
