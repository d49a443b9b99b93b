"""Profiles: the four kinds, their samplers, the TOML format and its error messages."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from launcher import open_launcher
from launcher.errors import ProfileError
from launcher.profiles import (
    EscalatingProfile,
    IIDProfile,
    LoadBand,
    LoadDependentProfile,
    PatternProfile,
    Profile,
    load_profile,
    preset_names,
    profile_from_dict,
    profile_to_toml,
    save_profile,
)
from launcher.sim import SimLauncher


def _simplex(weights: list[int]) -> tuple[float, ...]:
    total = sum(weights)
    return tuple(w / total for w in weights)


weights = st.lists(st.integers(0, 50), min_size=1, max_size=12).filter(lambda w: sum(w) > 0)
common: dict[str, Any] = {"name": "t", "source": "test", "description": "d"}

profiles = st.one_of(
    weights.map(lambda w: IIDProfile(**common, probabilities=_simplex(w))),
    st.builds(
        lambda cycle, fires, w, resets: PatternProfile(
            **common,
            fires=tuple(sorted({f % cycle + 1 for f in fires})),
            cycle=cycle,
            firing=_simplex(w),
            reset_on_reload=resets,
        ),
        st.integers(1, 100),
        st.lists(st.integers(0, 200), max_size=30),
        weights,
        st.booleans(),
    ),
    st.builds(
        lambda hazard, w, guarantee: EscalatingProfile(
            **common,
            hazard=tuple(sorted(h / 100 for h in hazard)),
            firing=(0.0, *_simplex(w)),
            guaranteed_after=guarantee,
        ),
        st.lists(st.integers(1, 100), min_size=1, max_size=6),
        weights,
        st.one_of(st.none(), st.integers(1, 8)),
    ),
)


@given(profiles)
@settings(max_examples=60, deadline=None)
def test_every_profile_survives_a_toml_round_trip(profile: Profile) -> None:
    assert profile_from_dict(tomllib.loads(profile_to_toml(profile)), "round-trip") == profile


@pytest.mark.parametrize("name", preset_names())
def test_presets_round_trip_and_say_whether_they_are_invented(name: str) -> None:
    profile = load_profile(name)
    assert profile_from_dict(tomllib.loads(profile_to_toml(profile)), name) == profile
    assert (
        "invented" in profile.source
        or "unsourced" in profile.source
        or "measured" in profile.source
    )


def test_load_dependent_profile_round_trips_through_a_file(tmp_path: Path) -> None:
    profile = load_profile("heavy-hopper")
    path = save_profile(profile, tmp_path / "copy.toml")
    assert load_profile(path) == profile
    assert load_profile(str(path)).kind == "load-dependent"


BASE = 'schema = 1\nname = "x"\nsource = "test"\n'
BAD_FILES = [
    ('kind = "iid"\np = [0.5, 0.4]\n', "field p sums to 0.9, expected 1"),
    ('kind = "iid"\np = [1.5, -0.5]\n', "field p[0] is 1.5, expected a probability"),
    ('kind = "iid"\np = []\n', "field p must be a non-empty list"),
    (
        'kind = "banana"\n',
        "field kind is 'banana', expected one of iid, pattern, escalating, load-dependent",
    ),
    ('kind = "iid"\np = [1.0]\ncolour = "red"\n', "unknown field(s) colour for kind iid"),
    (
        'kind = "pattern"\ncycle = 4\nfires = [5]\nfiring = [0, 1]\n',
        "field fires must list press numbers between 1 and 4",
    ),
    (
        'kind = "pattern"\ncycle = -3\nfires = []\nfiring = [1]\n',
        "field cycle is -3, expected a whole number >= 1",
    ),
    (
        'kind = "escalating"\nhazard = [0.5, 0.2]\nfiring = [0, 1]\n',
        "field hazard must never decrease",
    ),
    (
        'kind = "escalating"\nhazard = [0.5]\nfiring = [0.5, 0.5]\n',
        "field firing[0] is 0.5, expected 0",
    ),
    (
        'kind = "escalating"\nhazard = [0.5]\nfiring = [0, 1]\nguaranteed_after = -1\n',
        "field guaranteed_after is -1",
    ),
    (
        'kind = "load-dependent"\n[[bands]]\nmin_loaded = 5\np = [1.0]\n',
        "must start at 0 and increase",
    ),
    (
        'kind = "load-dependent"\n[[bands]]\nmin_loaded = 0\np = [0.2]\n',
        "field bands[0].p sums to 0.2",
    ),
]


@pytest.mark.parametrize("body, message", BAD_FILES)
def test_malformed_files_name_the_file_the_field_and_what_was_expected(
    tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BASE + body, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_wrong_schema_and_broken_toml_are_profile_errors(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text('schema = 2\nkind = "iid"\np = [1.0]\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="field schema is 2, expected 1"):
        load_profile(path)
    path.write_text("schema = = 1", encoding="utf-8")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(path)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_escalating_guarantee_caps_every_drought(seed: int) -> None:
    profile = load_profile("escalating")
    assert isinstance(profile, EscalatingProfile) and profile.guaranteed_after == 4
    sampler = profile.sampler(seed)
    misses = longest = 0
    for _ in range(400):
        misses = 0 if sampler.next(90) else misses + 1
        longest = max(longest, misses)
    assert longest <= 4


def test_escalating_reset_on_reload_restarts_the_drought() -> None:
    profile = EscalatingProfile(**common, hazard=(0.0, 0.0, 1.0), firing=(0.0, 1.0))
    sampler = profile.sampler(1)
    assert [sampler.next(50) for _ in range(3)] == [0, 0, 1]
    sampler.next(50)
    sampler.reset()
    assert [sampler.next(50) for _ in range(3)] == [0, 0, 1]


def test_load_dependent_sampler_uses_the_band_of_the_current_load() -> None:
    profile = LoadDependentProfile(
        **common, bands=(LoadBand(0, (1.0,)), LoadBand(30, (0.0, 0.0, 1.0)))
    )
    sampler = profile.sampler(3)
    assert [sampler.next(load) for load in (0, 29, 30, 90)] == [0, 0, 2, 2]


def test_new_kinds_drive_the_simulated_launcher_from_presets_and_files(tmp_path: Path) -> None:
    launcher = open_launcher("sim://?profile=escalating&seed=2")
    launcher.load(range(300))
    assert sum(launcher.hit().count for _ in range(100)) > 0
    path = save_profile(load_profile("heavy-hopper"), tmp_path / "h.toml")
    sim = open_launcher(f"sim://?profile={path}&seed=2")
    assert isinstance(sim, SimLauncher) and sim.profile.kind == "load-dependent"
