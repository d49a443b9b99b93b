"""Card effects and first-card rules, one replayer per ruleset family.

``LauncherReplay``: attack, attack-original, attack-mega-hit (rules.md 2).
``PileReplay``: classic and pocket (rules.md 3 and 4).
"""

from __future__ import annotations

from tests.rules_checker.cards import Violation, matches, parse
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
            target = self.choose_target(seat)
            self.take("trade", player=seat, target=target)
            hands = self.table.hands
            hands[seat], hands[target] = hands[target], hands[seat]
            self.after_hand_change(seat)
            self.after_hand_change(target)
            return
        event = self.take("rotate")
        if event["direction"] != self.table.direction:
            raise Violation(
                f"hands rotate {event['direction']} while play goes {self.table.direction}"
            )
        old = [list(h) for h in self.table.hands]
        for s in self.table.in_play:
            self.table.hands[self.table.seat_after(s)] = old[s]
            self.after_hand_change(s)

    def stack_cards(self) -> set[str]:
        return set()

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
            if event["player"] != victim or parse(event["card"]).rank not in self.stack_cards():
                raise Violation(f"stack play {event} not by the victim P{victim} with a stack card")
            self.pos += 1
            stacked = self.lay(victim, event["card"], check_match=False)
            chain.actor, chain.skipped = victim, []
            rank = stacked.card.rank
            total += HIT_PRESSES.get(rank, 4 if rank == "W+4" else 2)
            reasons.add(HIT_REASONS.get(rank, "draw4" if rank == "W+4" else "draw2"))
            if rank.startswith("W"):
                self.maybe_color(victim)
            if self.is_out(victim):
                self.out = victim
            victim = self.choose_target(victim) if rank == "WAA" else self.next_victim(chain)
        self.not_on_self(chain, victim)
        take = self.maybe("take", player=victim)
        if take is not None and take["presses"] != total:
            raise Violation(
                f"P{victim} takes {take['presses']} presses, the stack is {total} (2.4)"
            )
        self.presses(victim, total, reasons)
        if rank != "WAA":
            # the log format has no skip event for a Wild Draw Four / Wild Draw 2 yet
            self.skip(chain, victim, event_required=rank not in ("W+4", "W+2"))

    def not_on_self(self, chain: Chain, victim: int) -> None:
        event = self.peek()
        if event["type"] == "hit" and event.get("player") == chain.actor != victim:
            raise Violation(
                f"P{chain.actor}'s card makes P{chain.actor} press: a card never acts"
                f" on the player who played it (2.4); the victim is P{victim}"
            )


