"""Read, validate and write profile TOML files (``schema = 1``, ``docs/profiles.md``).

Every mistake in a file becomes a :class:`ProfileError` that names the file,
the field and what was expected, in the spirit of Klipper's config checks:
probabilities that do not sum to 1, negative numbers, an unknown ``kind``, a
wrong schema version and unknown keys (typos) are all refused.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from launcher.errors import ProfileError
from launcher.profiles.kinds import (
    EscalatingProfile,
    IIDProfile,
    LoadBand,
    LoadDependentProfile,
    PatternProfile,
    Profile,
)

SCHEMA_VERSION = 1
DEFAULT_PROFILE = "web-game"
PROB_TOLERANCE = 1e-6
COMMON_KEYS = frozenset({"schema", "name", "kind", "source", "description"})
KIND_KEYS = {
    "iid": frozenset({"p"}),
    "pattern": frozenset({"cycle", "fires", "firing", "reset_on_reload"}),
    "escalating": frozenset({"hazard", "firing", "guaranteed_after", "reset_on_reload"}),
    "load-dependent": frozenset({"bands"}),
}


# -- field readers ------------------------------------------------------------------
def _numbers(where: str, field: str, raw: Any, what: str) -> tuple[float, ...]:
    if not isinstance(raw, list) or not raw or not all(_is_number(p) for p in raw):
        raise ProfileError(
            f"{where}: field {field} must be a non-empty list of {what}, got {raw!r}"
        )
    return tuple(float(p) for p in raw)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def probabilities(where: str, field: str, raw: Any) -> tuple[float, ...]:
    """A list of probabilities, each in [0, 1], summing to 1 (within 1e-6)."""
    values = _numbers(where, field, raw, "probabilities")
    bad = [i for i, p in enumerate(values) if not 0.0 <= p <= 1.0]
    if bad:
        raise ProfileError(
            f"{where}: field {field}[{bad[0]}] is {values[bad[0]]!r}, "
            "expected a probability between 0 and 1"
        )
    total = sum(values)
    if abs(total - 1.0) > PROB_TOLERANCE:
        raise ProfileError(f"{where}: field {field} sums to {total:.6g}, expected 1")
    return values


def _whole(where: str, field: str, raw: Any, minimum: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < minimum:
        raise ProfileError(
            f"{where}: field {field} is {raw!r}, expected a whole number >= {minimum}"
        )
    return raw


def _flag(where: str, field: str, raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise ProfileError(f"{where}: field {field} is {raw!r}, expected true or false")
    return raw


# -- kinds --------------------------------------------------------------------------
def _iid(data: dict[str, Any], where: str, common: dict[str, str]) -> Profile:
    return IIDProfile(**common, probabilities=probabilities(where, "p", data.get("p")))


def _pattern(data: dict[str, Any], where: str, common: dict[str, str]) -> Profile:
    cycle = _whole(where, "cycle", data.get("cycle"), 1)
    fires = data.get("fires")
    if not isinstance(fires, list) or not all(
        isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= cycle for f in fires
    ):
        raise ProfileError(
            f"{where}: field fires must list press numbers between 1 and {cycle}, got {fires!r}"
        )
    if len(set(fires)) != len(fires):
        raise ProfileError(f"{where}: field fires lists a press number twice")
    firing = probabilities(where, "firing", data.get("firing"))
    resets = _flag(where, "reset_on_reload", data.get("reset_on_reload", True))
    return PatternProfile(
        **common, fires=tuple(sorted(fires)), cycle=cycle, firing=firing, reset_on_reload=resets
    )


def _escalating(data: dict[str, Any], where: str, common: dict[str, str]) -> Profile:
    hazard = _numbers(where, "hazard", data.get("hazard"), "probabilities")
    if any(not 0.0 <= h <= 1.0 for h in hazard):
        raise ProfileError(
            f"{where}: field hazard must hold probabilities between 0 and 1, got {list(hazard)}"
        )
    if any(b < a for a, b in zip(hazard, hazard[1:], strict=False)):
        raise ProfileError(
            f"{where}: field hazard must never decrease (the chance escalates), got {list(hazard)}"
        )
    firing = probabilities(where, "firing", data.get("firing"))
    if firing[0] > 0:
        raise ProfileError(
            f"{where}: field firing[0] is {firing[0]}, expected 0 (a firing press shoots a card)"
        )
    raw_guarantee = data.get("guaranteed_after")
    guarantee = (
        None if raw_guarantee is None else _whole(where, "guaranteed_after", raw_guarantee, 0)
    )
    if guarantee is None and hazard[-1] == 0.0:
        raise ProfileError(
            f"{where}: field hazard ends at 0, so the launcher could never fire again"
        )
    resets = _flag(where, "reset_on_reload", data.get("reset_on_reload", True))
    return EscalatingProfile(
        **common, hazard=hazard, firing=firing, guaranteed_after=guarantee, reset_on_reload=resets
    )


def _band(where: str, index: int, raw: Any) -> LoadBand:
    field = f"bands[{index}]"
    if not isinstance(raw, dict) or set(raw) - {"min_loaded", "p"}:
        raise ProfileError(
            f"{where}: field {field} must be a table with keys min_loaded and p, got {raw!r}"
        )
    minimum = _whole(where, f"{field}.min_loaded", raw.get("min_loaded"), 0)
    return LoadBand(minimum, probabilities(where, f"{field}.p", raw.get("p")))


def _load_dependent(data: dict[str, Any], where: str, common: dict[str, str]) -> Profile:
    raw = data.get("bands")
    if not isinstance(raw, list) or not raw:
        raise ProfileError(f"{where}: field bands must be a non-empty array of tables ([[bands]])")
    bands = tuple(_band(where, i, item) for i, item in enumerate(raw))
    starts = [b.min_loaded for b in bands]
    if starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:], strict=False)):
        raise ProfileError(
            f"{where}: field bands.min_loaded must start at 0 and increase, got {starts}"
        )
    return LoadDependentProfile(**common, bands=bands)


_BUILDERS: dict[str, Callable[[dict[str, Any], str, dict[str, str]], Profile]] = {
    "iid": _iid,
    "pattern": _pattern,
    "escalating": _escalating,
    "load-dependent": _load_dependent,
}


def profile_from_dict(data: dict[str, Any], where: str) -> Profile:
    """Build a profile from parsed TOML; ``where`` names the file in errors."""
    if data.get("schema") != SCHEMA_VERSION:
        raise ProfileError(
            f"{where}: field schema is {data.get('schema')!r}, expected {SCHEMA_VERSION}"
        )
    kind = data.get("kind")
    if kind is None:
        raise ProfileError(
            f'{where}: field kind is missing; add a line kind = "iid" (or '
            f"{', '.join(repr(k) for k in _BUILDERS if k != 'iid')})"
        )
    if kind not in _BUILDERS:
        raise ProfileError(
            f"{where}: field kind is {kind!r}, expected one of {', '.join(_BUILDERS)}"
        )
    unknown = sorted(set(data) - COMMON_KEYS - KIND_KEYS[kind])
    if unknown:
        allowed = ", ".join(sorted(COMMON_KEYS | KIND_KEYS[kind]))
        raise ProfileError(
            f"{where}: unknown field(s) {', '.join(unknown)} for kind {kind}; expected {allowed}"
        )
    common = {
        "name": str(data.get("name") or Path(where).stem),
        "source": str(data.get("source", "")),
        "description": str(data.get("description", "")),
    }
    return _BUILDERS[kind](data, where, common)


# -- finding and loading --------------------------------------------------------------
def preset_names() -> list[str]:
    """Names of the presets shipped in ``launcher/presets``."""
    return list(_preset_names())


@functools.cache
def _preset_names() -> tuple[str, ...]:
    """The presets folder, listed once: it is package data, not a user's folder."""
    folder = resources.files("launcher") / "presets"
    return tuple(sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml")))


def load_profile(name_or_path: str | Path) -> Profile:
    """A preset by name, or a profile TOML file by path.

    A preset is read and checked once per process (:func:`_preset`): every game of a
    ``simulate`` run opens a ``sim://`` launcher on one, and parsing its TOML was most of
    a table's set-up (docs/performance.md). A file by path is read afresh each time.
    """
    name = str(name_or_path)
    if name in _preset_names():
        return _preset(name)
    return _parsed(*_read_profile_text(name))


@functools.cache
def _preset(name: str) -> Profile:
    """Preset ``name``, parsed once: a profile is frozen, so every caller may share it."""
    return _parsed(*_read_profile_text(name))


def _parsed(text: str, where: str) -> Profile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{where}: not valid TOML ({error})") from None
    return profile_from_dict(data, where)


def _read_profile_text(name_or_path: str) -> tuple[str, str]:
    if name_or_path in _preset_names():
        preset = resources.files("launcher") / "presets" / f"{name_or_path}.toml"
        return preset.read_text(encoding="utf-8"), f"preset {name_or_path}"
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        from hardware.files import read_user_text  # here: a preset needs no file-safety helpers

        return read_user_text(path, what="profile", error=ProfileError), str(path)
    raise ProfileError(
        f"no profile named {name_or_path!r}",
        hint=f"presets: {', '.join(_preset_names())}; or give a path to a .toml file",
    )


# -- writing --------------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(float(value))  # numpy floats repr as np.float64(...), never valid TOML
    if isinstance(value, str):
        import json  # here: only writing a profile needs it, not every sim:// launcher

        return json.dumps(value)
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """The TOML fields of ``profile`` (inverse of :func:`profile_from_dict`)."""
    data: dict[str, Any] = {"schema": SCHEMA_VERSION, "name": profile.name, "kind": profile.kind}
    data.update(source=profile.source, description=profile.description)
    if isinstance(profile, IIDProfile):
        data["p"] = list(profile.probabilities)
    elif isinstance(profile, PatternProfile):
        data.update(cycle=profile.cycle, fires=list(profile.fires), firing=list(profile.firing))
        data["reset_on_reload"] = profile.reset_on_reload
    elif isinstance(profile, EscalatingProfile):
        data.update(hazard=list(profile.hazard), firing=list(profile.firing))
        if profile.guaranteed_after is not None:
            data["guaranteed_after"] = profile.guaranteed_after
        data["reset_on_reload"] = profile.reset_on_reload
    elif isinstance(profile, LoadDependentProfile):
        data["bands"] = [
            {"min_loaded": b.min_loaded, "p": list(b.probabilities)} for b in profile.bands
        ]
    else:
        raise ProfileError(f"cannot write a profile of kind {profile.kind!r}")
    return data


def profile_to_toml(profile: Profile) -> str:
    """TOML text that :func:`load_profile` reads back as an equal profile."""
    lines = []
    bands: list[dict[str, Any]] = []
    for key, value in profile_to_dict(profile).items():
        if key == "bands":
            bands = value
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for band in bands:
        lines += [
            "",
            "[[bands]]",
            f"min_loaded = {band['min_loaded']}",
            f"p = {_toml_value(band['p'])}",
        ]
    return "\n".join(lines) + "\n"


def save_profile(profile: Profile, path: str | Path) -> Path:
    """Write ``profile`` as TOML to ``path`` (atomically); usable as ``sim://?profile=PATH``.

    It replaces ``path``: callers check it first with :func:`hardware.files.check_output`.
    """
    from hardware.files import PathError, atomic_write_text

    target = Path(path)
    try:
        atomic_write_text(target, profile_to_toml(profile))
    except (OSError, PathError) as error:
        raise ProfileError(f"{target}: cannot write profile ({error})") from None
    return target
