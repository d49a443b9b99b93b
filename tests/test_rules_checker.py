"""The independent rules checker (tests/rules_checker): it catches each kind of broken
rule in hand-made logs, and the engine's games pass it across every ruleset, player
count, option value and launcher profile (the seeded battery and a hypothesis search).

Battery size and time per CI run: see tests/rules_checker/README.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules_checker import Violation, check_events, check_log
from tests.rules_checker import battery as B
from tests.rules_checker.builder import LogBuilder
from tests.rules_checker.cards import RULESETS, hand_points
from tests.rules_checker.driver import PROFILES, Refused, play_game

# ---------------------------------------------------------------- hand-made logs


def attack_round(
    mutate: Callable[[LogBuilder], None] | None = None, **options: object
) -> LogBuilder:
    """A short legal attack round.

    P1 R3, P2 RH2 (P0 presses twice and is skipped), P1 draws; the test ends it.
    """
    log = LogBuilder(
        "attack",
        [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]],
        "R2",
        front=["Y1", "Y2", "Y3"],
        options=dict(options),
    )
    log.play(1, "R3").add("uno", player=1, by=1, caught=False)
    log.play(2, "RH2").hit(0, "hit2").hit(0, "hit2").add("skip", player=0)
    log.add("uno", player=2, by=2, caught=False)
    log.draw(1, 0)
    if mutate is not None:
        mutate(log)
    return log


def finish(log: LogBuilder, winner: int = 2, last: str = "R6") -> list[dict[str, Any]]:
    log.play(winner, last)
    log.end_round(winner).end_game(winner)
    return log.events


def assert_violation(events: list[dict[str, Any]], *words: str) -> None:
    with pytest.raises(Violation) as caught:
        check_events(events)
    message = str(caught.value)
    for word in words:
        assert word in message, message


def test_a_legal_hand_made_round_passes() -> None:
    assert check_events(finish(attack_round())) == 1


def test_a_card_created_by_a_press_is_caught() -> None:
    log = attack_round()
    log.events[-1].update(cards=["W"], counted=1)  # a Wild that is not next in the launcher
    log.hands[1].append("W")
    assert_violation(finish(log), "receives ['W']")


def test_a_card_lost_at_the_deal_is_caught() -> None:
    log = attack_round()
    log.events[2]["loaded"].pop()
    assert_violation(finish(log), "cards lost")


def test_a_deck_that_differs_from_rules_md_is_caught() -> None:
    log = attack_round()
    log.events[0]["deck"].append("WH4")
    assert_violation(finish(log), "deck of attack differs")


def test_a_card_that_does_not_match_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["B4", "R3"], ["R6", "RH2"]], "R2")
    log.play(1, "B4")
    assert_violation(finish(log), "no colour, number or symbol match")


def test_a_card_not_in_the_hand_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["B4", "R3"], ["R6", "RH2"]], "R2")
    log.play(1, "R8")
    assert_violation(finish(log), "P1 plays R8 but holds")


def test_playing_out_of_turn_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(2, "R6")  # the player left of the dealer (P1) starts
    assert_violation(log.events + [{"type": "round_end"}], "it is P1's turn")


def test_a_hit_on_the_wrong_player_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "RH2").hit(1, "hit2").hit(1, "hit2")
    assert_violation(finish(log), "expected press 1 of 2 by P0")


def test_too_few_presses_are_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "RH2").hit(0, "hit2").add("skip", player=0)
    assert_violation(finish(log), "expected press 2 of 2 by P0")


def test_a_skipped_player_who_plays_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "RH2").presses(0, "hit2", 2).add("skip", player=0)
    log.play(0, "R5")
    assert_violation(finish(log), "P0 was skipped")


def test_a_missing_skip_event_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "RH2").presses(0, "hit2", 2)
    log.draw(1, 0)
    assert_violation(finish(log), "P0 must be skipped")


def test_a_card_acting_on_its_own_player_is_caught() -> None:
    # 3 players, play again: P1 Skip (P2), Skip (P0), then Hit 2 must hit P2, not P1
    log = LogBuilder(
        "attack",
        [["R5", "G7", "Y9"], ["RS", "GS", "GH2"], ["R6", "B1", "B2"]],
        "R2",
        options={"skip_reverse_play_again": "always"},
    )
    log.play(1, "RS").add("skip", player=2).play(1, "GS", "play-again").add("skip", player=0)
    log.play(1, "GH2", "play-again").presses(1, "hit2", 2)
    assert_violation(log.events, "never acts on the player who played it")


def test_a_skip_of_its_own_player_is_caught() -> None:
    log = LogBuilder(
        "attack",
        [["R5", "G7", "Y9", "Y8"], ["RS", "GS", "BS", "B9"], ["R6", "B1", "B2", "B3"]],
        "R2",
        options={"skip_reverse_play_again": "always"},
    )
    log.play(1, "RS").add("skip", player=2).play(1, "GS", "play-again").add("skip", player=0)
    log.play(1, "BS", "play-again").add("skip", player=1)
    assert_violation(log.events, "skips themself")


def test_a_reverse_does_not_undo_a_skip() -> None:
    # 4 players: P1 Skip (P2), Reverse, Reverse: P2 keeps its lost turn, P3 plays next
    hands = [
        ["R5", "G7", "Y9", "Y8"],
        ["RS", "RR", "BR", "G9"],
        ["R6", "B1", "B2", "B3"],
        ["R7", "B5", "B6", "B8"],
    ]
    log = LogBuilder("attack", hands, "R2", options={"skip_reverse_play_again": "always"})
    log.play(1, "RS").add("skip", player=2).play(1, "RR", "play-again").add("reverse", direction=-1)
    log.play(1, "BR", "play-again").add("reverse", direction=1).add("pass", player=1)
    log.play(2, "B1")
    assert_violation(log.events, "P2 was skipped")


def test_play_again_needs_the_option() -> None:
    log = LogBuilder("attack-original", [["R5", "G7"], ["RS", "R3"], ["R6", "B1"]], "R2")
    log.play(1, "RS").add("skip", player=2).play(1, "R3", "play-again")
    assert_violation(log.events, "it is P0's turn")


def test_two_player_reverse_acts_as_a_skip() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["RR", "R3"]], "R2")
    log.play(1, "RR").add("reverse", direction=-1).add("skip", player=0)
    log.play(1, "R3")
    log.end_round(1).end_game(1)
    assert check_events(log.events) == 1
    broken = LogBuilder("attack", [["R5", "G7"], ["RR", "R3"]], "R2")
    broken.play(1, "RR").add("reverse", direction=-1).add("skip", player=0).play(0, "R5")
    assert_violation(broken.events, "P0 was skipped")


def test_a_wrong_uno_penalty_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").add("uno", player=1, by=0, caught=True).hit(1, "uno-penalty")
    log.play(2, "R6")
    assert_violation(log.events, "expected press 2 of 2 by P1 (uno-penalty)")


def test_a_catch_after_the_next_turn_began_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "R6").add("uno", player=1, by=0, caught=True)
    log.presses(1, "uno-penalty", 2)
    assert_violation(log.events, "caught after the next player began")


def test_an_uno_call_with_two_cards_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7", "G8"], ["R3", "B4", "B5"], ["R6", "RH2", "G9"]], "R2")
    log.play(1, "R3").add("uno", player=1, by=1, caught=False)
    assert_violation(log.events, "calls UNO holding 2 cards")


def test_wrong_round_points_are_caught() -> None:
    log = attack_round()
    log.play(2, "R6")
    log.end_round(2, gained=[0, 0, 1])
    assert_violation(log.events, "gained [0, 0, 1]")


def test_a_wrong_game_winner_is_caught() -> None:
    log = attack_round()
    log.play(2, "R6")
    log.end_round(2).end_game(1)
    assert_violation(log.events, "game won by P1")


def test_a_round_end_hand_that_differs_is_caught() -> None:
    log = attack_round()
    log.play(2, "R6")
    log.end_round(2)
    log.events[-1]["hands"][0] = ["R5"]
    assert_violation(log.events, "round_end hand of P0")


def test_a_bad_reload_is_caught() -> None:
    log = attack_round()
    log.add("reload", cards=["W"])
    assert_violation(finish(log), "reload of 1 cards")


def test_the_dealer_must_have_turned_the_highest_number() -> None:
    log = LogBuilder(
        "attack",
        [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]],
        "R2",
        turned={"0": "R2", "1": "B8", "2": "WAA"},
    )
    assert_violation(finish(log, 1, "R3"), "P0 deals but turned R2")


def test_a_first_card_that_must_be_returned_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "WAA")
    assert_violation(log.events, "starter WAA must be returned")


def test_a_first_hit_2_makes_the_player_left_of_the_dealer_press() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "GH2")
    log.presses(1, "hit2", 2).add("skip", player=1).play(2, "RH2")
    log.events.append({"type": "<cut>"})
    assert_violation(log.events, "<cut>")  # got past the start: the first card was applied
    wrong = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "GH2")
    wrong.play(1, "R3")
    assert_violation(wrong.events, "expected press 1 of 2 by P1")


def test_pocket_first_wild_draw_2_must_not_be_returned() -> None:
    log = LogBuilder("pocket", [["R5", "G7"], ["R3", "B4"]], "R2", returned=["W+2"])
    assert_violation(log.events, "W+2 returned to the deck")


def test_a_mega_hit_stack_survives_the_stacker_going_out() -> None:
    def story(presses: int) -> list[dict[str, Any]]:
        hands = [["R5", "G7", "G8"], ["R3", "B9", "RH2"], ["R8", "R7", "GH1"]]
        log = LogBuilder("attack-mega-hit", hands, "R2", options={"mega_hit_stack": True})
        log.play(1, "R3").play(2, "R8").play(0, "R5").draw(1, 0)
        log.play(2, "R7").add("uno", player=2, by=2, caught=False).draw(0, 0)
        log.play(1, "RH2").play(2, "GH1", "stack").presses(0, "hit1", presses).add("skip", player=0)
        log.end_round(2).end_game(2)
        return log.events

    assert check_events(story(3)) == 1
    assert_violation(story(2), "expected press 3 of 3 by P0")


def test_a_wrong_challenge_verdict_is_caught() -> None:
    def story(guilty: bool) -> list[dict[str, Any]]:
        log = LogBuilder(
            "classic", [["R5", "G7"], ["W+4", "R3"], ["R6", "B2"]], "R2", options={"hand_size": 2}
        )
        log.play(1, "W+4").add("color", player=1, color="G")
        log.add("challenge", player=2, accused=1, guilty=guilty, hand=["R3"])
        return log.events

    guilty = LogBuilder("classic", [["R5", "G7"], ["W+4", "R3"], ["R6", "B2"]], "R2")
    guilty.events = story(True)
    guilty.presses(1, "challenge", 4)
    assert_violation(guilty.events, "it is P2's turn", "<end of log>")  # the verdict was right
    assert_violation(story(False), "guilty=False")


def test_trade_hands_cannot_be_the_last_card() -> None:
    log = LogBuilder(
        "attack-original", [["R5", "G7"], ["RTH"], ["R6", "B2"]], "R2", options={"hand_size": 1}
    )
    log.events[2]["hands"] = [["R5"], ["RTH"], ["R6"]]
    log.hands = [["R5"], ["RTH"], ["R6"]]
    log.hopper = ["G7", "B2"] + log.hopper
    log.events[2]["loaded"] = list(log.hopper)
    log.play(1, "RTH").add("target", player=1, target=0).add("trade", player=1, target=0)
    assert_violation(log.events, "cannot go out on a Trade Hands" if False else "Trade Hands")


def test_an_offer_of_a_card_that_does_not_match_is_caught() -> None:
    log = LogBuilder(
        "attack",
        [["R5", "G7", "G8"], ["RS", "B4", "R3"], ["R6", "B1", "B2"]],
        "R2",
        options={"skip_reverse_play_again": "always"},
    )
    log.play(1, "RS").add("skip", player=2)
    log.add("decision", player=1, decision="play_again", moves=["B4", "R3", "pass"])
    log.play(1, "R3", "play-again")
    assert_violation(log.events, "offered B4 (play_again), which does not match")


def test_a_move_that_was_not_offered_is_caught() -> None:
    log = LogBuilder(
        "attack",
        [["R5", "G7", "G8"], ["RS", "B4", "R3"], ["R6", "B1", "B2"]],
        "R2",
        options={"skip_reverse_play_again": "always"},
    )
    log.play(1, "RS").add("skip", player=2)
    log.add("decision", player=1, decision="play_again", moves=["pass"])
    log.play(1, "R3", "play-again")
    assert_violation(log.events, "was offered play_again ['pass']")


def test_a_press_due_for_the_wrong_player_is_caught() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2")
    log.play(1, "R3").play(2, "RH2").add(
        "press_due", player=1, presses=2, reason="hit2", until="count"
    )
    log.presses(0, "hit2", 2)
    assert_violation(log.events, "press_due names P1")


def test_dealer_re_turns_are_replayed() -> None:
    def story(rounds: list[dict[str, str]]) -> list[dict[str, Any]]:
        log = attack_round()
        log.events[1]["rounds"] = rounds
        return finish(log)

    tie = [{"0": "R9", "1": "B9", "2": "G3"}, {"0": "Y7", "1": "Y2"}]
    assert check_events(story(tie)) == 1
    assert_violation(
        story([{"0": "R9", "1": "B9", "2": "G3"}, {"0": "Y2", "1": "Y7"}]),
        "P0 deals, but the turn-ups leave [1]",
    )


def test_discard_all_must_discard_every_card_of_its_colour() -> None:
    log = LogBuilder("attack", [["R5", "G7", "G8"], ["RDA", "R4", "B4"], ["R6", "B1", "B2"]], "R2")
    log.play(1, "RDA").add("discard", player=1, cards=[])
    assert_violation(log.events, "discards [] but holds ['R4']")


def test_wild_all_hit_goes_round_the_table_from_the_left() -> None:
    hands = [["R5", "G7", "G8"], ["WAH", "B4", "B5"], ["R6", "B1", "B2"], ["R7", "Y1", "Y2"]]
    log = LogBuilder("attack-original", hands, "R2")
    log.play(1, "WAH").add("color", player=1, color="B")
    log.hit(3, "all-hit").hit(2, "all-hit").hit(0, "all-hit")
    assert_violation(log.events, "expected press 1 of 1 by P2 (all-hit)")


def test_wild_hit_fire_stops_when_cards_fire() -> None:
    log = LogBuilder(
        "attack-original", [["R5", "G7"], ["WHF", "B4"], ["R6", "B1"]], "R2", front=["Y1", "Y2"]
    )
    log.play(1, "WHF").add("color", player=1, color="B")
    log.hit(2, "hit-fire", cards=[]).hit(2, "hit-fire").hit(2, "hit-fire")
    assert_violation(log.events, "P2 must be skipped")


def test_wild_dip_gives_to_the_next_player() -> None:
    log = LogBuilder("pocket", [["R5", "G7"], ["WD", "B4"], ["R6", "B1"]], "R2")
    log.play(1, "WD").add("color", player=1, color="B").hit(1, "draw")
    log.add("give", player=1, to=0, card="B4")
    assert_violation(log.events, "P1 gives to P0, the next player is P2")


def test_a_reload_while_the_launcher_still_has_cards_is_caught() -> None:
    log = LogBuilder(
        "attack", [["R5", "G7"], ["R3", "B4"], ["R6", "RH2"]], "R2", front=["Y1", "Y2", "Y3"]
    )
    log.play(1, "R3").play(2, "R6")
    log.add("reload", cards=["R3", "R2"])
    log.hopper = log.hopper + ["R3", "R2"]
    log.draw(0, 1)
    assert_violation(log.events, "reloaded while it still held cards")


def test_no_reload_with_a_dry_launcher() -> None:
    log = attack_round(empty_launcher="dry")
    log.add("reload", cards=["R2", "R3"])
    assert_violation(finish(log), "empty_launcher=dry")


def test_a_drawn_card_cannot_be_played_in_uno_attack() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["B3", "B4"], ["R6", "RH2"]], "R2", front=["R8"])
    log.draw(1, 1).play(1, "R8", "drawn")
    assert_violation(log.events, "the turn ends after a press")


def test_draw_until_playable_stops_at_a_playable_card() -> None:
    log = LogBuilder(
        "classic",
        [["R5", "G7"], ["B3", "B4"], ["R6", "B2"]],
        "R2",
        front=["G1", "R8", "Y3"],
        options={"draw_until_playable": True},
    )
    log.draw(1).hit(1, "draw").hit(1, "draw")
    assert_violation(log.events, "keeps drawing after ['G1', 'R8']")


def test_seven_zero_rotates_hands_in_the_direction_of_play() -> None:
    log = LogBuilder(
        "classic", [["R5", "G7"], ["R0", "B4"], ["R6", "B2"]], "R2", options={"seven_zero": True}
    )
    log.play(1, "R0").add("rotate", direction=-1, seats=[0, 1, 2])
    assert_violation(log.events, "hands rotate -1 while play goes 1")


def test_a_jump_in_needs_an_identical_card() -> None:
    log = LogBuilder(
        "classic", [["R5", "G7"], ["R3", "B4"], ["R6", "B2"]], "R2", options={"jump_in": True}
    )
    log.play(1, "R3").play(0, "R5", "jump-in")
    assert_violation(log.events, "jump-in with R5 on R3: not identical")


def test_a_custom_card_runs_the_tables_blocks(tmp_path: Any) -> None:
    path = tmp_path / "revenge.toml"
    path.write_text('effects = ["target", "hit n=3 who=target reason=custom"]\n')
    log = LogBuilder(
        "attack", [["R5", "G7"], ["WC", "B4"], ["R6", "B1"]], "R2", options={"custom": str(path)}
    )
    log.play(1, "WC").add("color", player=1, color="B").add("target", player=1, target=0)
    log.presses(0, "custom", 2)
    log.draw(2, 0)
    assert_violation(log.events, "expected press 3 of 3 by P0")


def test_lowest_scoring_charges_everyone() -> None:
    log = attack_round(scoring="lowest")
    log.play(2, "R6")
    held = [hand_points(hand) for hand in log.hands]  # P0: R5 G7 Y1 Y2 = 15, P1: B4 = 4
    assert held == [15, 4, 0]
    log.end_round(2, gained=held).end_game(2)
    assert check_events(log.events) == 1
    wrong = attack_round(scoring="lowest")
    wrong.play(2, "R6")
    wrong.end_round(2, gained=[0, 0, 24]).end_game(2)
    assert_violation(wrong.events, "lowest scoring")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_simulate_logs_follow_the_rules(ruleset: str, tmp_path: Any) -> None:
    """The CLI's own bots and log writer, end to end: ``uno-attack simulate --log``."""
    log = tmp_path / "games.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "game",
            "simulate",
            "--ruleset",
            ruleset,
            "--players",
            "4",
            "--games",
            "3",
            "--seed",
            "11",
            "--option",
            "target=150",
            "--log",
            str(log),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert check_log(log) == 3


