"""The turn machinery: drawing, hitting and action cards on exact positions (rules.md 2-4)."""

from __future__ import annotations

import pytest
from event_checker import check_events
from rig import codes, hits, position, types

from game import Decision, IllegalMove, Move
from game.core.moves import AimMove, MoveKind


# -- drawing / pressing ----------------------------------------------------------------
def test_attack_press_ends_the_turn_even_when_the_launched_card_is_playable() -> None:
    game = position("attack", ["B2 B3", "G5 G6", "Y1 Y2"], "R1", bottom="R7")
    game.play("draw")
    assert hits(game) == [(0, "draw", ["R7"])]
    assert game.decider == 1 and game.pending is Decision.TURN


def test_a_press_that_yields_nothing_is_normal_and_passes_the_turn() -> None:
    game = position("attack", ["B2 B3", "G5 G6", "Y1 Y2"], "R1", counts=[0])
    game.play("draw")
    assert hits(game) == [(0, "draw", [])] and game.hand_sizes == [2, 2, 2] and game.decider == 1


def test_player_may_choose_not_to_play_a_playable_card() -> None:
    game = position("attack", ["R2 B3", "G5 G6"], "R1")
    assert Move.of(MoveKind.DRAW) in game.legal_moves() and Move.parse("R2") in game.legal_moves()


def test_classic_playable_drawn_card_may_be_played_at_once_but_only_that_card() -> None:
    game = position("classic", ["R2 B3", "G5 G6", "Y1 Y2"], "R1", bottom="R7")
    game.play("draw")
    assert game.pending is Decision.DRAWN and game.decider == 0
    assert set(map(str, game.legal_moves())) == {"R7", "pass"}
    with pytest.raises(IllegalMove, match="only the drawn card"):
        game.play("R2")
    game.play("R7")
    assert game.top_card.code == "R7" and game.decider == 1


def test_classic_unplayable_drawn_card_passes_the_turn() -> None:
    game = position("classic", ["B2 B3", "G5 G6", "Y1 Y2"], "R1", bottom="G9")
    game.play("draw")
    assert (
        game.pending is Decision.TURN and game.decider == 1 and codes(game, 0) == ["B2", "B3", "G9"]
    )


def test_draw_until_playable_stops_at_the_first_playable_card_or_the_cap() -> None:
    game = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        bottom="G9 Y8 R4",
        options={"draw_until_playable": True},
    )
    game.play("draw")
    assert [h[2] for h in hits(game)] == [["G9"], ["Y8"], ["R4"]] and game.drawn_card is not None
    capped = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        bottom="G9 Y8 G4",
        options={"draw_until_playable": True, "draw_until_cap": 2},
    )
    capped.play("draw")
    assert len(hits(capped)) == 2 and capped.decider == 1


# -- action cards ----------------------------------------------------------------------
def test_hit_2_makes_the_next_player_press_twice_and_lose_the_turn() -> None:
    game = position("attack", ["RH2 B3", "G5 G6", "Y1 Y2"], "R1", bottom="B7 B8")
    game.play("RH2")
    assert hits(game) == [(1, "hit2", ["B7"]), (1, "hit2", ["B8"])]
    assert game.decider == 2


def test_skip_skips_and_reverse_reverses() -> None:
    game = position(
        "attack",
        ["RS B3", "G5 G6", "Y1 Y2", "B1 B2"],
        "R1",
        options={"skip_reverse_play_again": "two_player_only"},
    )
    game.play("RS")
    assert game.decider == 2
    game = position(
        "attack",
        ["RR B3", "G5 G6", "Y1 Y2", "B1 B2"],
        "R1",
        options={"skip_reverse_play_again": "two_player_only"},
    )
    game.play("RR")
    assert game.direction == -1 and game.decider == 3


def test_reverse_acts_as_skip_with_two_players() -> None:
    game = position("attack", ["RR B3", "G5 G6"], "R1")
    game.play("RR")
    assert game.decider == 0 and game.pending is Decision.TURN


def test_skip_play_again_always_gives_one_more_play_after_the_skip() -> None:
    game = position(
        "attack",
        ["RS R3 B9", "G5 G6", "Y1 Y2", "B1 B2"],
        "R1",
        options={"skip_reverse_play_again": "always"},
    )
    game.play("RS")
    assert game.pending is Decision.PLAY_AGAIN and game.decider == 0
    assert set(map(str, game.legal_moves())) == {"R3", "pass"}
    game.play("R3")
    assert game.decider == 2  # seat 1 is still skipped
    other = position(
        "attack",
        ["RS R3 B9", "G5 G6", "Y1 Y2"],
        "R1",
        options={"skip_reverse_play_again": "two_player_only"},
    )
    other.play("RS")
    assert other.pending is Decision.TURN and other.decider == 2


