"""Creating games: first-card effects, determinism, launchers, events, errors (rules.md 2.2)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from event_checker import check_events
from rig import RecordingLauncher, hits, position

from game import Card, Decision, Game, RulesetError, load_ruleset
from game.core.chance import derive_seed
from game.play.driver import Presser, Table
from launcher.base import DrawPile, ScriptedLauncher


class StarterChance:
    """A seeded chance source that makes ``starter`` the first card turned up."""

    def __init__(self, starter: str, players: int, hand: int) -> None:
        self.rng = random.Random(0)
        self.starter = Card.parse(starter)
        self.dealt = players * hand
        self.calls = 0

    def shuffle(self, cards: list[Any]) -> None:
        self.rng.shuffle(cards)
        self.calls += 1
        if self.calls == 1:  # the deal is the first shuffle (the dealer pick draws cards)
            cards.remove(self.starter)
            cards.insert(len(cards) - self.dealt, self.starter)

    def randrange(self, stop: int) -> int:
        return self.rng.randrange(stop)


def first_card_game(
    ruleset: str, starter: str, players: int = 4, counts: list[int] | None = None
) -> Table:
    rules = load_ruleset(ruleset)
    chance = StarterChance(starter, players, rules.hand_size)
    return Table(Game(rules, players, chance, seed=0), Presser(ScriptedLauncher(counts or [1])))


def left_of(game: Game | Table, seat: int, k: int = 1) -> int:
    return (seat + k) % game.num_players


def test_first_reverse_dealer_plays_first_and_play_goes_right() -> None:
    game = first_card_game("attack", "RR")
    assert game.events[2]["starter"] == "RR"
    assert game.decider == game.dealer and game.direction == -1


def test_first_reverse_with_two_players_acts_as_skip() -> None:
    game = first_card_game("classic", "RR", players=2)
    assert game.decider == game.dealer


def test_first_skip_skips_the_player_left_of_the_dealer() -> None:
    game = first_card_game("attack", "BS")
    assert game.decider == left_of(game, game.dealer, 2)


def test_first_hit_2_left_of_dealer_presses_twice_then_the_next_plays() -> None:
    game = first_card_game("attack", "GH2")
    assert [h[:2] for h in hits(game)] == [(left_of(game, game.dealer), "hit2")] * 2
    assert game.decider == left_of(game, game.dealer, 2)


def test_first_wild_the_player_left_of_the_dealer_chooses_the_colour_then_plays() -> None:
    game = first_card_game("attack", "W")
    assert game.pending is Decision.COLOR and game.decider == left_of(game, game.dealer)
    game.play("color:Y")
    assert game.pending is Decision.TURN and game.decider == left_of(game, game.dealer)


def test_first_wild_all_hit_everyone_but_the_dealer_presses_once_from_the_left() -> None:
    game = first_card_game("attack-original", "WAH")
    game.play("color:R")
    dealer = game.dealer
    assert [h[0] for h in hits(game)] == [left_of(game, dealer, k) for k in (1, 2, 3)]
    assert game.decider == left_of(game, dealer)


def test_first_wild_hit_fire_left_of_dealer_presses_until_it_fires() -> None:
    game = first_card_game("attack-original", "WHF", counts=[0, 0, 1])
    game.play("color:R")
    assert [len(h[2]) for h in hits(game)] == [0, 0, 1]
    assert game.decider == left_of(game, game.dealer, 2)


@pytest.mark.parametrize(
    ("ruleset", "starter"),
    [
        ("attack-original", "GTH"),
        ("attack", "WAA"),
        ("attack", "WH4"),
        ("attack", "WC"),
        ("classic", "W+4"),
    ],
)
def test_cards_the_rules_return_are_put_back_and_another_is_turned(
    ruleset: str, starter: str
) -> None:
    game = first_card_game(ruleset, starter, players=3)
    deal = next(e for e in game.events if e["type"] == "deal")
    assert deal["returned"][0] == starter and deal["starter"] != starter
    check_events(game.events)


def test_first_discard_all_has_no_action() -> None:
    game = first_card_game("attack-mega-hit", "YDA")
    assert game.decider == left_of(game, game.dealer) and not hits(game)


def test_first_draw_two_and_draw_one() -> None:
    game = first_card_game("classic", "B+2")
    assert len(hits(game)) == 2 and game.decider == left_of(game, game.dealer, 2)
    pocket = first_card_game("pocket", "B+1")
    assert len(hits(pocket)) == 1 and pocket.decider == left_of(pocket, pocket.dealer, 2)


# -- determinism and launchers --------------------------------------------------------------------
def _play_out(game: Game, seed: int, moves: int = 400) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_round_over():
            break
        game.play(rng.choice(game.legal_moves()))
    return game.events


def test_same_seed_ruleset_players_and_spec_replay_the_same_events() -> None:
    first = _play_out(Table.new("attack", 4, launcher="sim://?profile=web-game", seed=11), 1)
    again = _play_out(Table.new("attack", 4, launcher="sim://?profile=web-game", seed=11), 1)
    other = _play_out(Table.new("attack", 4, launcher="sim://?profile=web-game", seed=12), 1)
    assert first == again and first != other


def test_the_launcher_seed_is_derived_from_the_game_seed_when_the_spec_has_none() -> None:
    game = Table.new("attack", 3, launcher="sim://", seed=5)
    assert game.launcher.seed == derive_seed(5, "launcher")  # type: ignore[attr-defined]
    explicit = Table.new("attack", 3, launcher="sim://?seed=99", seed=5)
    assert explicit.launcher.seed == 99  # type: ignore[attr-defined]


def test_classic_and_pocket_draw_from_a_pile_that_yields_one_card_per_press() -> None:
    game = Table.new("classic", 3, seed=2)
    assert isinstance(game.launcher, DrawPile)
    _play_out(game, 2, 200)
    assert all(len(e["cards"]) <= 1 for e in game.events if e["type"] == "hit")


def test_any_launcher_object_works_and_every_hit_presses_it() -> None:
    recorder = RecordingLauncher(per_press=2)
    game = Table.new("attack", 3, launcher=recorder, seed=3)
    _play_out(game, 3, 100)
    presses = sum(1 for entry in recorder.log if entry[0] == "press")
    assert presses == sum(1 for e in game.events if e["type"] == "hit") > 0
    assert not recorder.closed  # the game never closes a launcher it did not open


def test_counted_only_launchers_deal_identities_from_the_hopper_model() -> None:
    class CountingLauncher(RecordingLauncher):
        identities_known = False  # like gpio:// and serial://: a sensor counts, the model names

    game = Table.new("attack", 2, launcher=CountingLauncher(), seed=4)
    _play_out(game, 4, 200)
    check_events(game.events)


def test_on_event_sees_each_event_as_it_happens() -> None:
    seen: list[tuple[str, int]] = []
    game: Game | None = None

    def watch(event: dict[str, Any]) -> None:
        seen.append((event["type"], len(game.events) if game else 0))

    game = Table.new("attack", 3, seed=8, on_event=watch)
    _play_out(game, 8, 50)
    assert [t for t, _ in seen] == [e["type"] for e in game.events]
    later = [n for t, n in seen[-20:]]
    assert later == sorted(later)


def test_a_whole_round_log_accounts_for_every_card() -> None:
    game = Table.new("attack", 5, seed=21)
    _play_out(game, 21, 5000)
    checker = check_events(game.events)
    assert checker.hits == sum(1 for e in game.events if e["type"] == "hit")


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ruleset", "players"), [("attack", 11), ("attack", 1), ("pocket", 6), ("classic", 0)]
)
def test_player_counts_outside_the_ruleset_are_clear_errors(ruleset: str, players: int) -> None:
    with pytest.raises(RulesetError, match=f"ruleset {ruleset}"):
        Table.new(ruleset, players)


def test_a_deck_that_cannot_serve_the_hands_is_a_clear_error() -> None:
    with pytest.raises(RulesetError, match="need 56 cards, the deck has 51"):
        Table.new("pocket", 5, options={"hand_size": 11})


def test_unknown_ruleset_and_option_are_clear_errors() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset 'uno-flip'"):
        Table.new("uno-flip")
    with pytest.raises(RulesetError, match="unknown option 'hitfire_cap'"):
        Table.new("attack", options={"hitfire_cap": 3})
    with pytest.raises(RulesetError, match="hit_fire_cap='many'"):
        Table.new("attack", options={"hit_fire_cap": "many"})


def test_named_players_and_positions() -> None:
    game = Table.new("classic", ["ann", "bob"], seed=1)
    assert game.names == ["ann", "bob"] and game.num_players == 2
    rigged = position("classic", ["R1", "B2"], "R5")
    assert rigged.hand(0) == [Card.parse("R1")]


def test_custom_card_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "revenge.toml"
    path.write_text('name = "Revenge"\neffects = ["target", "hit n=3 who=target reason=custom"]\n')
    game = position("attack", ["WC B3", "G5 G6", "Y1 Y2"], "R1", options={"custom": str(path)})
    game.play("WC")
    assert game.pending is Decision.COLOR  # a custom card is a wild: the colour comes first
    game.play("color:B")
    game.play("target:2")
    assert [h[:2] for h in hits(game)] == [(2, "custom")] * 3 and game.decider == 1


def test_default_custom_card_is_a_plain_wild() -> None:
    game = position("attack", ["WC B3", "G5 G6"], "R1")
    game.play("WC")
    game.play("color:G")
    assert not hits(game) and game.decider == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('effects = ["fly"]', "unknown effect block 'fly'"),
        ('effects = ["hit n=99"]', "must be a whole number 1-50"),
        ('effects = ["trade_hands"]', "needs a target block before it"),
        ("effects = []", "non-empty list"),
        ('colour = "red"', "unknown key"),
        ("effects = [", "not valid TOML"),
    ],
)
def test_bad_custom_card_files_name_the_file_and_the_problem(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "card.toml"
    path.write_text(text)
    with pytest.raises(RulesetError, match=message) as info:
        Table.new("attack", options={"custom": str(path)})
    assert str(path) in str(info.value)


def test_missing_custom_card_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="cannot read the custom-card file"):
        Table.new("attack", options={"custom": str(tmp_path / "nope.toml")})


def _dealer_by_the_rule(deck: Any, chance: random.Random, players: int) -> Any:
    """Rules 2.2 written plainly: each contender turns a card off the unturned ones, the
    highest number deals (actions count 0), ties turn again."""
    unturned, contenders = list(deck), list(range(players))
    turned: dict[int, str] = {}
    rounds: list[dict[int, str]] = []
    while len(contenders) > 1 and unturned:
        cards = {seat: unturned.pop(chance.randrange(len(unturned))) for seat in contenders}
        rounds.append({seat: card.code for seat, card in cards.items()})
        turned.update(rounds[-1])
        values = {seat: card.number or 0 for seat, card in cards.items()}
        contenders = [seat for seat in contenders if values[seat] == max(values.values())]
    return contenders[0], turned, rounds


@pytest.mark.parametrize("ruleset", ["classic", "attack", "pocket"])
def test_the_dealer_pick_is_the_rule_written_plainly(ruleset: str) -> None:
    """first_dealer's one-pass loop (docs/performance.md, helper ``setup``) makes the same
    picks from the same draws, ties and their re-turns included."""
    from game.core.table import first_dealer

    rules = load_ruleset(ruleset)
    ties = 0
    for players in range(rules.min_players, rules.max_players + 1):
        for seed in range(300):
            ours, plain = random.Random(seed), random.Random(seed)
            pick = first_dealer(rules.deck, ours, players)
            assert pick == _dealer_by_the_rule(rules.deck, plain, players)
            assert ours.getrandbits(32) == plain.getrandbits(32)
            ties += len(pick[2]) > 1
    assert ties > 0
