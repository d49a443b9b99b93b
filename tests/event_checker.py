"""An independent replayer of event logs: accounts for every card and checks every play.

It reads only the events (and the rule points table) — never the engine's
state — and rebuilds hands, the discard pile and the launcher's hopper from
them. It raises AssertionError on the first event that does not add up.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from game.core.cards import Card, Kind
from game.core.rulesets import load_ruleset

FREE_PLAYS = {"stack"}  # a stack card may be played on a stack regardless of colour


class EventChecker:
    def __init__(self) -> None:
        self.deck: Counter[str] = Counter()
        self.size = 0
        self.hands: list[list[str]] = []
        self.discard: list[str] = []
        self.launcher: deque[str] = deque()
        self.reloaded: Counter[str] = Counter()  # cards a reload shuffled in (order secret)
        self.active: str | None = None
        self.scores: list[int] = []
        self.points: dict[Kind, int] = {}
        self.scoring = "winner"
        self.plays = 0
        self.hits = 0
        self.cards_launched = 0
        self.rounds = 0
        self.last_drawn: dict[int, list[str]] = {}
        self.finished = False

    # -- driver -------------------------------------------------------------------
    def feed(self, events: list[dict[str, Any]]) -> EventChecker:
        for number, event in enumerate(events):
            handler = getattr(self, f"on_{event['type']}", None)
            if handler is not None:
                try:
                    handler(event)
                except AssertionError as error:
                    raise AssertionError(f"event {number} {event}: {error}") from None
            if self.rounds:
                self.check_count()
        return self

    def check_count(self) -> None:
        held = sum(len(hand) for hand in self.hands)
        total = held + len(self.discard) + len(self.launcher) + self.reloaded.total()
        assert total == self.size, f"{total} cards on the table, the deck has {self.size}"

    def check_total(self) -> None:
        everything = Counter(self.discard) + Counter(self.launcher) + self.reloaded
        for hand in self.hands:
            everything += Counter(hand)
        assert everything == self.deck, (
            f"cards created or lost: {everything - self.deck} / {self.deck - everything}"
        )

    # -- handlers -------------------------------------------------------------------
    def on_game_start(self, e: dict[str, Any]) -> None:
        self.deck = Counter(e["deck"])
        self.size = len(e["deck"])
        rules = load_ruleset(e["ruleset"], {k: v for k, v in e["options"].items() if k != "custom"})
        self.points = dict(rules.points)
        self.scoring = e["options"]["scoring"]
        self.scores = [0] * len(e["players"])
        self.hands = [[] for _ in e["players"]]

    def on_deal(self, e: dict[str, Any]) -> None:
        self.hands = [list(h) for h in e["hands"]]
        self.discard = [e["starter"]]
        self.launcher = deque(e["loaded"])
        self.reloaded = Counter()
        self.active = self._color(e["starter"])
        self.rounds += 1
        self.check_total()

    def on_play(self, e: dict[str, Any]) -> None:
        card, seat = e["card"], e["player"]
        assert card in self.hands[seat], f"seat {seat} played {card} it does not hold"
        if e["reason"] not in FREE_PLAYS:
            assert self._matches(card), (
                f"{card} does not match {self.discard[-1]} / colour {self.active}"
            )
        if e["reason"] == "drawn":
            assert card in self.last_drawn.get(seat, []), (
                "after drawing only a card of the last volley drawn may be played"
            )
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.active = self._color(card)
        self.plays += 1

    def on_color(self, e: dict[str, Any]) -> None:
        self.active = e["color"]

    def on_hit(self, e: dict[str, Any]) -> None:
        cards = e["cards"]
        if self.reloaded:  # after a reload the log keeps which cards, not their order
            assert not Counter(cards) - self.reloaded, f"launcher yielded {cards} it did not hold"
            self.reloaded -= Counter(cards)
            self._took(e["player"], cards)
            return
        front = (
            [self.launcher.popleft() for _ in range(len(cards))]
            if len(self.launcher) >= len(cards)
            else None
        )
        assert front == cards, (
            f"launcher yielded {cards}, its hopper bottom was {list(self.launcher)[: len(cards)]}"
        )
        self._took(e["player"], cards)

    def _took(self, seat: int, cards: list[str]) -> None:
        self.hands[seat] += cards
        self.hits += 1
        self.cards_launched += len(cards)
        if cards:
            self.last_drawn[seat] = list(cards)

    def on_reload(self, e: dict[str, Any]) -> None:
        assert not self.launcher and not self.reloaded, "reloaded a launcher that was not empty"
        assert Counter(e["cards"]) == Counter(self.discard[:-1]), (
            "reload must take the discard pile minus its top"
        )
        self.discard = self.discard[-1:]
        self.reloaded = Counter(e["cards"])
        self.check_total()

    def on_discard(self, e: dict[str, Any]) -> None:
        hand = self.hands[e["player"]]
        for card in e["cards"]:
            assert card in hand, f"discarded {card} not in hand"
            assert self._color(card) == self._color(self.discard[-1]) or self.discard[
                -1
            ].startswith("W")
            hand.remove(card)
        self.discard[-1:-1] = e["cards"]

    def on_trade(self, e: dict[str, Any]) -> None:
        a, b = e["player"], e["target"]
        self.hands[a], self.hands[b] = self.hands[b], self.hands[a]

    def on_rotate(self, e: dict[str, Any]) -> None:
        seats, d = e["seats"], e["direction"]
        old = list(self.hands)
        for i, seat in enumerate(seats):
            self.hands[seats[(i + d) % len(seats)]] = old[seat]

    def on_give(self, e: dict[str, Any]) -> None:
        self.hands[e["player"]].remove(e["card"])
        self.hands[e["to"]].append(e["card"])

    def on_round_end(self, e: dict[str, Any]) -> None:
        self.check_total()
        assert [sorted(h) for h in e["hands"]] == [sorted(h) for h in self.hands], (
            "hands differ at round end"
        )
        held = [sum(self._points(c) for c in hand) for hand in self.hands]
        assert held == e["held"], f"held points {e['held']} != cards in hands {held}"
        winner = e["winner"]
        if winner is not None:
            assert not self.hands[winner], "the round winner still holds cards"
            gained = [0] * len(held)
            if self.scoring == "winner":
                gained[winner] = sum(held)
            else:  # lowest and elimination both charge what each player holds
                gained = held
            self.scores = [s + g for s, g in zip(self.scores, gained, strict=True)]
        assert self.scores == e["scores"], f"scores {e['scores']} != expected {self.scores}"

    def on_game_end(self, e: dict[str, Any]) -> None:
        assert e["scores"] == self.scores
        self.finished = True

    # -- helpers ----------------------------------------------------------------------
    @staticmethod
    def _color(code: str) -> str | None:
        return None if code.startswith("W") else code[0]

    def _matches(self, code: str) -> bool:
        if code.startswith("W"):
            return True
        top = self.discard[-1]
        return code[0] == self.active or (not top.startswith("W") and code[1:] == top[1:])

    def _points(self, code: str) -> int:
        card = Card.parse(code)
        return card.number if card.kind is Kind.NUMBER else self.points[card.kind]  # type: ignore[return-value]


def check_events(events: list[dict[str, Any]]) -> EventChecker:
    return EventChecker().feed(events)
