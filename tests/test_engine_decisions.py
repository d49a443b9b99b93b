"""Decisions that are not card plays: challenges, stacks, UNO calls and catches, passing a card."""

from __future__ import annotations

import pytest
from event_checker import check_events
from rig import codes, hits, position, types

from game import Decision, IllegalMove, Move
from game.core.moves import MoveKind


# -- Wild Draw Four / Wild Draw 2 challenges (rules.md 3.2, 4.2) -------------------------------
def test_guilty_wild_draw_four_player_draws_four_and_the_challenger_plays_on() -> None:
    game = position("classic", ["W+4 R5 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    assert game.pending is Decision.CHALLENGE and game.decider == 1
    game.play("challenge")
    assert [h[:2] for h in hits(game)] == [(0, "challenge")] * 4
    assert game.events[-5]["guilty"] is True and game.decider == 1 and game.pending is Decision.TURN


def test_innocent_wild_draw_four_challenger_draws_six_and_is_skipped() -> None:
    game = position("classic", ["W+4 B5 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    game.play("challenge")
    assert [h[:2] for h in hits(game)] == [(1, "challenge")] * 6 and game.decider == 2


def test_accepting_a_wild_draw_four_draws_four_and_loses_the_turn() -> None:
    game = position("classic", ["W+4 R5 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    game.play("accept")
    assert [h[:2] for h in hits(game)] == [(1, "draw4")] * 4 and game.decider == 2


def test_number_matches_do_not_make_a_wild_draw_four_illegal() -> None:
    game = position("classic", ["W+4 B1 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    game.play("challenge")
    assert [e["guilty"] for e in game.events if e["type"] == "challenge"] == [False]


def test_without_bluffing_an_illegal_wild_draw_four_is_not_offered() -> None:
    game = position("classic", ["W+4 R5 B2", "G5 G6"], "R1", options={"wild_draw_bluff": False})
    assert Move.parse("W+4") not in game.legal_moves()
    with pytest.raises(IllegalMove, match="no card of the active colour"):
        game.play("W+4")


def test_pocket_wild_draw_2_challenge_is_two_or_four() -> None:
    guilty = position("pocket", ["W+2 R2 G7", "G5 G6", "Y3 Y4"], "R1")
    guilty.play("W+2")
    guilty.play("color:Y")
    guilty.play("challenge")
    assert [h[:2] for h in hits(guilty)] == [(0, "challenge")] * 2
    innocent = position("pocket", ["W+2 B2 G7", "G5 G6", "Y3 Y4"], "R1", color="Y")
    innocent.play("W+2")
    innocent.play("color:R")
    innocent.play("challenge")
    assert [h[:2] for h in hits(innocent)] == [(1, "challenge")] * 4


def test_pocket_dip_into_the_deck_draws_one_and_passes_a_card_to_the_next_player() -> None:
    game = position("pocket", ["WD B2 G7", "G5 G6", "Y3 Y4"], "R1", bottom="B9")
    game.play("WD")
    game.play("color:B")
    assert hits(game) == [(0, "draw", ["B9"])] and game.pending is Decision.GIVE
    assert {str(m) for m in game.legal_moves()} == {"give:B2", "give:G7", "give:B9"}
    game.play("give:G7")
    assert codes(game, 1) == ["G5", "G6", "G7"] and game.decider == 1


# -- stacking --------------------------------------------------------------------------------------
def test_mega_hit_stack_adds_up_and_the_player_who_will_not_stack_presses_the_total() -> None:
    game = position("attack-mega-hit", ["RH2 B3", "GH1 G6", "Y1 Y2", "B8 B9"], "R1")
    game.play("RH2")
    assert game.pending is Decision.STACK and game.decider == 1 and game.stacked == 2
    assert {str(m) for m in game.legal_moves()} == {"GH1", "take"}
    game.play("GH1")
    assert [h[:2] for h in hits(game)] == [(2, "hit1")] * 3 and game.decider == 3


def test_mega_hit_stack_taken_presses_the_stack_and_loses_the_turn() -> None:
    game = position("attack-mega-hit", ["RH2 B3", "GH1 G6", "Y1 Y2"], "R1")
    game.play("RH2")
    game.play("take")
    assert len(hits(game)) == 2 and game.decider == 2


def test_mega_hit_stack_off_means_no_stack_decision() -> None:
    game = position(
        "attack-mega-hit", ["RH2 B3", "GH1 G6", "Y1 Y2"], "R1", options={"mega_hit_stack": False}
    )
    game.play("RH2")
    assert game.pending is Decision.TURN and game.decider == 2


def test_stacking_on_attack_attack_passes_the_stack_on() -> None:
    game = position("attack-mega-hit", ["WAA B3", "GH2 G6", "Y1 Y2", "B1 B2"], "R1")
    game.play("WAA")
    game.play("color:G")
    game.play("target:1")
    assert game.pending is Decision.STACK and game.decider == 1
    game.play("GH2")
    assert [h[:2] for h in hits(game)] == [(2, "hit2")] * 4


def test_classic_draw_stacking_house_rule() -> None:
    game = position("classic", ["R+2 B3", "G+2 G6", "Y1 Y2"], "R1", options={"stack_draws": True})
    game.play("R+2")
    game.play("G+2")
    assert [h[:2] for h in hits(game)] == [(2, "draw2")] * 4 and game.decider == 0


def test_classic_without_stacking_draw_two_cannot_be_passed_on() -> None:
    game = position("classic", ["R+2 B3", "G+2 G6", "Y1 Y2"], "R1")
    game.play("R+2")
    assert len(hits(game)) == 2 and game.decider == 2


# -- UNO ------------------------------------------------------------------------------------------
def test_uno_call_and_catch_are_table_moves_for_any_seat() -> None:
    game = position("attack", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    assert game.uno_pending == 0
    table = {str(m) for m in game.table_moves()}
    assert table == {"uno", "catch:0@1", "catch:0@2"}
    game.play("catch:0@2")
    assert [h[:2] for h in hits(game)] == [(0, "uno-penalty")] * 2
    assert game.events[-3] == {"type": "uno", "player": 0, "by": 2, "caught": True}
    assert game.table_moves() == []


def test_calling_uno_protects_from_a_catch() -> None:
    game = position("attack", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    game.play("uno")
    assert game.table_moves() == []
    with pytest.raises(IllegalMove, match="cannot be caught"):
        game.play("catch:0@1")


def test_the_catch_window_closes_when_the_next_player_begins() -> None:
    game = position("attack", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    game.play("draw")  # seat 1 begins its turn
    assert game.uno_pending is None and game.table_moves() == []


def test_uno_can_be_called_while_the_player_still_chooses_a_colour() -> None:
    game = position("attack", ["W R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("W")
    assert game.pending is Decision.COLOR and game.uno_pending == 0
    game.play("uno")
    game.play("color:R")
    assert types(game)[-2:] == ["uno", "color"]


def test_classic_catch_means_drawing_two() -> None:
    game = position("classic", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    game.play(Move.catch(0, 1))
    assert [len(h[2]) for h in hits(game)] == [1, 1] and len(game.hands[0]) == 3


# -- suggestion penalty, jump-in, 7-0 -------------------------------------------------------------
def test_suggestion_penalty_presses_four_times_when_on() -> None:
    game = position("attack-original", ["R5 R6", "G5 G6"], "R1", options={"suggestion_penalty": 4})
    game.play("penalize:1")
    assert [h[:2] for h in hits(game)] == [(1, "suggestion-penalty")] * 4
    off = position("attack-original", ["R5 R6", "G5 G6"], "R1")
    with pytest.raises(IllegalMove, match="suggestion penalty is off"):
        off.play("penalize:1")


def test_jump_in_with_an_identical_card_out_of_turn() -> None:
    game = position(
        "classic", ["R5 R6", "G5 R1", "Y1 Y2", "B3 B4"], "R1", options={"jump_in": True}
    )
    assert {str(m) for m in game.table_moves()} == {"R1@1"}
    game.play("R1@1")
    assert game.top_card.code == "R1" and game.decider == 2
    assert game.events[-1] == {"type": "play", "player": 1, "card": "R1", "reason": "jump-in"}


def test_seven_zero_seven_trades_with_a_chosen_player_and_zero_rotates_hands() -> None:
    game = position(
        "classic", ["R7 B3", "G5 G6 G8", "Y1 Y2 Y3 Y4"], "R1", options={"seven_zero": True}
    )
    game.play("R7")
    game.play("target:2")
    assert codes(game, 0) == ["Y1", "Y2", "Y3", "Y4"] and codes(game, 2) == ["B3"]
    zero = position("classic", ["R0 B3", "G5", "Y1 Y2"], "R1", options={"seven_zero": True})
    zero.play("R0")
    assert [codes(zero, s) for s in range(3)] == [["Y1", "Y2"], ["B3"], ["G5"]]


# -- the event stream is complete -----------------------------------------------------------------
def test_decision_heavy_positions_still_account_for_every_card() -> None:
    game = position("classic", ["W+4 R5 B2", "G5 G6", "Y1 Y2"], "R1")
    for move in ("W+4", "color:G", "challenge"):
        game.play(move)
    check_events(game.events)


def test_decider_and_pending_describe_who_must_act() -> None:
    game = position("attack", ["WAA B3", "G5 G6", "Y1 Y2"], "R1")
    game.play("WAA")
    assert (game.pending, game.decider, game.current) == (Decision.COLOR, 0, 0)
    assert all(m.kind is MoveKind.COLOR for m in game.legal_moves())
