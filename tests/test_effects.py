"""Each building block on its own, composed into a Wild Customizable from a TOML file."""

from __future__ import annotations

from pathlib import Path

import pytest
from rig import codes, hits, position, types

from game import Decision, RulesetError
from game.core.effects import BLOCKS, check_step
from game.core.rulesets import Step


def custom(tmp_path: Path, effects: str, hands: list[str], **kw: object):  # type: ignore[no-untyped-def]
    path = tmp_path / "card.toml"
    path.write_text(f"effects = [{effects}]\n")
    return position("attack", hands, "R1", options={"custom": str(path)}, **kw)  # type: ignore[arg-type]


def test_hit_self_and_draw_make_the_player_of_the_card_press(tmp_path: Path) -> None:
    game = custom(
        tmp_path, '"hit n=1 who=self reason=oops", "draw n=2"', ["WC B3", "G5 G6", "Y1 Y2"]
    )
    game.play("WC")
    game.play("color:B")
    assert [h[:2] for h in hits(game)] == [(0, "oops"), (0, "draw"), (0, "draw")]


def test_everyone_hits_n_times_in_seat_order(tmp_path: Path) -> None:
    game = custom(tmp_path, '"everyone_hits n=2"', ["B3 WC", "G5 G6", "Y1 Y2", "R2 R3"])
    game.play("WC")
    game.play("color:B")
    assert [h[0] for h in hits(game)] == [1, 1, 2, 2, 3, 3]


def test_hit_until_fire_at_a_target(tmp_path: Path) -> None:
    game = custom(
        tmp_path,
        '"target", "hit_until_fire who=target"',
        ["WC B3", "G5 G6", "Y1 Y2"],
        counts=[0, 0, 0, 1],
    )
    game.play("WC")
    game.play("color:B")
    game.play("target:2")
    assert [h[0] for h in hits(game)] == [2, 2, 2, 2] and len(hits(game)[-1][2]) == 1


def test_discard_color_on_a_wild_uses_the_chosen_colour(tmp_path: Path) -> None:
    game = custom(tmp_path, '"choose_color", "discard_color"', ["WC G1 G2 B3", "G5 G6"])
    game.play("WC")
    game.play("color:G")
    assert codes(game, 0) == ["B3"] and [c.code for c in game.discard][-3:] == ["G1", "G2", "WC"]


def test_reverse_skip_and_pass_card_compose(tmp_path: Path) -> None:
    game = custom(tmp_path, '"reverse", "skip", "pass_card"', ["WC B3 B4", "G5", "Y1", "R2"])
    game.play("WC")
    game.play("color:B")
    assert game.pending is Decision.GIVE
    game.play("give:B4")
    # reversed, seat 3 skipped: "next" counts from the turn pointer, so seat 2 gets the card
    assert codes(game, 2) == ["Y1", "B4"] and codes(game, 3) == ["R2"]
    assert game.decider == 2 and game.direction == -1


def test_rotate_hands_moves_every_hand_one_seat_along(tmp_path: Path) -> None:
    game = custom(tmp_path, '"rotate_hands"', ["WC B3", "G5", "Y1 Y2"])
    game.play("WC")
    game.play("color:B")
    assert [codes(game, s) for s in range(3)] == [["Y1", "Y2"], ["B3"], ["G5"]]
    assert "rotate" in types(game)


def test_every_block_has_a_checker_entry_and_rejects_unknown_arguments() -> None:
    for name in BLOCKS:
        check_step(Step(name), "test")
    with pytest.raises(RulesetError, match="has no argument 'n'"):
        check_step(Step("skip", (("n", "2"),)), "test")