def test_a_wild_attack_attack_cannot_target_its_player() -> None:
    log = LogBuilder("attack", [["R5", "G7"], ["WAA", "B4"], ["R6", "B1"]], "R2")
    log.play(1, "WAA").add("color", player=1, color="B").add("target", player=1, target=1)
    assert_violation(log.events, "aims at P1: a card never acts on its own player")


def test_a_first_reverse_lets_the_dealer_play_first_to_the_right() -> None:
    log = LogBuilder("classic", [["R5", "G7"], ["R3", "B4"], ["R6", "B2"]], "RR")
    log.add("reverse", direction=-1).play(2, "R6")
    assert_violation(log.events, "it is P0's turn")
    ok = LogBuilder("classic", [["R5", "G7"], ["R3", "B4"], ["R6", "B2"]], "RR")
    ok.add("reverse", direction=-1).play(0, "R5").play(2, "R6")
    assert_violation(ok.events, "it is P1's turn", "<end of log>")  # P0 then P2: right


def test_an_innocent_challenger_draws_six_and_is_skipped() -> None:
    log = LogBuilder("classic", [["R5", "G7"], ["W+4", "B3"], ["R6", "B2"]], "R2")
    log.play(1, "W+4").add("color", player=1, color="G")
    log.add("challenge", player=2, accused=1, guilty=False, hand=["B3"])
    log.presses(2, "challenge", 6).add("skip", player=2, reason="challenge")
    log.play(2, "R6")
    assert_violation(log.events, "P2 was skipped")


