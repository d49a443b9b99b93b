"""Rulesets are data: deck lists per rules.md tables, options with defaults, effects as blocks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from game import Card, Kind, RulesetError, load_ruleset
from game.core.effects import BLOCKS
from game.core.rulesets import OPTIONS, RULESET_IDS, Step, parse_step


def kinds(ruleset_id: str, **options: object) -> Counter[str]:
    rules = load_ruleset(ruleset_id, options)
    return Counter("number" if c.kind is Kind.NUMBER else c.kind.value for c in rules.deck)


def test_attack_decks_match_table_2_1() -> None:
    assert kinds("attack") == Counter(
        {"number": 72, "H2": 8, "R": 4, "S": 8, "DA": 8, "W": 4, "WAA": 4, "WC": 3, "WH4": 1}
    )
    assert kinds("attack-original") == Counter(
        {"number": 72, "H2": 8, "R": 8, "S": 8, "DA": 4, "TH": 4, "W": 4, "WAH": 2, "WHF": 2}
    )
    assert kinds("attack-mega-hit") == Counter(
        {"number": 72, "H2": 8, "H1": 4, "R": 4, "S": 8, "DA": 8, "W": 4, "WAA": 4}
    )
    for ruleset_id in ("attack", "attack-original", "attack-mega-hit"):
        rules = load_ruleset(ruleset_id)
        assert (
            len(rules.deck) == 112 and Card.parse("R0") not in rules.deck
        )  # no zeros in UNO Attack


def test_classic_deck_is_112_and_the_108_card_deck_is_an_option() -> None:
    assert kinds("classic") == Counter({"number": 76, "+2": 8, "R": 8, "S": 8, "W": 8, "W+4": 4})
    assert len(load_ruleset("classic", {"wilds": 4}).deck) == 108


def test_pocket_deck_is_the_51_named_cards() -> None:
    assert kinds("pocket") == Counter(
        {"number": 36, "+1": 4, "S": 4, "R": 4, "W": 1, "WD": 1, "W+2": 1}
    )
    rules = load_ruleset("pocket")
    assert (rules.hand_size, rules.target, rules.max_players) == (5, 250, 5)


def test_points_follow_the_scoring_tables() -> None:
    attack, classic = load_ruleset("attack"), load_ruleset("classic")
    points = {
        code: attack.card_points(Card.parse(code))
        for code in ("R7", "RS", "RH2", "RDA", "WH4", "WAA", "W")
    }
    assert points == {"R7": 7, "RS": 20, "RH2": 20, "RDA": 30, "WH4": 40, "WAA": 50, "W": 50}
    assert (
        classic.card_points(Card.parse("W+4")) == 50
        and classic.card_points(Card.parse("B+2")) == 20
    )


def test_ruleset_defaults_for_play_again_follow_the_sources() -> None:
    assert load_ruleset("attack").opt("skip_reverse_play_again") == "always"
    assert load_ruleset("attack-original").opt("skip_reverse_play_again") == "two_player_only"
    assert load_ruleset("attack-mega-hit").opt("mega_hit_stack") is True
    assert load_ruleset("classic").opt("stack_draws") is False


def test_every_effect_is_made_of_known_blocks() -> None:
    for ruleset_id in RULESET_IDS:
        rules = load_ruleset(ruleset_id)
        for steps in [*rules.effects.values(), *rules.first_card.values()]:
            assert all(step.name in BLOCKS for step in steps)


def test_options_convert_cli_text_and_reject_bad_values() -> None:
    rules = load_ruleset(
        "classic", {"stack_draws": "yes", "hit_fire_cap": "12", "scoring": "LOWEST"}
    )
    assert (
        rules.opt("stack_draws") is True
        and rules.opt("hit_fire_cap") == 12
        and rules.opt("scoring") == "lowest"
    )
    with pytest.raises(RulesetError, match="expected one of winner, lowest"):
        load_ruleset("classic", {"scoring": "highest"})
    with pytest.raises(RulesetError, match="must be at least 1"):
        load_ruleset("classic", {"hit_fire_cap": 0})
    with pytest.raises(RulesetError, match="expected true/false"):
        load_ruleset("classic", {"jump_in": "maybe"})


def test_every_option_is_documented() -> None:
    text = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    for name, option in OPTIONS.items():
        assert option.doc and f"`{name}`" in text, name


def test_step_text_and_table_forms_are_equal() -> None:
    assert parse_step("hit n=2 who=target", "x") == parse_step(
        {"block": "hit", "n": 2, "who": "target"}, "x"
    )
    assert parse_step("hit 3", "x") == Step("hit", (("n", "3"),))
    with pytest.raises(RulesetError, match="who='nobody'"):
        parse_step("hit who=nobody", "x")
