"""The rule-based and casual bots: legal everywhere, replayable, and play like careful people."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from rig import position

from game import Color, Decision, Move, RulesetError
from game.bots import (
    BOT_NAMES,
    CasualBot,
    RuleBot,
    make_bot,
    parse_bot_spec,
    seat_moves,
)
from game.core.engine import Game
from game.core.moves import MoveKind
from game.core.observe import observe
from game.core.rulesets import RULESET_IDS, load_ruleset
from game.play.driver import Table, play_out
from game.play.simulate import SimConfig, play_game, simulate

#: A cheap search so the legality battery stays fast (its strength is tested elsewhere).
CHEAP_SEARCH = "search:iterations=3:depth=25"


def play_checked(game: Game, specs: list[str], seed: int, decisions: int = 250) -> int:
    """Let the bots play up to ``decisions`` moves, asserting each one is legal; returns moves."""
    bots = [make_bot(spec, seed * 10 + s) for s, spec in enumerate(specs)]
    made = 0
    while made < decisions and not game.is_game_over():
        if game.is_round_over():
            game.start_next_round()
            continue
        seat = game.decider
        move = bots[seat].choose(game, seat)
        assert move in game.legal_moves(), (specs[seat], move, game)
        game.play(move)
        made += 1
        table = game.table_moves()
        for s in range(game.num_players):
            own = seat_moves(game, s, table)
            choice = bots[s].table_move(game, s, own) if own else None
            if choice is not None:
                assert choice in own
                game.play(choice)
                table = game.table_moves()
                if game.is_round_over():
                    break
    return made


@pytest.mark.parametrize("ruleset", RULESET_IDS)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_bot_only_makes_legal_moves(ruleset: str, players: int) -> None:
    specs = [
        ["rule", "casual", CHEAP_SEARCH, "greedy", "random"][(s + players) % 5]
        for s in range(players)
    ]
    if players > load_ruleset(ruleset).max_players:
        pytest.skip(f"{ruleset} is for at most {load_ruleset(ruleset).max_players} players")
    game = Table.new(ruleset, players, seed=players * 31 + len(ruleset))
    assert play_checked(game, specs, seed=players, decisions=120) > 0


def test_registry_names_every_bot_and_refuses_unknown_ones() -> None:
    assert BOT_NAMES[0] == "rule"
    for name in BOT_NAMES:
        assert make_bot(name, 1).name == name
    with pytest.raises(RulesetError, match="unknown bot 'smart'"):
        make_bot("smart", 1)
    with pytest.raises(RulesetError, match="not a parameter of casual"):
        make_bot("casual:forgets=0.2", 1)
    with pytest.raises(RulesetError, match="not a number"):
        make_bot("casual:forget_uno=lots", 1)
    with pytest.raises(RulesetError, match="not a probability"):
        make_bot("casual:forget_uno=1.5", 1)
    assert parse_bot_spec("casual:forget_uno=0.3:miss_play=0.2") == (
        "casual",
        {"forget_uno": 0.3, "miss_play": 0.2},
    )


@pytest.mark.parametrize("spec", ["rule", "casual", CHEAP_SEARCH])
def test_the_same_seed_replays_the_same_game(spec: str) -> None:
    config = SimConfig(
        ruleset="attack",
        players=3,
        games=1,
        seed=5,
        bots=(spec,),
        options={"target": 1},
        keep_events=True,
    )
    assert play_game(config, 0).events == play_game(config, 0).events


def test_rule_bot_keeps_wilds_while_it_has_another_card_to_play() -> None:
    game = position("attack", ["W R2 B9 B8", "G5 G6 G7 G8"], "R1")
    assert RuleBot(0).choose(game, 0) == Move.parse("R2")
    only_wild = position("attack", ["W B9 B8", "G5 G6 G7"], "R1")
    assert RuleBot(0).choose(only_wild, 0) == Move.parse("W")


def test_rule_bot_plays_the_colour_it_holds_most() -> None:
    # R2 keeps red (no red left after it); B5 matches the number and turns to blue (2 left)
    game = position("attack", ["R2 B5 B2 B3", "G5 G6 G7 G8"], "R5")
    assert RuleBot(0).choose(game, 0) == Move.parse("B5")
    stay = position("attack", ["R2 R3 R4 B5", "G5 G6 G7 G8"], "R5")
    assert str(RuleBot(0).choose(stay, 0)) in {"R2", "R3", "R4"}


def test_rule_bot_chooses_its_colour_and_aims_wild_attack_attack_at_the_leader() -> None:
    game = position("attack", ["WAA B2 B3 G4", "G5 G6 G7", "Y1 Y2", "R5 R6 R7 R8"], "R1")
    bot = RuleBot(0)
    game.play(bot.choose(game, 0))
    assert bot.choose(game, 0) == Move.choose(Color.BLUE)
    game.play(Move.choose(Color.BLUE))
    assert game.pending is Decision.TARGET and bot.choose(game, 0) == Move.aim(2)


def test_rule_bot_spends_an_attack_wild_to_stop_a_player_about_to_go_out() -> None:
    calm = position("attack", ["WAA R2 B9", "G5 G6 G7", "Y1 Y2 Y3"], "R1")
    assert RuleBot(0).choose(calm, 0) == Move.parse("R2")
    threat = position("attack", ["WAA R2 B9", "G5 G6 G7", "Y1"], "R1")
    assert RuleBot(0).choose(threat, 0) == Move.parse("WAA")


def test_rule_bot_hits_the_next_player_first_when_they_are_close_to_winning() -> None:
    game = position("attack", ["R2 RH2 B9", "G5"], "R1")
    assert RuleBot(0).choose(game, 0) == Move.parse("RH2")


def test_rule_bot_calls_uno_and_catches_a_missed_one() -> None:
    game = position("attack", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    own = seat_moves(game, 0, game.table_moves())
    assert RuleBot(0).table_move(game, 0, own) == Move.parse("uno")
    theirs = seat_moves(game, 1, game.table_moves())
    assert RuleBot(0).table_move(game, 1, theirs) == Move.catch(0, 1)


def test_rule_bot_plays_a_drawn_card_that_fits() -> None:
    game = position("classic", ["B2 B3 G9", "G5 G6"], "R1", bottom="R7")
    game.play("draw")
    assert RuleBot(0).choose(game, 0) == Move.parse("R7")


def test_rule_bot_stacks_a_hit_rather_than_taking_it() -> None:
    game = position("attack-mega-hit", ["RH2 B5 B6", "GH2 G5 G6"], "R1")
    if Move.parse("RH2") not in game.legal_moves():
        pytest.skip("this deck has no H2 stacking")
    game.play("RH2")
    if game.pending is not Decision.STACK:
        pytest.skip("no stack offered in this ruleset")
    assert RuleBot(0).choose(game, 1).kind is MoveKind.PLAY


def casual_slips(param: str, value: float, games: int) -> tuple[int, int]:
    """(slips, chances) of a casual bot over seeded one-round games against rule bots."""
    slips = chances = 0
    for index in range(games):
        bot = CasualBot(index, **{param: value})
        game = Table.new("attack", 3, seed=900 + index, options={"target": 1})
        others = [RuleBot(index * 7 + s) for s in range(3)]
        while not game.is_round_over():
            seat = game.decider
            if seat == 0:
                move = bot.choose(game, 0)
                playable = any(m.kind is MoveKind.PLAY for m in game.legal_moves())
                if param == "miss_play" and game.pending is Decision.TURN and playable:
                    chances += 1
                    slips += move.kind is MoveKind.DRAW
            else:
                move = others[seat].choose(game, seat)
            game.play(move)
            if game.uno_pending == 0 and not game.is_round_over():
                own = seat_moves(game, 0, game.table_moves())
                if param == "forget_uno":
                    chances += 1
                    slips += bot.table_move(game, 0, own) is None
                game.play(Move.catch(0, 1))  # end the window either way (the count is done)
    return slips, chances


@pytest.mark.parametrize(
    ("param", "value", "games"), [("miss_play", 0.3, 30), ("forget_uno", 0.4, 100)]
)
def test_casual_slips_happen_at_the_configured_rate(param: str, value: float, games: int) -> None:
    slips, chances = casual_slips(param, value, games)
    assert chances >= 60
    rate = slips / chances
    tolerance = 3 * (value * (1 - value) / chances) ** 0.5
    assert abs(rate - value) < tolerance, (slips, chances)


def test_casual_with_no_slips_plays_exactly_like_the_rule_bot() -> None:
    def moves(spec: str) -> list[str]:
        config = SimConfig(
            ruleset="attack",
            players=3,
            games=1,
            seed=3,
            bots=(spec,),
            options={"target": 1},
            keep_events=True,
        )
        return [e.get("card", "") for e in play_game(config, 0).events if e["type"] == "play"]

    assert moves("casual:forget_uno=0:miss_play=0:miss_catch=0") == moves("rule")


def test_simulate_seats_rule_bots_by_default_and_rounds_take_tens_of_turns() -> None:
    config = SimConfig(ruleset="attack", players=4, games=4, seed=2)
    summary = simulate(config)
    assert summary["bots"] == ["rule"]
    assert 15 < summary["turns_per_round"] < 120


#: House rules that bring the rarer decisions: targets and trades (seven_zero), stacks,
#: challenges, jump-ins, eliminated seats.
HOUSE_RULES: list[dict[str, object]] = [
    {},
    {"seven_zero": True, "mega_hit_stack": True, "jump_in": True},
    {"scoring": "elimination"},
    {"scoring": "elimination", "stack_draws": True, "draw_until_playable": True},
]


@pytest.mark.parametrize("ruleset", RULESET_IDS)
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("options", HOUSE_RULES)
def test_rule_bot_makes_the_move_of_its_observation_whatever_the_order_offered(
    ruleset: str, players: int, options: dict[str, object]
) -> None:
    """:meth:`RuleBot.choose` decides on the game, not the observation: the same move.

    The same object as :meth:`RuleBot.decide` returns for the seat's observation, and for
    that observation with its hand and its moves reversed (ties go by card, not by place).
    """
    try:
        table = Table.new(ruleset, players, seed=players * 17 + len(ruleset), options=options)
    except RulesetError:
        pytest.skip(f"{ruleset} takes none of {options}")
    bot, decisions = RuleBot(0), Counter[Decision]()

    def checked(game: Game, seat: int) -> Move:
        move = bot.choose(game, seat)
        view = observe(game, seat, history=False)
        assert move is bot.decide(view), (move, view)
        flipped = replace(view, cards=view.cards[::-1], moves=view.moves[::-1])
        assert move is bot.decide(flipped), (move, view)
        decisions[game.pending] += 1
        return move

    play_out(
        table.game,
        [checked] * players,
        table.presser,
        stop=lambda g: sum(decisions.values()) >= 400,
    )
    assert decisions[Decision.TURN] > 10, decisions
