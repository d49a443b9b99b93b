"""Rule bugs an independent check found (issue #9); each test failed before its fix.

Reproduce the originals with ``uno-attack simulate --ruleset attack --players 3 --games 1
--seed 1 --log x.jsonl`` on the commit before the fix and look for a Skip, Skip, Hit 2 chain.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rig import codes, hits, position, types

from game import Decision, RulesetError
from game.core.rulesets import load_ruleset
from game.play.driver import Table

ALWAYS = {"skip_reverse_play_again": "always"}


# -- play again is one more card (rules.md 2.4), never a chain ------------------------------
def test_the_card_played_again_does_not_give_another_play_again() -> None:
    game = position("attack", ["GS GS GH2 B3", "G5 G6", "Y1 Y2"], "G1", options=ALWAYS)
    game.play("GS")
    assert game.pending is Decision.PLAY_AGAIN and game.decider == 0
    game.play("GS")  # the one more card: P2 is skipped too, and the chain ends
    assert game.pending is Decision.TURN and game.decider == 0
    assert [e["player"] for e in game.events if e["type"] == "skip"] == [1, 2]


def test_a_hit_card_never_hits_the_player_who_played_it() -> None:
    game = position("attack", ["GS GS GH2 B3", "G5 G6", "Y1 Y2"], "G1", options=ALWAYS)
    for move in ("GS", "GS", "GH2"):
        game.play(move)
    assert {h[0] for h in hits(game)} == {1}


def test_a_classic_player_never_challenges_their_own_wild_draw_four() -> None:
    game = position("classic", ["GS GS W+4 B3", "G5 G6", "Y1 Y2"], "G1", options=ALWAYS)
    for move in ("GS", "GS", "W+4", "color:B"):
        game.play(move)
    assert game.pending is Decision.CHALLENGE and game.decider == 1


def test_a_reverse_after_skips_does_not_give_a_skipped_player_the_turn() -> None:
    game = position("attack", ["GS GR B3 B4", "G5 G6", "Y1 Y2", "R2 R3"], "G1", options=ALWAYS)
    game.play("GS")  # P1 skipped
    game.play("GR")  # one more card: play goes right from P0
    assert game.decider == 3 and game.pending is Decision.TURN


@pytest.mark.parametrize("players", [3, 4, 6])
def test_in_seeded_games_no_card_acts_on_its_own_player(players: int) -> None:
    for seed in range(4):
        game = Table.new("attack", players, seed=seed, options=ALWAYS)
        actor = None
        while not game.is_game_over() and game.total_turns < 400:
            if game.is_round_over():
                game.start_next_round()
                continue
            mark = len(game.events)
            game.play(game.legal_moves()[0])
            for event in game.events[mark:]:
                if event["type"] == "play":
                    actor = event["player"]
                elif event["type"] == "skip" or (
                    event["type"] == "hit" and event["reason"] in ("hit2", "hit4", "attack")
                ):
                    assert event["player"] != actor, (seed, event)


# -- a Mega Hit stack survives the stacker going out (rules.md 2.3, 2.4) --------------------
def test_a_stack_is_pressed_by_the_next_victim_when_the_stacker_goes_out() -> None:
    game = position(
        "attack-mega-hit",
        ["RH2 B3", "BH2", "Y1 Y2"],
        "R1",
        options={"mega_hit_stack": True},
    )
    game.play("RH2")
    assert game.pending is Decision.STACK and game.decider == 1
    game.play("BH2")  # P1's last card: the stack of 4 still goes on to P2
    assert [h[:2] for h in hits(game)] == [(2, "hit2")] * 4
    assert game.is_round_over() and game.round_winner == 1


# -- draw_until_playable is a draw-pile house rule ------------------------------------------
def test_draw_until_playable_is_refused_on_launcher_rulesets_with_a_reason() -> None:
    with pytest.raises(RulesetError, match="rules.md 2.3"):
        load_ruleset("attack", {"draw_until_playable": True})


def test_draw_until_playable_with_a_launcher_stops_at_a_volley_with_a_playable_card() -> None:
    game = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        counts=[2, 2, 2],
        bottom="R4 G9 Y8 Y7",
        options={"draw_until_playable": True},
    )
    game.play("draw")  # the first volley R4 G9 holds a red 4: stop there and offer it
    assert [h[2] for h in hits(game)] == [["R4", "G9"]] and str(game.drawn_card) == "R4"


def test_draw_until_cap_counts_cards_not_presses() -> None:
    game = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        counts=[2, 2, 2],
        bottom="G9 Y8 G4 Y7 R4",
        options={"draw_until_playable": True, "draw_until_cap": 3},
    )
    game.play("draw")
    assert sum(len(h[2]) for h in hits(game)) == 4 and len(hits(game)) == 2


def test_presses_that_bring_nothing_do_not_count_toward_the_draw_cap() -> None:
    game = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        counts=[0, 0, 1, 1, 1],
        bottom="G9 Y8 R4",
        options={"draw_until_playable": True, "draw_until_cap": 2},
    )
    game.play("draw")
    assert [h[2] for h in hits(game)] == [[], [], ["G9"], ["Y8"]] and game.decider == 1


# -- UNO Pocket's first card: a wild action applies (rules.md 4.2) --------------------------
def test_pocket_first_wild_draw_2_or_dip_is_not_returned_and_acts() -> None:
    seen = set()
    for seed in range(400):
        game = Table.new("pocket", 3, seed=seed)
        deal = next(e for e in game.events if e["type"] == "deal")
        assert not {"W+2", "WD"} & set(deal["returned"]), seed
        if deal["starter"] == "W+2" and "W+2" not in seen:
            seen.add("W+2")
            game.play(game.legal_moves()[0])  # the player left of the dealer names the colour
            first = (deal["dealer"] + 1) % 3
            assert [h[:2] for h in hits(game)] == [(first, "draw2")] * 2
            assert game.decider == (first + 1) % 3 and game.pending is Decision.TURN
        if deal["starter"] == "WD" and "WD" not in seen:
            seen.add("WD")
            assert game.pending is Decision.COLOR
    assert seen == {"W+2", "WD"}


# -- the log lets anyone check the game --------------------------------------------------------
def test_an_accepted_wild_draw_four_and_an_innocent_challenge_emit_skips() -> None:
    game = position("classic", ["W+4 B1 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    game.play("accept")
    assert {"type": "skip", "player": 1, "reason": "accept"} in game.events
    game = position("classic", ["W+4 B1 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    game.play("color:G")
    game.play("challenge")
    assert {"type": "skip", "player": 1, "reason": "challenge"} in game.events


def test_every_dealer_pick_turn_up_is_logged() -> None:
    for seed in range(40):
        game = Table.new("attack", 6, seed=seed)
        dealer = game.events[1]
        assert dealer["type"] == "dealer" and len(dealer["rounds"][0]) == 6
        if len(dealer["rounds"]) > 1:
            assert set(dealer["rounds"][1]) < set(dealer["rounds"][0])
            return
    pytest.fail("no seed with a tie")


def test_the_custom_card_file_contents_are_in_the_header(tmp_path: Path) -> None:
    path = tmp_path / "card.toml"
    path.write_text('effects = ["hit n=2 who=next", "skip"]\n')
    game = Table.new("attack", 3, seed=1, options={"custom": str(path)})
    start = game.events[0]
    assert start["custom"] == ["choose_color", "hit n=2 who=next", "skip"]
    assert start["custom_file"] == path.read_text()


def test_the_decisions_offered_are_logged() -> None:
    game = position("classic", ["W+4 B1 B2", "G5 G6", "Y1 Y2"], "R1")
    game.play("W+4")
    offered = [e for e in game.events if e["type"] == "decision"]
    assert offered[-1] == {
        "type": "decision",
        "player": 0,
        "decision": "color",
        "moves": ["color:R", "color:B", "color:G", "color:Y"],
    }
    game.play("color:G")
    assert game.events[-1]["decision"] == "challenge" and "challenge" in game.events[-1]["moves"]


def test_codes_helper_is_used() -> None:  # keeps the helper import honest
    game = position("attack", ["B3", "G5"], "R1")
    assert codes(game, 0) == ["B3"] and "deal" in types(game)


def test_a_turn_limit_round_ends_after_exactly_that_many_turns() -> None:
    game = Table.new("attack", 3, seed=4, options={"round_turn_limit": 10})
    while not game.is_round_over():
        game.play(game.legal_moves()[-1])
    end = next(e for e in game.events if e["type"] == "round_end")
    played = sum(e["type"] in ("draw",) or e.get("reason") == "turn" for e in game.events)
    assert end["reason"] == "turn-limit" and end["turns"] == 10 == played


def test_draw_until_playable_gives_up_after_hit_fire_cap_empty_presses() -> None:
    game = position(
        "classic",
        ["B2 B3", "G5 G6"],
        "R1",
        counts=[0],
        options={"draw_until_playable": True, "draw_until_cap": 1, "hit_fire_cap": 5},
    )
    game.play("draw")
    assert len(hits(game)) == 5 and game.decider == 1
