"""The replayer core: reads one game's events in order and checks the flow of play.

It is written as a recursive-descent reader: the code says what the rules allow next
("P2 plays or draws", "P3 presses twice") and pulls events from a cursor. Events that
may come at any moment (UNO calls and catches, launcher reloads) are handled by the
cursor itself. Card effects live in :mod:`tests.rules_checker.families`.

Only rules.md, docs/notation.md and the event format were read to write this.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.rules_checker.cards import (
    LAUNCHER_RULESETS,
    Card,
    Violation,
    deck_for,
    matches,
    parse,
)
from tests.rules_checker.offers import answer_after, check_offer
from tests.rules_checker.table import Table

Event = dict[str, Any]


@dataclass
class Chain:
    """One player's turn as it resolves: who acts and whom it already skipped.

    ``skipped`` is local to the chain: a skipped seat loses the coming turn (rules.md
    2.4 "next player loses their turn"), whatever Reverses follow in the same chain.
    """

    actor: int
    skipped: list[int] = field(default_factory=list)
    lenient_skips: bool = False


@dataclass
class Played:
    """What the checker needs to know about a card just laid on the pile."""

    card: Card
    seat: int
    top_before: Card
    color_before: str | None
    hand_before: list[str]


class Replay:
    """Base replayer: cursor, presses, UNO, turn order. Subclasses add card effects."""

    def __init__(self, events: list[Event], start: Event) -> None:
        self.events = events
        self.pos = 0
        self.ruleset: str = start["ruleset"]
        self.players = len(start["players"])
        self.options: dict[str, Any] = dict(start.get("options") or {})
        self.pile_mode = "pile" in str(start.get("launcher", "")).lower() or (
            start.get("launcher") is None and self.ruleset not in LAUNCHER_RULESETS
        )
        self.deck = deck_for(self.ruleset, self.options.get("wilds"))
        self.table = Table(self.players, list(range(self.players)))
        self.out: int | None = None  # the seat that went out this round
        self.called: set[int] = set()
        self.catchable: set[int] = set()
        self.must_exhaust = 0
        self.due: Event | None = None  # the last press_due announcement, checked by presses()

    def stack_cards(self) -> set[str]:
        """Ranks a victim may stack (none unless a stacking option is on)."""
        return set()

    def playable(self, code: str, seat: int) -> bool:
        return matches(parse(code), self.table.top, self.table.active_color)

    # ---- options -------------------------------------------------------------------
    def opt(self, name: str, default: Any) -> Any:
        value = self.options.get(name)
        return default if value is None else value

    # ---- cursor --------------------------------------------------------------------
    def peek(self) -> Event:
        """The next event that is not a reload or an UNO call (those are applied here)."""
        while self.pos < len(self.events):
            event = self.events[self.pos]
            if event["type"] == "reload":
                self.on_reload(event)
                self.pos += 1
            elif event["type"] == "uno":
                penalty = self.on_uno(event)
                self.pos += 1
                if penalty is not None:
                    self.presses(penalty, int(self.opt("uno_penalty", 2)), {"uno-penalty"})
            elif event["type"] == "decision":
                answer = answer_after(self.events, self.pos)
                check_offer(event, answer, self.table, self.stack_cards(), self.playable)
                self.pos += 1
            elif event["type"] == "press_due":
                self.pos += 1
                self.due = event
            elif event["type"] == "hit" and event.get("reason") == "suggestion-penalty":
                self.apply_press(event)
                self.pos += 1
            else:
                return event
        return {"type": "<end of log>"}

    def take(self, kind: str, **fields: Any) -> Event:
        event = self.expect(kind, **fields)
        self.pos += 1
        return event

    def expect(self, kind: str, **fields: Any) -> Event:
        """The next event, which must be of ``kind`` with ``fields``; not consumed yet."""
        event = self.peek()
        if event["type"] != kind:
            raise Violation(f"expected a {kind} event {fields or ''}, got {show(event)}")
        for key, value in fields.items():
            if event.get(key) != value:
                raise Violation(f"expected {kind} with {key}={value!r}, got {show(event)}")
        return event

    def maybe(self, kind: str, **fields: Any) -> Event | None:
        event = self.peek()
        if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
            self.pos += 1
            return event
        return None

    # ---- launcher ------------------------------------------------------------------
    def on_reload(self, event: Event) -> None:
        if self.opt("empty_launcher", "reload") == "dry":
            raise Violation("empty_launcher=dry but the launcher was reloaded")
        self.must_exhaust = len(self.table.hopper)
        self.table.reload(list(event["cards"]))

    def apply_press(self, event: Event) -> list[str]:
        cards = list(event.get("cards") or [])
        seat = event["player"]
        if seat not in self.table.in_play:
            raise Violation(f"P{seat} presses but is not in the round")
        if event.get("counted") is not None and event["counted"] != len(cards):
            raise Violation(f"press counted {event['counted']} cards but gave {cards}")
        if self.must_exhaust and len(cards) <= self.must_exhaust:
            raise Violation("the launcher was reloaded while it still held cards (rules.md 2.3)")
        self.must_exhaust = 0
        if not self.table.hopper and len(self.table.pile) > 1 and not cards:
            if self.opt("empty_launcher", "reload") == "reload":
                raise Violation("a press found the launcher empty and it was not reloaded (2.3)")
        if self.pile_mode and self.table.hopper and len(cards) != 1:
            raise Violation(f"a draw from the pile gave {len(cards)} cards (rules.md 3.2)")
        self.table.press(seat, cards)
        if cards:
            self.catchable.discard(seat)
            self.called.discard(seat)
        return cards

    def presses(self, seat: int, count: int, reasons: set[str] | None) -> list[list[str]]:
        """Exactly ``count`` presses by ``seat`` for one of ``reasons`` (None: any reason)."""
        self.check_due(seat, count)
        got = []
        for number in range(count):
            event = self.peek()
            wrong_reason = reasons is not None and event.get("reason") not in reasons
            if event["type"] != "hit" or event.get("player") != seat or wrong_reason:
                raise Violation(
                    f"expected press {number + 1} of {count} by P{seat} "
                    f"({'/'.join(sorted(reasons or {'any'}))}),"
                    f" got {show(event)}"
                )
            got.append(self.apply_press(event))
            self.pos += 1
        return got

    def check_due(self, seat: int, count: int) -> None:
        """A ``press_due`` (newer logs) must announce the presses the rules call for."""
        if self.peek()["type"] == "hit" and self.due is not None:
            due, self.due = self.due, None
            if due.get("player") != seat:
                raise Violation(
                    f"press_due names P{due.get('player')}, the rules make P{seat} press"
                )
            if due.get("until", "count") == "count" and due.get("presses") != count and count > 1:
                raise Violation(
                    f"press_due announces {due.get('presses')} presses, the rules say {count}"
                )

    # ---- UNO (rules.md 2.3, 3.2) ---------------------------------------------------
    def on_uno(self, event: Event) -> int | None:
        """Check an UNO call or catch; return the seat that must press the penalty."""
        seat, by = event["player"], event["by"]
        hand = self.table.hands[seat]
        if not event["caught"]:
            if by != seat or len(hand) != 1:
                raise Violation(f"P{seat} calls UNO holding {len(hand)} cards (by P{by})")
            self.called.add(seat)
            return None
        if by == seat or by not in self.table.in_play:
            raise Violation(f"P{by} cannot catch P{seat}")
        if len(hand) != 1 or seat in self.called:
            raise Violation(f"P{by} catches P{seat} who holds {len(hand)} cards / called UNO")
        if seat not in self.catchable:
            raise Violation(f"P{seat} caught after the next player began their turn (2.3)")
        self.catchable.discard(seat)
        return int(seat)

    # ---- laying cards --------------------------------------------------------------
    def lay(self, seat: int, code: str, *, check_match: bool = True) -> Played:
        """Move a card from a hand to the pile, checking it may be played there."""
        card = parse(code)
        if seat not in self.table.in_play:
            raise Violation(f"P{seat} is not in the round but plays {code}")
        hand_before = list(self.table.hands[seat])
        played = Played(card, seat, self.table.top, self.table.active_color, hand_before)
        if check_match and not matches(card, self.table.top, self.table.active_color):
            raise Violation(
                f"P{seat} plays {code} on {self.table.pile[-1]} with colour "
                f"{self.table.active_color} (no colour, number or symbol match; rules.md 2.3/3.2)"
            )
        self.table.take_from_hand(seat, code)
        self.table.pile.append(card.code)
        self.table.active_color = card.color
        self.after_hand_change(seat, played_card=True)
        return played

    def after_hand_change(self, seat: int, played_card: bool = False) -> None:
        self.called.discard(seat)
        if len(self.table.hands[seat]) == 1 and played_card:
            self.catchable.add(seat)
        else:
            self.catchable.discard(seat)

    def choose_color(self, seat: int | set[int]) -> int:
        seats = {seat} if isinstance(seat, int) else seat
        event = self.take("color")
        if event["player"] not in seats or event["color"] not in ("R", "B", "G", "Y"):
            raise Violation(
                f"colour chosen by P{event['player']} ({event['color']}), expected P{seats}"
            )
        self.table.active_color = event["color"]
        return int(event["player"])

    def choose_target(self, seat: int) -> int:
        event = self.take("target", player=seat)
        target = event["target"]
        if target == seat or target not in self.table.in_play:
            raise Violation(f"P{seat} aims at P{target}: a card never acts on its own player (2.4)")
        return int(target)

    # ---- turn order ----------------------------------------------------------------
    def next_victim(self, chain: Chain) -> int:
        """'The next player': the first seat after the actor that the chain has not skipped.

        When every other seat is already skipped a new lap begins (their turns are lost)
        and the victim is the seat after the actor again. Never the actor itself.
        """
        order = self.table.others_in_order(chain.actor)
        free = [s for s in order if s not in chain.skipped]
        if not free:
            chain.skipped.clear()
            free = order
        return free[0]

    def skip(self, chain: Chain, victim: int, *, event_required: bool = True) -> None:
        chain.skipped.append(victim)
        event = self.peek()
        if event["type"] == "skip" and event.get("player") == victim:
            self.pos += 1
        elif event["type"] == "skip" and event.get("player") == chain.actor:
            raise Violation(
                f"P{chain.actor} skips themself: a card never acts on the player who"
                f" played it (2.4); the rules skip P{victim}"
            )
        elif event["type"] == "skip":
            raise Violation(f"P{event['player']} skipped; the rules skip P{victim} (2.4)")
        elif event_required and not self.is_out(chain.actor):
            raise Violation(f"P{victim} must be skipped (a skip event), got {show(event)}")

    def next_turn(self, chain: Chain) -> int:
        order = self.table.others_in_order(chain.actor)
        free = [s for s in order if s not in chain.skipped]
        return free[0] if free else chain.actor

    def begin_turn(self, seat: int) -> None:
        """A player begins a turn: other players' UNO windows close (rules.md 2.3).

        The window of ``seat`` itself stays open: when every other player was skipped,
        "the next player" has not begun a turn yet (README, UNO).
        """
        self.catchable &= {seat}

    def is_out(self, seat: int) -> bool:
        return not self.table.hands[seat]

    def conservation(self, where: str) -> None:
        have = self.table.all_cards()
        if have != self.deck:
            lost = self.deck - have
            made = have - self.deck
            raise Violation(
                f"{where}: cards lost {dict(lost)} / created {dict(made)} (rules.md 2.1)"
            )


def show(event: Event) -> str:
    text = json.dumps(event, separators=(",", ":"))
    return text if len(text) < 300 else text[:300] + "..."


def counter_of(cards: list[str]) -> Counter[str]:
    return Counter(cards)