class LauncherReplay(CommonEffects):
    """attack, attack-original, attack-mega-hit: every draw is a press of the launcher."""

    def returnable(self, code: str) -> bool:
        return parse(code).rank in ("TH", "WAA", "WH4", "WC")

    def drawn_card_may_be_played(self) -> bool:
        return bool(self.opt("draw_until_playable", False))

    def stack_cards(self) -> set[str]:
        if not self.stacking_on():
            return set()
        return {"H1", "H2", "WH4", "WAA"}

    def family_effect(self, played: Played, chain: Chain) -> None:
        rank, seat = played.card.rank, played.seat
        if rank in ("H1", "H2"):
            self.face_hit(chain, self.next_victim(chain), played)
        elif rank == "WH4":
            self.maybe_color(seat)
            self.face_hit(chain, self.next_victim(chain), played)
        elif rank == "WAA":
            self.maybe_color(seat)
            self.face_hit(chain, self.choose_target(seat), played)
        elif rank == "DA":
            self.discard_all(played)
        elif rank == "TH":
            self.trade_hands(played)
        elif rank == "WAH":
            self.maybe_color(seat)
            self.all_hit(seat)
        elif rank == "WHF":
            self.maybe_color(seat)
            self.hit_fire(chain, self.next_victim(chain))
        elif rank == "WC":
            if self.opt("custom", ""):
                raise Violation("custom Wild Customizable actions are not checked (README)")
            self.maybe_color(seat)
        else:
            super().family_effect(played, chain)

    def discard_all(self, played: Played) -> None:
        """Discard every card of the Discard All's colour; they go under it (2.4)."""
        seat, color = played.seat, played.card.color
        same = sorted(c for c in self.table.hands[seat] if parse(c).color == color)
        event = self.maybe("discard", player=seat)
        cards = sorted(event["cards"]) if event else []
        if cards != same:
            raise Violation(f"P{seat} discards {cards} but holds {same} of colour {color} (2.4)")
        for code in cards:
            self.table.take_from_hand(seat, code)
        self.table.pile[-1:-1] = cards
        self.after_hand_change(seat, played_card=True)

    def trade_hands(self, played: Played) -> None:
        seat = played.seat
        if self.is_out(seat):
            raise Violation(f"P{seat} goes out on a Trade Hands, which the rules forbid (2.4)")
        target = self.choose_target(seat)
        self.take("trade", player=seat, target=target)
        hands = self.table.hands
        hands[seat], hands[target] = hands[target], hands[seat]
        self.after_hand_change(seat)
        self.after_hand_change(target)

    def all_hit(self, actor: int, *, skip_seat: int | None = None) -> None:
        """Every other player, starting left of the player, presses once (2.4)."""
        left = [s for s in self.table.others_in_order(actor)] if self.table.direction == 1 else None
        clockwise = self.clockwise_from(actor)
        order = [s for s in clockwise if s != skip_seat]
        if left is not None and left != clockwise:
            raise Violation("internal: clockwise order")
        for seat in order:
            self.presses(seat, 1, {"all-hit"})

    def clockwise_from(self, actor: int) -> list[int]:
        seats, seat = [], actor
        for _ in range(len(self.table.in_play) - 1):
            seat = self.table.seat_after(seat, 1)
            seats.append(seat)
        return seats

    def hit_fire(self, chain: Chain, victim: int) -> None:
        """Press until the launcher shoots cards, at most ``hit_fire_cap`` presses (2.4)."""
        cap = int(self.opt("hit_fire_cap", 50))
        for _ in range(cap):
            if self.presses(victim, 1, {"hit-fire"})[0]:
                break
        self.skip(chain, victim)

    def first_card(self, dealer: int) -> int:
        """rules.md 2.2, first card turned up (original and Mega Hit sheets)."""
        card = parse(self.table.pile[-1])
        left = self.table.seat_after(dealer)
        chain = Chain(dealer)
        if card.rank == "R":
            self.first_reverse(dealer)
            return dealer
        if card.rank == "S":
            self.skip(chain, left)
        elif card.rank in ("H1", "H2"):
            self.presses(left, HIT_PRESSES[card.rank], {HIT_REASONS[card.rank]})
            self.skip(chain, left)
        elif card.rank == "W":
            self.choose_color(left)
        elif card.rank == "WAH":
            self.choose_color({dealer, left})
            self.all_hit(dealer)
        elif card.rank == "WHF":
            self.choose_color({dealer, left})
            self.hit_fire(chain, left)
        return self.next_turn(chain)

    def first_reverse(self, dealer: int) -> None:
        """Reverse first: the dealer plays first and play goes right (2.2, 3.2)."""
        event = self.maybe("reverse")
        if event is not None and event["direction"] != -1:
            raise Violation("first card Reverse must send play right (direction -1)")
        self.table.direction = -1
        if len(self.table.in_play) == 2:
            self.maybe("skip")