def test_discard_all_discards_every_card_of_its_colour_under_itself() -> None:
    game = position("attack", ["RDA R3 R9 B9", "G5 G6"], "R1")
    game.play("RDA")
    assert codes(game, 0) == ["B9"]
    assert [c.code for c in game.discard] == ["R1", "R3", "R9", "RDA"]


def test_discard_all_plays_on_another_discard_all() -> None:
    game = position("attack", ["BDA R9", "G5 G6"], "RDA")
    assert Move.parse("BDA") in game.legal_moves()


def test_trade_hands_swaps_with_the_chosen_player_and_cannot_end_the_round() -> None:
    game = position("attack-original", ["RTH R3 R4", "G5", "Y1 Y2 Y3 Y4"], "R1")
    game.play("RTH")
    assert game.pending is Decision.TARGET
    game.play("target:1")
    assert codes(game, 0) == ["G5"] and codes(game, 1) == ["R3", "R4"]
    last = position("attack-original", ["RTH", "G5 G6"], "R1")
    assert Move.parse("RTH") not in last.legal_moves()
    with pytest.raises(IllegalMove, match="cannot go out on a Trade Hands"):
        last.play("RTH")


def test_wild_all_hit_everyone_else_presses_once_in_seat_order_from_the_left() -> None:
    game = position("attack-original", ["B3 B4", "G5 G6", "Y1 Y2 WAH", "B1 B2"], "R1", current=2)
    game.play("WAH")
    game.play("color:G")
    assert [h[0] for h in hits(game)] == [3, 0, 1] and {h[1] for h in hits(game)} == {"all-hit"}
    assert game.decider == 3


def test_wild_hit_fire_presses_until_cards_fire() -> None:
    game = position("attack-original", ["WHF B4", "G5 G6", "Y1 Y2"], "R1", counts=[0, 0, 2])
    game.play("WHF")
    game.play("color:B")
    assert [len(h[2]) for h in hits(game)] == [0, 0, 2] and game.decider == 2


def test_wild_hit_fire_stops_at_the_documented_cap() -> None:
    game = position("attack-original", ["WHF B4", "G5 G6", "Y1 Y2"], "R1", counts=[0])
    game.play("WHF")
    game.play("color:B")
    assert len(hits(game)) == 50 and game.decider == 2
    capped = position(
        "attack-original",
        ["WHF B4", "G5 G6", "Y1 Y2"],
        "R1",
        counts=[0],
        options={"hit_fire_cap": 7},
    )
    capped.play("WHF")
    capped.play("color:B")
    assert len(hits(capped)) == 7


def test_wild_attack_attack_chosen_player_presses_twice_then_rotation_continues() -> None:
    game = position("attack", ["WAA B4", "G5 G6", "Y1 Y2", "R3 R4"], "R1")
    game.play("WAA")
    assert game.pending is Decision.COLOR
    game.play("color:Y")
    assert game.pending is Decision.TARGET and {m.target for m in game.legal_moves()} == {1, 2, 3}
    game.play("target:3")
    assert [(h[0], h[1]) for h in hits(game)] == [(3, "attack"), (3, "attack")]
    assert game.decider == 1 and game.active_color.value == "Y"  # type: ignore[union-attr]


def test_wild_hit_4_next_presses_four_times() -> None:
    game = position("attack", ["WH4 B4", "G5 G6", "Y1 Y2"], "R1")
    game.play("WH4")
    game.play("color:B")
    assert [h[:2] for h in hits(game)] == [(1, "hit4")] * 4 and game.decider == 2


# -- round end ---------------------------------------------------------------------------
def test_a_round_ending_on_a_hit_card_still_makes_the_victim_press_and_those_cards_score() -> None:
    game = position("attack", ["RH2", "G5", "Y1"], "R1", bottom="B9 B8")
    game.play("RH2")
    assert hits(game) == [(1, "hit2", ["B9"]), (1, "hit2", ["B8"])]
    assert game.is_round_over() and game.round_winner == 0
    assert game.scores == [5 + 9 + 8 + 1, 0, 0]
    check_events(game.events)


def test_going_out_on_a_wild_skips_the_colour_choice() -> None:
    game = position("attack", ["W", "G5", "Y1"], "R1")
    game.play("W")
    assert game.is_round_over() and game.scores[0] == 6


