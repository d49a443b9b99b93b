"""The launcher abstraction: hopper model, volleys, specs and the simulated backend."""

from __future__ import annotations

import pytest

from launcher import BadSpec, DrawPile, LauncherUnavailable, ScriptedLauncher, open_launcher
from launcher.errors import ProfileError
from launcher.profiles import load_profile, preset_names
from launcher.sim import SimLauncher
from launcher.spec import resolve_spec


def test_hit_yields_bottom_cards_first_and_accounts_for_every_card() -> None:
    launcher: ScriptedLauncher[int] = ScriptedLauncher([2, 0, 3])
    launcher.load(range(6))
    volleys = [launcher.hit() for _ in range(3)]
    assert [v.cards for v in volleys] == [(0, 1), (), (2, 3, 4)]
    assert launcher.peek_hopper() == (5,)
    assert launcher.presses == 3


def test_count_beyond_hopper_is_reported_as_shortfall() -> None:
    launcher: ScriptedLauncher[str] = ScriptedLauncher([5])
    launcher.load(["a", "b"])
    volley = launcher.hit()
    assert volley.cards == ("a", "b")
    assert volley.counted == 5 and volley.shortfall == 3


def test_draw_pile_always_yields_one_card_until_empty() -> None:
    pile: DrawPile[int] = DrawPile()
    pile.load([7, 8])
    assert [pile.hit().cards for _ in range(3)] == [(7,), (8,), ()]


def test_same_seed_replays_same_presses() -> None:
    def run(seed: int) -> list[tuple[int, ...]]:
        launcher: SimLauncher[int] = SimLauncher("web-game", seed=seed)
        launcher.load(range(200))
        return [launcher.hit().cards for _ in range(40)]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_original_1999_pattern_fires_on_listed_presses_and_resets_on_reload() -> None:
    launcher: SimLauncher[int] = SimLauncher("original-1999", seed=1)
    launcher.load(range(500))
    fired = [i + 1 for i in range(13) if launcher.hit().count]
    assert fired == [2, 6, 9, 13]
    launcher.load([])  # opening and closing the hopper restarts the pattern
    assert [launcher.hit().count > 0 for _ in range(2)] == [False, True]


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_loads_and_names_its_source(name: str) -> None:
    profile = load_profile(name)
    assert profile.source


def test_open_launcher_sim_spec_with_options() -> None:
    launcher = open_launcher("sim://?profile=bookmarklet&seed=5")
    assert isinstance(launcher, SimLauncher)
    assert launcher.seed == 5 and launcher.profile.name == "bookmarklet"
    assert "backend=sim" in repr(launcher)


def test_default_seed_is_used_when_spec_has_none() -> None:
    launcher = open_launcher("sim://", default_seed=11)
    assert isinstance(launcher, SimLauncher) and launcher.seed == 11


@pytest.mark.parametrize(
    "spec, message",
    [
        ("sim://?colour=red", "unknown option(s) colour"),
        ("sim://?seed=abc", "not a whole number"),
        ("bogus://", "unknown launcher scheme"),
        ("sim", "has no scheme"),
    ],
)
def test_bad_specs_fail_with_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(BadSpec, match=message.replace("(", r"\(").replace(")", r"\)")):
        open_launcher(spec)


def test_unknown_profile_is_a_profile_error() -> None:
    with pytest.raises(ProfileError, match="no profile named"):
        open_launcher("sim://?profile=nope")


def test_spec_resolution_order() -> None:
    assert resolve_spec("gpio://", {"UNO_ATTACK_LAUNCHER": "emu://"}) == "gpio://"
    assert resolve_spec(None, {"UNO_ATTACK_LAUNCHER": "emu://"}) == "emu://"
    assert resolve_spec(None, {}) == "sim://"


def test_missing_backend_module_is_unavailable_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from launcher import spec

    monkeypatch.setitem(spec.HANDLERS, "gpio", "launcher.not_written_yet:open_spec")
    with pytest.raises(LauncherUnavailable, match="not available"):
        open_launcher("gpio://")


def test_closed_launcher_refuses_presses() -> None:
    launcher: DrawPile[int] = DrawPile()
    launcher.close()
    launcher.close()
    with pytest.raises(Exception, match="closed"):
        launcher.hit()


def test_hit_count_is_a_hit_without_the_volley() -> None:
    """The table's count-only press leaves the launcher as a press would (same stream)."""
    counted, hits = SimLauncher("web-game", seed=9), SimLauncher("web-game", seed=9)
    counted.load(range(60))
    hits.load(range(60))
    for _ in range(50):
        assert counted.hit_count() == hits.hit().counted
        assert counted.peek_hopper() == hits.peek_hopper()
    assert counted.presses == hits.presses and counted.shots == hits.shots
    assert counted.press_meta == hits.press_meta


def test_hit_count_with_a_when_fired_hook_is_a_hit() -> None:
    launcher = ScriptedLauncher([2])
    launcher.load("abc")
    seen: list[tuple[str, ...]] = []
    launcher.when_fired = lambda volley: seen.append(volley.cards)
    assert launcher.hit_count() == 2 and seen == [("a", "b")] and launcher.remaining == 1
