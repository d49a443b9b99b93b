"""The table as the checker rebuilds it from events: hands, discard pile, hopper, seats.

Every card movement goes through one of the small methods here, each of which raises a
:class:`Violation` when the log moves a card that is not where the rules put it. This is
what proves "no card created or lost" (rules.md 2.1/3.1/4.1): the sum of hands, pile and
hopper is compared with the deck at every round end.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tests.rules_checker.cards import Card, Violation, parse


@dataclass
class Table:
    """One round's cards and seating, as seen from the log."""

    players: int
    in_play: list[int]
    hands: list[list[str]] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)  # discard pile, top card last
    hopper: list[str] = field(default_factory=list)  # launcher / draw pile, next card first
    direction: int = 1
    active_color: str | None = None
    #: True after a reload: the log names the cards shuffled in, not their (secret) order
    shuffled: bool = False

    @property
    def top(self) -> Card:
        return parse(self.pile[-1])

    def seat_after(self, seat: int, direction: int | None = None) -> int:
        """The next seat still in the round in a direction (1 = left/clockwise)."""
        step = self.direction if direction is None else direction
        nxt = seat
        for _ in range(self.players):
            nxt = (nxt + step) % self.players
            if nxt in self.in_play:
                return nxt
        raise Violation("no seat left in the round")

    def others_in_order(self, actor: int) -> list[int]:
        """Seats in play after ``actor`` in the direction of play, ``actor`` excluded."""
        order, seat = [], actor
        for _ in range(len(self.in_play) - 1):
            seat = self.seat_after(seat)
            order.append(seat)
        return order

    def take_from_hand(self, seat: int, code: str) -> None:
        if code not in self.hands[seat]:
            raise Violation(f"P{seat} plays {code} but holds {sorted(self.hands[seat])}")
        self.hands[seat].remove(code)

    def press(self, seat: int, cards: list[str]) -> None:
        """A launcher press / draw: the cards leave the hopper from its bottom (2.3)."""
        if self.shuffled:
            self._press_shuffled(seat, cards)
            return
        if self.hopper[: len(cards)] != cards:
            raise Violation(
                f"P{seat} receives {cards} but the next cards out are "
                f"{self.hopper[: len(cards) + 2]}"
            )
        del self.hopper[: len(cards)]
        self.hands[seat].extend(cards)

    def _press_shuffled(self, seat: int, cards: list[str]) -> None:
        """A press after a reload: the cards must be in the hopper (their order is secret)."""
        missing = Counter(cards) - Counter(self.hopper)
        if missing:
            raise Violation(f"P{seat} receives {cards} but the hopper holds no {sorted(missing)}")
        for card in cards:
            self.hopper.remove(card)
        self.hands[seat].extend(cards)

    def reload(self, cards: list[str]) -> None:
        """Empty launcher: the pile except its top card is shuffled in (2.3, 3.2, 4.2)."""
        if Counter(cards) != Counter(self.pile[:-1]):
            raise Violation(
                f"reload of {len(cards)} cards is not the discard pile minus its top "
                f"({len(self.pile) - 1} cards) (rules.md 2.3)"
            )
        self.pile = self.pile[-1:]
        self.hopper.extend(cards)
        self.shuffled = True

    def all_cards(self) -> Counter[str]:
        total: Counter[str] = Counter(self.pile) + Counter(self.hopper)
        for hand in self.hands:
            total.update(hand)
        return total