def test_pocket_first_wild_dip_is_played_as_if_by_the_dealer() -> None:
    log = LogBuilder("pocket", [["R5", "G7"], ["R3", "B4"], ["R6", "B2"]], "WD", front=["Y1"])
    log.add("color", player=1, color="R").hit(0, "draw").add("give", player=0, to=1, card="Y1")
    log.play(1, "R3")
    assert_violation(log.events, "it is P2's turn", "<end of log>")  # P1 played first
    wrong = LogBuilder("pocket", [["R5", "G7"], ["R3", "B4"], ["R6", "B2"]], "WD", front=["Y1"])
    wrong.add("color", player=1, color="R").hit(2, "draw")
    assert_violation(wrong.events, "first Wild Dip: P2 draws")


def test_an_illegal_wild_draw_four_does_not_end_draw_until_playable() -> None:
    # wild_draw_bluff=false: P1 holds a red card, so a drawn W+4 is not playable (3.2)
    options = {"draw_until_playable": True, "wild_draw_bluff": False}
    log = LogBuilder(
        "classic",
        [["R5", "G7"], ["B3", "R4"], ["R6", "B2"]],
        "R2",
        front=["W+4", "B5"],
        options=options,
    )
    log.draw(1).add("pass", player=1)
    assert_violation(log.events, "P1 stops drawing at ['W+4']")
    ok = LogBuilder(
        "classic",
        [["R5", "G7"], ["B3", "R4"], ["R6", "B2"]],
        "R2",
        front=["W+4", "R9"],
        options=options,
    )
    ok.draw(1).hit(1, "draw").add("pass", player=1).play(2, "R6")
    assert_violation(ok.events, "it is P0's turn", "<end of log>")


