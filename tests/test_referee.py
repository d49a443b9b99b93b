"""The referee keeps turn, direction, hand sizes and scores from entries and launcher counts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.errors import RulesetError
from game.core.rulesets import load_ruleset
from game.referee.referee import Entry, IllegalEntry, Op, Phase, Referee
from game.tables.prompt import InputRejected, parse_entry
from launcher.base import ScriptedLauncher

PLAYERS = ["Ann", "Sam", "Kim"]
ANN, SAM, KIM = 0, 1, 2


def referee(
    counts: list[int] | None = None,
    ruleset: str = "attack",
    players: list[str] | None = None,
    **options: Any,
) -> Referee:
    """Ann deals; Sam (left of Ann) plays first; the launcher shoots ``counts`` in turn."""
    launcher: ScriptedLauncher[Any] = ScriptedLauncher(counts or [1])
    return Referee(load_ruleset(ruleset, options), players or PLAYERS, launcher)


def enter(ref: Referee, *lines: str) -> Referee:
    for line in lines:
        ref.apply(parse_entry(line, ref.players))
    return ref


def snapshot(ref: Referee) -> str:
    state = ref.state
    return repr(
        (
            state.phase,
            state.current,
            state.direction,
            state.hands,
            state.scores,
            state.top,
            state.color,
            state.exposed,
            state.stack,
            state.discards,
            len(state.presses),
            ref.pile_count,
        )
    )


def test_plays_and_presses_move_the_turn_and_the_hand_counts() -> None:
    ref = enter(referee([2]), "red 7", "red 5")
    assert ref.state.current == KIM and ref.state.hands == [7, 6, 7]
    enter(ref, "press")
    assert ref.state.hands == [7, 6, 9] and ref.state.current == ANN


def test_the_launcher_holds_the_deck_minus_the_hands_and_the_top_card() -> None:
    ref = referee()
    assert ref.pile_count == 112 - 3 * 7 - 1


def test_a_card_that_does_not_match_is_refused_with_the_reason_and_nothing_changes() -> None:
    ref = enter(referee(), "red 7")
    before = snapshot(ref)
    with pytest.raises(IllegalEntry, match="does not match the top card red 7.*active colour red"):
        enter(ref, "blue 5")
    assert snapshot(ref) == before
    enter(ref, "blue 7")  # same number, other colour: fine
    assert ref.state.color is not None and ref.state.color.name == "BLUE"


def test_a_card_the_deck_does_not_have_is_refused() -> None:
    ref = enter(referee(), "red 7")
    with pytest.raises(IllegalEntry, match="attack deck has no red Hit 1"):
        enter(ref, "red hit1")


def test_hit2_fires_twice_for_the_next_player_whose_turn_is_over() -> None:
    ref = enter(referee([1, 3]), "red 7", "red hit2")
    assert [(p.seat, p.counted, p.reason) for p in ref.state.presses] == [
        (KIM, 1, "hit2"),
        (KIM, 3, "hit2"),
    ]
    assert ref.state.hands[KIM] == 11 and ref.state.current == ANN


def test_wild_hit4_chooses_a_colour_and_fires_four_times() -> None:
    ref = enter(referee([0]), "red 7", "wild hit4 green")
    assert [p.seat for p in ref.state.presses] == [KIM] * 4
    assert (
        ref.state.color is not None and ref.state.color.name == "GREEN" and ref.state.current == ANN
    )


def test_attack_attack_hits_the_chosen_player_and_play_moves_on_from_the_attacker() -> None:
    ref = enter(referee([2]), "red 7", "wild attack-attack blue > Ann")
    assert [p.seat for p in ref.state.presses] == [ANN, ANN]
    assert ref.state.hands[ANN] == 11 and ref.state.current == KIM


def test_a_wild_without_colour_or_target_asks_for_them() -> None:
    ref = enter(referee(), "red 7")
    with pytest.raises(IllegalEntry, match="choose a colour"):
        enter(ref, "wild attack-attack > Kim")
    with pytest.raises(IllegalEntry, match="needs a player to aim at"):
        enter(ref, "wild attack-attack red")


def test_all_hit_presses_every_other_player_in_seat_order_each_press_before_the_next() -> None:
    ref = enter(
        referee([1, 0, 2, 0], "attack-original", ["Ann", "Sam", "Kim", "Lee"]),
        "red 7",
        "wild all-hit blue",
    )
    assert [(p.seat, p.counted) for p in ref.state.presses] == [(2, 1), (3, 0), (0, 2)]
    assert ref.state.hands == [9, 6, 8, 7] and ref.state.current == 2


def test_hit_fire_presses_until_cards_fly_then_the_victim_loses_the_turn() -> None:
    ref = enter(referee([0, 0, 0, 4], "attack-original"), "red 7", "wild hit-fire red")
    assert [p.counted for p in ref.state.presses] == [0, 0, 0, 4]
    assert ref.state.hands[KIM] == 11 and ref.state.current == ANN


def test_hit_fire_stops_at_the_documented_cap() -> None:
    ref = enter(referee([0], "attack-original", hit_fire_cap=5), "red 7", "wild hit-fire red")
    assert len(ref.state.presses) == 5 and ref.state.current == ANN


def test_reverse_turns_play_around_and_with_two_players_acts_as_skip() -> None:
    ref = enter(referee(), "red 7", "red reverse")
    assert ref.state.direction == -1
    enter(ref, "done")
    assert ref.state.current == ANN
    duo = enter(referee(players=["Ann", "Sam"]), "red 7", "red reverse")
    assert duo.state.current == SAM  # the same player again


def test_skip_may_be_followed_by_one_more_card_in_the_current_attack_rules() -> None:
    ref = enter(referee(), "red 7", "red skip")
    assert ref.phase is Phase.PLAY_AGAIN and ref.state.current == SAM
    enter(ref, "red 3")
    assert ref.state.current == ANN  # Kim was still skipped
    original = enter(referee(ruleset="attack-original"), "red 7", "red skip")
    assert original.phase is Phase.PLAYING and original.state.current == ANN


def test_discard_all_takes_the_other_cards_of_its_colour() -> None:
    ref = enter(referee(), "red 7", "red discard-all 3")
    assert ref.state.hands[SAM] == 3 and ref.state.discards == 5


def test_trade_hands_swaps_counts_and_cannot_go_out() -> None:
    ref = enter(
        referee(ruleset="attack-original"), "red 7", "red 5", "fix Kim 4", "red trade-hands > Sam"
    )
    assert ref.state.hands == [7, 3, 6]
    enter(ref, "fix Ann 1")
    ref.state.current = ANN
    with pytest.raises(IllegalEntry, match="cannot go out on a Trade Hands"):
        enter(ref, "red trade-hands > Sam")


def test_uno_not_called_is_caught_with_the_penalty_presses() -> None:
    ref = enter(referee([1]), "red 7", "fix Sam 2", "red 5")
    assert ref.state.exposed == SAM
    enter(ref, "catch Sam")
    assert [(p.seat, p.reason) for p in ref.state.presses] == [(SAM, "uno-penalty")] * 2
    assert ref.state.hands[SAM] == 3


def test_uno_called_in_time_cannot_be_caught_and_the_window_closes_with_the_next_turn() -> None:
    ref = enter(referee(), "red 7", "fix Sam 2", "red 5 uno")
    with pytest.raises(IllegalEntry, match="called UNO in time"):
        enter(ref, "catch Sam")
    late = enter(referee(), "red 7", "fix Sam 2", "red 5", "red 6")
    with pytest.raises(IllegalEntry, match="cannot catch Sam"):
        enter(late, "catch Sam")


def test_a_round_ends_on_the_last_card_and_its_hits_still_happen_then_scores_carry() -> None:
    ref = enter(referee([2]), "red 7", "fix Sam 1", "red hit2 uno")
    assert ref.phase is Phase.SCORING and ref.state.hands[KIM] == 11
    with pytest.raises(IllegalEntry, match="Sam went out"):
        ref.apply(Entry(Op.SCORE, points=(10, 5, 40)))
    ref.apply(Entry(Op.SCORE, points=(30, 0, 45)))
    assert ref.state.scores == [0, 75, 0]
    assert ref.phase is Phase.START and ref.state.round_number == 2 and ref.state.dealer == SAM
    assert ref.state.hands == [7, 7, 7]


def test_the_game_ends_at_the_target_and_lowest_scoring_charges_everyone() -> None:
    ref = enter(referee(target=50), "red 7", "fix Sam 1", "red 5")
    ref.apply(Entry(Op.SCORE, points=(30, 0, 45)))
    assert ref.phase is Phase.GAME_OVER and ref.state.winner == SAM
    low = enter(referee(target=50, scoring="lowest"), "red 7", "fix Sam 1", "red 5")
    low.apply(Entry(Op.SCORE, points=(30, 0, 55)))
    assert low.state.scores == [30, 0, 55] and low.state.winner == SAM


def test_an_empty_launcher_is_reloaded_from_the_discard_pile_except_the_top_card() -> None:
    ref = enter(referee([200]), "red 7", "red 5", "press")
    assert ref.pile_count == 0
    enter(ref, "red 3", "red 4")
    told: list[str] = []
    ref.announce = told.append
    enter(ref, "press")
    assert any("launcher is empty" in line and "(3 cards)" in line for line in told)
    assert ref.state.discards == 1


def test_mega_hit_stacks_add_up_and_the_last_player_presses_the_total() -> None:
    ref = enter(referee([1], "attack-mega-hit"), "red 7", "red hit2")
    assert ref.phase is Phase.STACK and ref.state.current == KIM
    with pytest.raises(IllegalEntry, match="can be stacked"):
        enter(ref, "red 5")
    enter(ref, "blue hit2")
    assert ref.state.current == ANN and ref.state.stack == 4
    enter(ref, "press")
    assert [p.seat for p in ref.state.presses] == [ANN] * 4 and ref.state.current == SAM


def test_first_cards_follow_the_rules() -> None:
    hit = enter(referee([1]), "blue hit2")
    assert [p.seat for p in hit.state.presses] == [SAM, SAM] and hit.state.current == KIM
    rev = enter(referee(), "blue reverse")
    assert rev.state.direction == -1 and rev.state.current == ANN
    with pytest.raises(IllegalEntry, match="put it back"):
        enter(referee(), "wild attack-attack red")
    with pytest.raises(IllegalEntry, match="Sam chooses a colour"):
        enter(referee(), "wild")


def test_pile_rulesets_are_not_refereed() -> None:
    with pytest.raises(RulesetError, match="draws from a pile"):
        referee(ruleset="classic")


def test_typed_entries_are_read_loosely_and_mistakes_explained() -> None:
    entry = parse_entry("Wild Attack-Attack → sa", PLAYERS)
    assert entry.card is not None and entry.card.code == "WAA" and entry.seat == SAM
    with pytest.raises(InputRejected, match="Did you mean 'hit2'"):
        parse_entry("red hti2", PLAYERS)
    with pytest.raises(InputRejected, match="Did you mean 'blue'"):
        parse_entry("blu 7", PLAYERS)
    with pytest.raises(InputRejected, match="not a player"):
        parse_entry("catch Zed", PLAYERS)


CANDIDATES = [
    "red 7",
    "red 5",
    "blue 5",
    "red hit2",
    "press",
    "done",
    "red skip",
    "red reverse",
    "wild red",
    "wild attack-attack blue > Kim",
    "wild hit4 green",
    "uno",
    "catch Sam",
    "catch Ann",
    "blue discard-all 1",
    "green 5 uno",
    "fix Ann 1",
    "fix Sam 1",
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(CANDIDATES), max_size=40),
    st.lists(st.integers(0, 4), min_size=1, max_size=6),
)
def test_replaying_the_accepted_entries_rebuilds_the_same_state_and_refusals_change_nothing(
    lines: list[str], counts: list[int]
) -> None:
    live = enter(referee(counts), "red 7")
    accepted = [Entry.from_record(Entry(Op.START, card=live.state.top).to_record())]
    for line in lines:
        entry = parse_entry(line, PLAYERS)
        before = snapshot(live)
        try:
            live.apply(entry)
        except IllegalEntry:
            assert snapshot(live) == before
            continue
        accepted.append(Entry.from_record(entry.to_record()))
        assert all(size >= 0 for size in live.state.hands)
    again = referee(counts)
    for entry in accepted:
        again.apply(entry)
    assert snapshot(again) == snapshot(live)


def test_with_the_gpio_launcher_on_gpiozero_mock_pins_hand_sizes_follow_the_sensor_counts() -> None:
    from launcher.spec import open_launcher

    with open_launcher("gpio://?mock=1&seed=2") as launcher:
        ref = Referee(load_ruleset("attack"), PLAYERS, launcher)
        enter(ref, "red 7", "red hit2", "press")
        counted = [p.counted for p in ref.state.presses]
        assert [p.seat for p in ref.state.presses] == [KIM, KIM, ANN]
        assert ref.state.hands == [7 + counted[2], 6, 7 + counted[0] + counted[1]]
        assert sum(counted) > 0 and not launcher.identities_known


def test_a_wild_customizable_follows_the_tables_own_card_file(tmp_path: Any) -> None:
    card = tmp_path / "revenge.toml"
    card.write_text(
        'name = "Revenge"\n'
        'effects = ["choose_color", "target", "hit n=3 who=target reason=custom"]\n'
    )
    ref = enter(referee([1], custom=str(card)), "red 7")
    with pytest.raises(IllegalEntry, match="needs a player to aim at"):
        enter(ref, "wild customizable green")
    enter(ref, "wild customizable green > Ann")
    assert [(p.seat, p.reason) for p in ref.state.presses] == [(ANN, "custom")] * 3
    assert ref.state.current == KIM


# -- the referee runs the engine's own effect blocks (issue #9) ---------------------------------
def test_the_referee_has_no_effect_code_of_its_own() -> None:
    import game.referee.referee as module
    from game.core.effects import RUNNERS

    assert module.RUNNERS is RUNNERS
    assert not [name for name in vars(Referee) if name.startswith("_b_")]


def test_in_the_referee_the_card_played_again_earns_no_other_play_again() -> None:
    ref = enter(referee(players=["Ann", "Sam", "Kim", "Lou"]), "red 7", "red skip")
    assert ref.phase is Phase.PLAY_AGAIN and ref.state.current == 1
    enter(ref, "red skip")  # the one more card: Lou is skipped too, no third card
    assert ref.phase is Phase.PLAYING and ref.state.current == ANN


def test_in_the_referee_a_stack_survives_the_stacker_going_out() -> None:
    ref = enter(referee([1], "attack-mega-hit"), "fix Kim 1", "red 7", "red hit2")
    assert ref.phase is Phase.STACK and ref.state.current == KIM
    enter(ref, "blue hit2")  # Kim's last card: Ann still presses the stack of 4
    assert [p.seat for p in ref.state.presses] == [ANN] * 4
    assert ref.phase is Phase.SCORING and ref.state.round_winner == KIM


def test_options_the_referee_cannot_apply_are_refused_with_the_reason() -> None:
    with pytest.raises(RulesetError, match="elimination is not supported by the referee"):
        referee(scoring="elimination")