def test_next_round_collects_every_card_and_deals_again() -> None:
    game = position("attack", ["R9", "G5", "Y1"], "R1")
    game.play("R9")
    dealer = game.dealer
    game.start_next_round()
    assert game.round_number == 2 and game.dealer == (dealer + 1) % 3
    assert sum(game.hand_sizes) + len(game.discard) + len(game.pile) == 112
    assert min(game.hand_sizes) == 7 and not game.is_round_over()


def test_lowest_scoring_charges_everyone_and_the_lowest_total_wins() -> None:
    game = position(
        "attack", ["R9", "G5", "Y1 WAA"], "R1", options={"scoring": "lowest", "target": 50}
    )
    game.play("R9")
    assert game.scores == [0, 5, 51] and game.is_game_over() and game.winner == 0


def test_winner_scoring_reaches_the_target() -> None:
    game = position("attack", ["R9", "G5", "Y1 WAA"], "R1", options={"target": 56})
    game.play("R9")
    assert game.scores == [56, 0, 0] and game.is_game_over() and game.winner == 0
    assert game.events[-1]["type"] == "game_end"
    with pytest.raises(IllegalMove, match="game is over"):
        game.play("draw")


# -- the empty launcher ---------------------------------------------------------------------
def test_empty_launcher_reloads_from_the_discard_pile_except_its_top_and_finishes_the_hit() -> None:
    game = position("attack", ["RH2 B3", "G5 G6", "Y1 Y2"], "R1", counts=[500, 1])
    game.play("RH2")  # the first press empties the launcher, the second finds it empty
    assert types(game)[-4:] == ["hit", "reload", "hit", "skip"]
    assert game.events[-3]["cards"] == ["R1"] and hits(game)[-1] == (1, "hit2", ["R1"])
    assert [c.code for c in game.discard] == ["RH2"]
    check_events(game.events)


def test_nothing_to_reload_means_the_press_yields_nothing() -> None:
    game = position("attack", ["RH2 B3", "G5 G6", "Y1 Y2"], "R1")
    game.pile.clear()  # only the top card is on the pile: nothing to reload
    game.play("draw")
    assert hits(game) == [(0, "draw", [])] and "reload" not in types(game) and game.decider == 1


# -- illegal moves ---------------------------------------------------------------------------
def test_illegal_moves_name_the_rule_and_change_nothing() -> None:
    game = position("attack", ["R2 B3", "G5 G6"], "R1")
    before = (repr(game), len(game.events))
    with pytest.raises(IllegalMove, match="matches neither the colour red nor the number"):
        game.play("B3")
    with pytest.raises(IllegalMove, match="does not hold"):
        game.play("Y7")
    with pytest.raises(IllegalMove, match="waits for turn"):
        game.play("color:R")
    with pytest.raises(ValueError):
        game.play("G5")
    assert (repr(game), len(game.events)) == before


def test_moves_can_be_given_as_text() -> None:
    game = position("attack", ["R2 B3", "G5 G6"], "R1")
    game.play(Move.parse("R2"))
    assert game.top_card.code == "R2"


def test_elimination_knocks_out_players_at_the_target_and_skips_their_seats() -> None:
    game = position(
        "attack",
        ["R9", "G5 WAA", "Y1", "B2"],
        "R1",
        options={"scoring": "elimination", "target": 50},
    )
    game.play("R9")
    assert game.eliminated == [False, True, False, False] and game.pending is Decision.ROUND_OVER
    game.start_next_round()
    assert game.hand_sizes[1] == 0 and 1 not in game.seats_in_play
    assert game.in_play == (0, 2, 3) == tuple(game.seats_in_play) and game.hand_size(1) == 0
    assert game.copy().in_play == (0, 2, 3)
    assert all(m.target != 1 for m in game.legal_moves() if isinstance(m, AimMove))


def test_elimination_head_to_head_hand_decides_the_game() -> None:
    game = position(
        "attack",
        ["R9", "G5 WAA", "Y1 WAA", "B2"],
        "R1",
        options={"scoring": "elimination", "target": 50},
    )
    game.play("R9")  # seats 1 and 2 reach 50 and are out: seats 0 and 3 play head to head
    assert game.players_in == 2 and not game.is_game_over()
    game.start_next_round()
    rng_moves = 0
    while not game.is_round_over() and rng_moves < 5000:
        game.play(game.legal_moves()[0])
        rng_moves += 1
    if game.round_winner is not None:
        assert game.is_game_over() and game.winner == game.round_winner
    check_events(game.events)
