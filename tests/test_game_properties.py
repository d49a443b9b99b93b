"""Invariants over thousands of random games, every ruleset, 2-10 players (pocket 2-5).

Each example plays random legal moves (and random out-of-turn moves) through
whole rounds, then the independent :mod:`event_checker` replays the event log:
no card is ever created or lost, every played card was legal, the launcher
yielded exactly the cards at the bottom of its hopper, and the scores equal
the card values left in the hands.
"""

from __future__ import annotations

import random
from typing import Any

from event_checker import check_events
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from game import Game, IllegalMove
from game.core.moves import MoveKind
from game.play.driver import Table

RULESETS = {"attack": 10, "attack-original": 10, "attack-mega-hit": 10, "classic": 10, "pocket": 5}
PROFILES = ["web-game", "bookmarklet", "irc-bot", "original-1999", "multi-variant-server"]

option_sets = st.fixed_dictionaries(
    {},
    optional={
        "skip_reverse_play_again": st.sampled_from(["always", "two_player_only"]),
        "mega_hit_stack": st.booleans(),
        "stack_draws": st.booleans(),
        "scoring": st.sampled_from(["winner", "lowest", "elimination"]),
        "seven_zero": st.booleans(),
        "jump_in": st.booleans(),
        "draw_until_playable": st.booleans(),
        "wild_draw_bluff": st.booleans(),
        "hit_fire_cap": st.integers(1, 60),
        "empty_launcher": st.sampled_from(["reload", "dry"]),
        "target": st.integers(50, 300),
    },
)


@st.composite
def game_setups(draw: Any) -> tuple[str, int, int, str, dict[str, Any]]:
    ruleset = draw(st.sampled_from(sorted(RULESETS)))
    players = draw(st.integers(2, RULESETS[ruleset]))
    seed = draw(st.integers(0, 2**32))
    profile = draw(st.sampled_from(PROFILES))
    options = draw(option_sets)
    if ruleset not in ("classic", "pocket"):
        options.pop("draw_until_playable", None)  # refused there (rules.md 2.3)
    return ruleset, players, seed, profile, options


def play_randomly(game: Game, rng: random.Random, max_rounds: int) -> int:
    """Random legal moves (and sometimes a table move) until the game ends or ``max_rounds``."""
    moves_made = 0
    while not game.is_game_over():
        if game.is_round_over():
            if game.round_number >= max_rounds:
                break
            game.start_next_round()
            continue
        table = game.table_moves()
        if table and rng.random() < 0.5:
            game.play(rng.choice(table))
            continue
        moves = game.legal_moves()
        assert moves, f"no legal move while waiting for {game.pending}"
        move = rng.choice(moves)
        game.play(move)
        moves_made += 1
    return moves_made


# Shrinking whole games is slow and rarely helps: a failure prints its setup, which replays exactly.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


@settings(
    max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=NO_SHRINK
)
@given(game_setups())
def test_cards_are_conserved_plays_legal_and_scores_add_up(
    setup: tuple[str, int, int, str, dict[str, Any]],
) -> None:
    ruleset, players, seed, profile, options = setup
    spec = None if ruleset in ("classic", "pocket") else f"sim://?profile={profile}"
    options = {
        "round_turn_limit": 300,
        **options,
    }  # random agents can grow hands for ever; keep it fast
    game = Table.new(ruleset, players, launcher=spec, seed=seed, options=options)
    play_randomly(game, random.Random(seed), max_rounds=3)
    checker = check_events(game.events)
    assert checker.scores == game.scores
    assert checker.rounds == game.round_number
    for seat in range(players):
        assert sorted(map(str, game.hands[seat])) == sorted(checker.hands[seat])


@settings(max_examples=60, deadline=None, phases=NO_SHRINK)
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 2**32))
def test_complete_games_reach_the_target_and_name_the_leader(ruleset: str, seed: int) -> None:
    game = Table.new(ruleset, 3, seed=seed, options={"target": 150, "round_turn_limit": 1000})
    play_randomly(game, random.Random(seed), max_rounds=10_000)
    assert game.is_game_over()
    checker = check_events(game.events)
    assert checker.finished
    assert max(game.scores) >= 150 and game.winner == game.scores.index(max(game.scores))


@settings(max_examples=200, deadline=None)
@given(game_setups(), st.data())
def test_an_illegal_move_changes_nothing(
    setup: tuple[str, int, int, str, dict[str, Any]], data: Any
) -> None:
    ruleset, players, seed, _, options = setup
    game = Table.new(ruleset, players, seed=seed, options=options)
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(0, 40))):
        if game.is_round_over():
            break
        game.play(rng.choice(game.legal_moves()))
    if game.is_round_over():
        return
    legal = set(game.legal_moves())
    candidates = [m for m in _all_simple_moves(game) if m not in legal]
    if not candidates:
        return
    move = data.draw(st.sampled_from(candidates))
    before = (repr(game), [list(h) for h in game.hands], list(game.discard), len(game.events))
    try:
        game.play(move)
    except IllegalMove as error:
        assert str(error)
    else:
        raise AssertionError(f"{move} was accepted although not legal")
    assert before == (
        repr(game),
        [list(h) for h in game.hands],
        list(game.discard),
        len(game.events),
    )


def _all_simple_moves(game: Game) -> list[Any]:
    from game.core.cards import all_cards
    from game.core.moves import Move

    out = [Move.play(c) for c in all_cards()]
    out += [
        Move.of(k)
        for k in (MoveKind.DRAW, MoveKind.PASS, MoveKind.TAKE, MoveKind.CHALLENGE, MoveKind.ACCEPT)
    ]
    out += [Move.aim(s) for s in range(game.num_players)]
    return out
