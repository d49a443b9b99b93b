"""Launcher presses are chance moves: the game stops, the driver presses and feeds ``fired:N``."""

from __future__ import annotations

import pytest
from rig import cards, hits, position

from game import Card, Decision, Game, IllegalMove, Move
from game.play.driver import Table
from hardware.errors import LauncherJam
from launcher.base import ScriptedLauncher


class JammingLauncher(ScriptedLauncher[Card]):
    """Shoots ``counts``; the presses numbered in ``jam_on`` (1-based attempts) jam instead."""

    def __init__(self, counts: list[int], jam_on: tuple[int, ...]) -> None:
        super().__init__(counts)
        self.jam_on = set(jam_on)
        self.attempts = 0

    def _press(self, loaded: int) -> int:
        self.attempts += 1
        if self.attempts in self.jam_on:
            raise LauncherJam("card stuck in the throat")
        return super()._press(loaded)


def chance_game(hands: list[str], top: str, ruleset: str = "attack") -> Game:
    game = Game.new(ruleset, len(hands), seed=1)
    game.set_position([cards(h) for h in hands], Card.parse(top))
    return game


def test_a_hit_stops_at_a_press_decision_owned_by_chance() -> None:
    game = chance_game(["RH2 B3", "G5 G6", "Y1 Y2"], "R1")
    game.play("RH2")
    due = game.press_due
    assert game.pending is Decision.PRESS and due is not None
    assert (due.seat, due.presses, due.reason) == (1, 2, "hit2") and game.legal_moves() == []
    with pytest.raises(IllegalMove, match="fired:N"):
        game.play("draw")
    game.play(Move.fired(0))
    game.play("fired:3")
    assert hits(game)[-1][0] == 1 and len(hits(game)[-1][2]) == 3
    assert game.pending is Decision.TURN and game.decider == 2  # the Hit 2 also skips P1


def test_fired_round_trips_in_notation() -> None:
    assert Move.parse(str(Move.fired(4))) == Move.fired(4)


def test_hit_fire_stops_at_the_first_press_that_shoots() -> None:
    game = chance_game(["WHF B3", "G5 G6", "Y1 Y2"], "R1", "attack-original")
    game.play("WHF")
    game.play("color:B")
    for _ in range(2):
        game.play("fired:0")
    assert game.pending is Decision.PRESS
    game.play("fired:2")
    assert game.pending is Decision.TURN and [len(h[2]) for h in hits(game)] == [0, 0, 2]


@pytest.mark.parametrize(("card", "jam_on"), [("WAH", (2,)), ("WHF", (3,))])
def test_a_jam_mid_effect_leaves_the_game_at_the_pending_press_and_resumes_exactly(
    card: str, jam_on: tuple[int, ...]
) -> None:
    hands = [f"{card} B3", "G5 G6", "Y1 Y2", "R2 R3"]
    clean = position("attack-original", hands, "R1", counts=[0, 0, 0, 1, 1, 1])
    clean.play(card)
    clean.play("color:B")
    device = JammingLauncher([0, 0, 0, 1, 1, 1], jam_on)
    game = position("attack-original", hands, "R1", launcher=device)
    game.play(card)
    with pytest.raises(LauncherJam):
        game.play("color:B")
    assert game.pending is Decision.PRESS
    before = (len(game.events), [list(h) for h in game.hands], list(game.pile))
    assert game.presser is not None
    game.presser.settle(game)  # the jam was cleared: press again
    assert before[0] < len(game.events)
    assert [h[:2] for h in hits(game)] == [h[:2] for h in hits(clean)]
    assert game.hand_sizes == clean.hand_sizes and game.pending is clean.pending


def test_a_fault_handler_answer_is_the_press_outcome() -> None:
    device = JammingLauncher([0], (1,))
    game = position("attack", ["RH2 B3", "G5 G6", "Y1 Y2"], "R1", launcher=device)
    assert game.presser is not None
    game.presser.on_fault = lambda fault: 2
    game.play("RH2")
    assert [len(h[2]) for h in hits(game)] == [2, 0] and game.decider == 2


def test_the_same_seed_replays_the_same_game_through_the_driver() -> None:
    def run(seed: int) -> list[dict[str, object]]:
        game = Table.new("attack", 3, launcher="sim://?profile=web-game", seed=seed)
        for _ in range(60):
            if game.is_round_over():
                break
            game.play(game.legal_moves()[0])
        return game.events

    assert run(5) == run(5)


def test_a_chance_game_fed_the_journaled_counts_equals_the_pressed_game() -> None:
    pressed = Table.new("attack", 3, launcher="sim://?profile=web-game", seed=8)
    counts: list[int] = []
    assert pressed.presser is not None
    pressed.presser.on_outcome = lambda move: counts.append(move.count or 0)
    moves = []
    for _ in range(40):
        if pressed.is_round_over():
            break
        move = pressed.legal_moves()[-1]
        moves.append(move)
        pressed.play(move)
    fed = Game.new("attack", 3, seed=8)
    queue = list(counts)
    for move in moves:
        while fed.pending is Decision.PRESS:
            fed.play(Move.fired(queue.pop(0)))
        fed.play(move)
    while fed.pending is Decision.PRESS:
        fed.play(Move.fired(queue.pop(0)))
    strip = [e for e in pressed.events if e["type"] != "game_start"]
    assert [e for e in fed.events if e["type"] != "game_start"] == strip


@pytest.mark.parametrize("ruleset", ["attack", "attack-original", "attack-mega-hit", "classic"])
def test_random_chance_outcomes_keep_every_card_accounted_for(ruleset: str) -> None:
    import random

    from event_checker import check_events

    rng = random.Random(ruleset)
    for seed in range(6):
        game = Game.new(ruleset, 4, seed=seed, options={"round_turn_limit": 200})
        while not game.is_round_over():
            if game.pending is Decision.PRESS:
                game.play(Move.fired(min(rng.choice([0, 0, 1, 2, 5]), len(game.pile))))
            else:
                game.play(rng.choice(game.legal_moves()))
        checker = check_events(game.events)
        for seat in range(4):
            assert sorted(map(str, game.hands[seat])) == sorted(checker.hands[seat])
