"""Check from the event log alone that every card is accounted for, at every step.

The engine logs every event (`game.events`, or `uno-attack simulate --log FILE` as JSON Lines).
The log is complete enough to follow every card: this ledger rebuilds the hands, the discard
pile and the launcher's hopper from the events only, and after each event checks that together
they are exactly the deck -- nothing created, nothing lost -- and that each round ends with
the hands the engine reports. Handy when you write a new launcher backend or house rule.
"""

import tempfile
from collections import Counter, deque
from pathlib import Path
from typing import Any

from game.play.events import read_jsonl, write_jsonl
from game.play.simulate import SimConfig, play_game

Event = dict[str, Any]


class CardLedger:
    """Where every card is: in a hand, on the discard pile (top last) or in the launcher."""

    def __init__(self, start: Event) -> None:
        self.deck: Counter[str] = Counter(start["deck"])
        self.hands: list[list[str]] = [[] for _ in start["players"]]
        self.pile: list[str] = []
        self.launcher: deque[str] = deque()
        self.shuffled = False  # after a reload the log names the cards, not their (secret) order
        self.dealt = False
        self.checked = 0

    def apply(self, e: Event) -> None:
        kind = e["type"]
        if kind == "deal":
            self.hands = [list(hand) for hand in e["hands"]]
            self.pile, self.launcher = [e["starter"]], deque(e["loaded"])
            self.dealt, self.shuffled = True, False
        elif kind == "play":
            self.hands[e["player"]].remove(e["card"])
            self.pile.append(e["card"])
        elif kind == "hit" and self.shuffled:  # any of the reloaded cards may come out
            for card in e["cards"]:
                assert card in self.launcher, f"launcher shot {card}, which it did not hold"
                self.launcher.remove(card)
            self.hands[e["player"]] += e["cards"]
        elif kind == "hit":  # the launcher yields its bottom cards to the presser
            shot = [self.launcher.popleft() for _ in e["cards"]]
            assert shot == e["cards"], f"launcher shot {e['cards']}, its bottom cards were {shot}"
            self.hands[e["player"]] += shot
        elif kind == "reload":  # the discard pile but its top card, shuffled, into the launcher
            assert Counter(e["cards"]) == Counter(self.pile[:-1]), (
                "reload must take the pile minus its top"
            )
            self.pile = self.pile[-1:]
            self.launcher.extend(e["cards"])
            self.shuffled = True
        elif kind == "discard":  # Discard All: the other cards of its colour go under it
            for card in e["cards"]:
                self.hands[e["player"]].remove(card)
            self.pile[-1:-1] = e["cards"]
        elif kind == "trade":
            a, b = e["player"], e["target"]
            self.hands[a], self.hands[b] = self.hands[b], self.hands[a]
        elif kind == "rotate":  # 7-0: every hand in play moves one seat
            old, seats = list(self.hands), e["seats"]
            for i, seat in enumerate(seats):
                self.hands[seats[(i + e["direction"]) % len(seats)]] = old[seat]
        elif kind == "give":
            self.hands[e["player"]].remove(e["card"])
            self.hands[e["to"]].append(e["card"])
        elif kind == "round_end":
            assert [sorted(h) for h in e["hands"]] == [sorted(h) for h in self.hands], (
                "hands differ"
            )
        if self.dealt:  # before the first deal the cards are still in the box
            self.check()

    def check(self) -> None:
        where = Counter(self.pile) + Counter(self.launcher)
        for hand in self.hands:
            where += Counter(hand)
        assert where == self.deck, f"created {where - self.deck}, lost {self.deck - where}"
        self.checked += 1


def check_log(events: list[Event]) -> int:
    """Check every game in a log; returns how many events were checked."""
    ledger, checked = None, 0
    for event in events:
        if event["type"] == "game_start":
            checked += ledger.checked if ledger else 0
            ledger = CardLedger(event)
        elif ledger is not None and event["type"] != "sim_game":
            ledger.apply(event)
    return checked + (ledger.checked if ledger else 0)


CONFIGS = [
    SimConfig(ruleset="attack", players=4, games=1, seed=1, keep_events=True),
    SimConfig(
        ruleset="attack-mega-hit",
        players=3,
        games=1,
        seed=2,
        bots=("greedy", "random"),
        keep_events=True,
    ),
    SimConfig(
        ruleset="classic",
        players=5,
        games=1,
        seed=3,
        keep_events=True,
        options={"seven_zero": True, "jump_in": True, "stack_draws": True},
    ),
    SimConfig(ruleset="pocket", players=3, games=1, seed=4, keep_events=True),
]

with tempfile.TemporaryDirectory() as folder:
    log = Path(folder) / "events.jsonl"
    with log.open("w", encoding="utf-8") as stream:
        for config in CONFIGS:
            for index in range(config.games):
                write_jsonl(play_game(config, index).events, stream)
    events = read_jsonl(log)
    checked = check_log(events)
    games = sum(1 for e in events if e["type"] == "game_start")
    print(f"{games} games, {len(events)} events in {log.name}")
    print(f"every card accounted for after each of {checked} events")