class PileReplay(CommonEffects):
    """classic and pocket: a draw takes one card from the pile."""

    def returnable(self, code: str) -> bool:
        return self.ruleset == "classic" and code == "W+4"

    def stack_cards(self) -> set[str]:
        if not self.stacking_on():
            return set()
        return {"+2", "W+4"} if self.ruleset == "classic" else {"+1", "W+2"}

    def must_match(self, code: str, seat: int) -> bool:
        return True

    def family_effect(self, played: Played, chain: Chain) -> None:
        rank, seat = played.card.rank, played.seat
        if rank in ("+1", "+2"):
            self.face_hit(chain, self.next_victim(chain), played)
        elif rank in ("W+4", "W+2"):
            self.maybe_color(seat)
            self.wild_draw(played, chain)
        elif rank == "WD":
            self.maybe_color(seat)
            self.dip(played, chain)
        else:
            super().family_effect(played, chain)

    def guilty(self, played: Played) -> bool:
        """W+4: held a card of the active colour (3.2).

        W+2: could have played another card (4.2), a wild included (README).
        """
        rest = list(played.hand_before)
        rest.remove(played.card.code)
        if played.card.rank == "W+4":
            return any(parse(c).color == played.color_before for c in rest)
        return any(matches(parse(c), played.top_before, played.color_before) for c in rest)

    def wild_draw(self, played: Played, chain: Chain) -> None:
        """Wild Draw Four / Wild Draw 2 with its challenge (3.2, 4.2)."""
        four = played.card.rank == "W+4"
        draw, on_guilty, on_innocent = (4, 4, 6) if four else (2, 2, 4)
        reason = "draw4" if four else "draw2"
        guilty = self.guilty(played)
        bluff_ok = self.opt("wild_draw_bluff", True)
        if guilty and not bluff_ok:
            raise Violation(
                f"P{played.seat} plays an illegal {played.card.code} (wild_draw_bluff=false)"
            )
        victim = self.next_victim(chain)
        if self.stack_cards():
            event = self.peek()
            if event["type"] == "play" and event.get("reason") == "stack":
                self.stacked(chain, victim, draw, {reason}, played.card.rank)
                return
        self.not_on_self(chain, victim)
        challenge = self.maybe("challenge")
        if challenge is not None:
            self.check_challenge(challenge, played, victim, guilty, bluff_ok)
            if guilty:
                self.presses(played.seat, on_guilty, {"challenge"})
                return
            self.presses(victim, on_innocent, {"challenge"})
        else:
            self.maybe("accept", player=victim)
            self.presses(victim, draw, {reason})
        self.skip(chain, victim, event_required=False)

    def check_challenge(
        self, event: Event, played: Played, victim: int, guilty: bool, bluff_ok: bool
    ) -> None:
        if not self.opt("challenges", True) or not bluff_ok:
            raise Violation("a challenge although challenges are off")
        if event["player"] != victim or event["accused"] != played.seat:
            raise Violation(
                f"P{event['player']} challenges P{event['accused']}; the victim is P{victim}"
                f" of P{played.seat}'s card (a card never acts on its own player)"
            )
        if bool(event["guilty"]) != guilty:
            raise Violation(
                f"challenge says guilty={event['guilty']}; hand before was "
                f"{played.hand_before} on {played.top_before.code}/{played.color_before}"
            )
        if sorted(event.get("hand", [])) != sorted(self.table.hands[played.seat]):
            raise Violation("the hand shown in a challenge is not the accused's hand")

    def dip(self, played: Played, chain: Chain) -> None:
        """Wild Dip Into The Deck: draw one, then pass one card to the next player (4.2)."""
        seat = played.seat
        if self.is_out(seat):
            return
        self.presses(seat, 1, {"draw"})
        self.give(seat, self.next_victim(chain))

    def give(self, seat: int, to: int) -> None:
        event = self.take("give", player=seat)
        if event["to"] != to:
            raise Violation(f"P{seat} gives to P{event['to']}, the next player is P{to} (4.2)")
        self.table.take_from_hand(seat, event["card"])
        self.table.hands[to].append(event["card"])
        self.after_hand_change(seat, played_card=True)
        self.after_hand_change(to)

    def first_card(self, dealer: int) -> int:
        """rules.md 3.2 (classic) and 4.2 (pocket: the action of the first card applies)."""
        card = parse(self.table.pile[-1])
        left = self.table.seat_after(dealer)
        chain = Chain(dealer)
        if card.rank == "R":
            event = self.maybe("reverse")
            if event is not None and event["direction"] != -1:
                raise Violation("first card Reverse must send play right (direction -1)")
            self.table.direction = -1
            if len(self.table.in_play) == 2:
                self.maybe("skip")
            return dealer
        if card.rank == "S":
            self.skip(chain, left)
        elif card.rank in ("+1", "+2"):
            self.presses(left, HIT_PRESSES[card.rank], {HIT_REASONS[card.rank]})
            self.skip(chain, left)
        elif card.rank == "W":
            self.choose_color(left)
        elif card.rank == "W+2":
            self.choose_color({dealer, left})
            self.presses(left, 2, {"draw2"})
            self.skip(chain, left, event_required=False)
        elif card.rank == "WD":
            actor = self.choose_color({dealer, left})
            self.presses(actor, 1, {"draw"})
            self.give(actor, self.table.seat_after(actor))
            return left
        return self.next_turn(chain)
