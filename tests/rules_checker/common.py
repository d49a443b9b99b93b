"""Effects that read the same in every ruleset: Skip, Reverse, Wild, 7-0, stacking."""

from __future__ import annotations

from tests.rules_checker.cards import Violation, parse
from tests.rules_checker.checker import GameReplay
from tests.rules_checker.replay import Chain, Event, Played

HIT_PRESSES = {"H1": 1, "H2": 2, "WH4": 4, "WAA": 2, "+1": 1, "+2": 2}
HIT_REASONS = {
    "H1": "hit1",
    "H2": "hit2",
    "WH4": "hit4",
    "WAA": "attack",
    "+1": "draw1",
    "+2": "draw2",
}


class CommonEffects(GameReplay):
    """Effects that read the same in every ruleset: Skip, Reverse, Wild, 7-0."""

    def effect(self, played: Played, chain: Chain) -> None:
        rank = played.card.rank
        if rank == "S":
            self.skip(chain, self.next_victim(chain))
        elif rank == "R":
            self.reverse(chain)
        elif rank == "W":
            self.maybe_color(played.seat)
        elif rank in ("7", "0") and self.opt("seven_zero", False):
            self.seven_zero(played, chain)
        else:
            self.family_effect(played, chain)

    def family_effect(self, played: Played, chain: Chain) -> None:
        if not played.card.rank.isdigit():
            raise Violation(f"{played.card.code} has no effect in {self.ruleset}")

    def maybe_color(self, seat: int) -> None:
        """A wild's colour. The last card of a round may end it before a colour is named."""
        if self.is_out(seat):
            if self.peek()["type"] == "color":
                self.choose_color(seat)
            return
        self.choose_color(seat)

    def reverse(self, chain: Chain) -> None:
        """Reverse flips the direction; with two seats in the round it acts as a Skip (2.4)."""
        event = self.maybe("reverse")
        two = len(self.table.in_play) == 2
        if event is None and not two:
            raise Violation(f"a Reverse without a reverse event: got {self.peek()}")
        if event is not None:
            if event["direction"] != -self.table.direction:
                raise Violation(f"reverse to {event['direction']} from {self.table.direction}")
            self.table.direction = -self.table.direction
        if two:
            self.skip(chain, self.next_victim(chain))

    def seven_zero(self, played: Played, chain: Chain) -> None:
        """House rule 7-0: a 7 trades hands with a chosen player, a 0 passes every hand on."""
        seat = played.seat
        if self.is_out(seat):
            return
        if played.card.rank == "7":
            self.swap_hands(seat, self.choose_target(seat))
        else:
            self.rotate_hands()

    def swap_hands(self, seat: int, target: int) -> None:
        self.take("trade", player=seat, target=target)
        hands = self.table.hands
        hands[seat], hands[target] = hands[target], hands[seat]
        self.after_hand_change(seat)
        self.after_hand_change(target)

    def rotate_hands(self) -> None:
        """Every hand in play moves one seat in the direction of play."""
        event = self.take("rotate")
        if event["direction"] != self.table.direction:
            raise Violation(
                f"hands rotate {event['direction']} while play goes {self.table.direction}"
            )
        old = [list(h) for h in self.table.hands]
        for s in self.table.in_play:
            self.table.hands[self.table.seat_after(s)] = old[s]
            self.after_hand_change(s)

    def clockwise(self, actor: int) -> list[int]:
        """The other seats in play, starting left of ``actor`` (rules.md 2.4 Wild All Hit)."""
        seats, seat = [], actor
        for _ in range(len(self.table.in_play) - 1):
            seat = self.table.seat_after(seat, 1)
            seats.append(seat)
        return seats

    def fire_until(self, victim: int, reasons: set[str] | None) -> None:
        """Press until the launcher shoots cards, at most ``hit_fire_cap`` presses (2.4)."""
        for _ in range(int(self.opt("hit_fire_cap", 50))):
            if self.presses(victim, 1, reasons)[0]:
                break

    def discard_color(self, seat: int, color: str | None) -> None:
        """Discard All: every card of the colour goes under the top card (2.4)."""
        same = sorted(c for c in self.table.hands[seat] if parse(c).color == color)
        event = self.maybe("discard", player=seat)
        cards = sorted(event["cards"]) if event else []
        if cards != same:
            raise Violation(f"P{seat} discards {cards} but holds {same} of colour {color} (2.4)")
        for code in cards:
            self.table.take_from_hand(seat, code)
        self.table.pile[-1:-1] = cards
        self.after_hand_change(seat, played_card=True)

    def stack_cards(self) -> set[str]:
        return set()

    def give(self, seat: int, to: int) -> None:
        event = self.take("give", player=seat)
        if event["to"] != to:
            raise Violation(f"P{seat} gives to P{event['to']}, the next player is P{to} (4.2)")
        self.table.take_from_hand(seat, event["card"])
        self.table.hands[to].append(event["card"])
        self.after_hand_change(seat, played_card=True)
        self.after_hand_change(to)

    def stacking_on(self) -> bool:
        """``mega_hit_stack`` and ``stack_draws`` both turn on stacking of the ruleset's
        hit/draw cards (their descriptions say "the ruleset's stack cards"; README)."""
        mega = self.opt("mega_hit_stack", self.ruleset == "attack-mega-hit")
        return bool(mega or self.opt("stack_draws", False))

    def face_hit(self, chain: Chain, victim: int, played: Played) -> None:
        """A hit/draw card lands on ``victim``; with stacking on, they may pass it on (2.4)."""
        rank = played.card.rank
        self.stacked(chain, victim, HIT_PRESSES[rank], {HIT_REASONS[rank]}, rank)

    def stacked(self, chain: Chain, victim: int, total: int, reasons: set[str], rank: str) -> None:
        """Mega Hit stack / draw stacking: the last player presses the total (2.4, 3.2).

        When the stacker goes out, the presses still happen and the next victim faces
        the total (2.3, 2.4); a finished round takes no further stack card.
        """
        while not self.is_out(chain.actor) and self.stack_cards():
            event = self.peek()
            if not (event["type"] == "play" and event.get("reason") == "stack"):
                break
            self.check_stacker(chain, victim, event)
            self.pos += 1
            rank = self.lay(victim, event["card"], check_match=False).card.rank
            chain.actor, chain.skipped = victim, []
            total += HIT_PRESSES.get(rank, 4 if rank == "W+4" else 2)
            reasons.add(HIT_REASONS.get(rank, "draw4" if rank == "W+4" else "draw2"))
            if rank.startswith("W"):
                self.maybe_color(chain.actor)
            if self.is_out(chain.actor):
                self.out = chain.actor
            victim = self.choose_target(chain.actor) if rank == "WAA" else self.next_victim(chain)
        self.check_take(chain, victim, total)
        early = self.maybe("skip", player=victim) if rank != "WAA" else None
        self.presses(victim, total, reasons)
        if early is not None:
            chain.skipped.append(victim)
        elif rank != "WAA":
            # older logs have no skip event for a Wild Draw Four / Wild Draw 2
            self.skip(chain, victim, event_required=rank not in ("W+4", "W+2"))

    def check_stacker(self, chain: Chain, victim: int, event: Event) -> None:
        """Only the victim may stack, and only with one of the ruleset's stack cards."""
        if event["player"] == chain.actor != victim:
            raise Violation(
                f"P{victim} is the victim, but P{chain.actor} stacks on their own card:"
                " a card never acts on the player who played it (2.4)"
            )
        if event["player"] != victim or parse(event["card"]).rank not in self.stack_cards():
            raise Violation(f"stack play {event} not by the victim P{victim} with a stack card")

    def check_take(self, chain: Chain, victim: int, total: int) -> None:
        """The victim takes the whole stack (a ``take`` event is optional)."""
        self.not_on_self(chain, victim)
        event = self.peek()
        if event["type"] == "take" and event.get("player") != victim:
            raise Violation(
                f"P{event.get('player')} takes the hit, but the victim is P{victim} (2.4)"
            )
        take = self.maybe("take", player=victim)
        if take is not None and take["presses"] != total:
            raise Violation(
                f"P{victim} takes {take['presses']} presses, the stack is {total} (2.4)"
            )

    def not_on_self(self, chain: Chain, victim: int) -> None:
        event = self.peek()
        if event["type"] in ("hit", "take") and event.get("player") == chain.actor != victim:
            raise Violation(
                f"P{chain.actor}'s card makes P{chain.actor} press: a card never acts"
                f" on the player who played it (2.4); the victim is P{victim}"
            )