# ---------------------------------------------------------------- engine battery

CASES = B.cases()
ROUNDS_PER_GAME = 2


def case_id(case: tuple[str, int, str, object]) -> str:
    return "-".join(map(str, case))


def battery_params() -> list[object]:
    return [pytest.param(index, id=case_id(case)) for index, case in enumerate(CASES)]


def run_case(
    index: int,
    case: tuple[str, int, str, object],
    games: int,
    first: int = 0,
    rounds: int | None = ROUNDS_PER_GAME,
) -> int:
    """Play and check seeded games ``first`` .. ``first + games - 1`` of one case.

    ``rounds`` stops each game after that many rounds (None: play it to its end).
    Returns how many games were checked.
    """
    ruleset, players, option, value = case
    options = B.options_for(option, value)
    for game in range(first, first + games):
        seed = B.case_seed(ruleset, players, option, value, game)
        profile = B.launcher_for(index, game)
        try:
            events = play_game(ruleset, players, seed, options, profile, max_rounds=rounds)
        except Refused as refusal:  # a clear refusal naming the option is a legal answer
            assert any(name.split("_cap")[0] in str(refusal) for name in options), refusal
            return 0
        try:
            check_events(events, unfinished_ok=True)
        except Violation as error:
            pytest.fail(f"{case} seed={seed} profile={profile}: {error}")
    return games


@pytest.mark.parametrize("index", battery_params())
def test_engine_games_follow_the_rules(index: int) -> None:
    run_case(index, CASES[index], games=B.GAMES_PER_CASE)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RULES_BATTERY_GAMES"), reason="set RULES_BATTERY_GAMES=N")
def test_engine_games_follow_the_rules_big_battery() -> None:
    """Whole games (to their game_end), with seeds the CI battery does not use."""
    games = int(os.environ["RULES_BATTERY_GAMES"])
    for index, case in enumerate(CASES):
        run_case(index, case, games, first=B.GAMES_PER_CASE, rounds=None)


option_values = st.sampled_from(sorted(B.OPTION_VALUES)).flatmap(
    lambda name: st.tuples(st.just(name), st.sampled_from(B.OPTION_VALUES[name]))
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(RULESETS),
    players=st.integers(2, 10),
    chosen=st.lists(option_values, max_size=4),
    profile=st.sampled_from((None, *PROFILES)),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_setups_follow_the_rules(
    ruleset: str, players: int, chosen: list[tuple[str, object]], profile: str | None, seed: int
) -> None:
    if ruleset == "pocket":
        players = min(players, 5)
    options: dict[str, object] = {"target": B.BASE_TARGET}
    for name, value in chosen:
        options[name] = str(B.CUSTOM_DIR / str(value)) if name == "custom" else value
    try:
        events = play_game(ruleset, players, seed, options, profile, max_rounds=ROUNDS_PER_GAME)
    except Refused as refusal:  # a clear refusal naming an option is a legal answer
        assert any(name.split("_cap")[0] in str(refusal) for name in options), refusal
        return
    check_events(events, unfinished_ok=True)
