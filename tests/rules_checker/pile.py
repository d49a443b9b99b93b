"""The draw-pile family (rules.md 3 and 4): classic and pocket.

A draw takes one card from the pile; Draw One/Two, Wild Draw Four / Wild Draw 2 and
their challenge, Wild Dip Into The Deck, and the first-card rules of 3.2 and 4.2.
"""

from __future__ import annotations

from tests.rules_checker.cards import Violation, matches, parse
from tests.rules_checker.common import HIT_PRESSES, HIT_REASONS, CommonEffects
from tests.rules_checker.replay import Chain, Event, Played


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

    def playable(self, code: str, seat: int) -> bool:
        """With ``wild_draw_bluff=false`` a Wild Draw Four / Wild Draw 2 is playable only
        when it would be legal (3.2, 4.2)."""
        if not super().playable(code, seat):
            return False
        if parse(code).rank not in ("W+4", "W+2") or self.opt("wild_draw_bluff", True):
            return True
        hand = list(self.table.hands[seat])
        trial = Played(parse(code), seat, self.table.top, self.table.active_color, hand)
        return not self.guilty(trial)

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
            self.draw_and_skip(chain, victim, on_innocent, {"challenge"})
        else:
            self.maybe("accept", player=victim)
            self.check_take(chain, victim, draw)  # a stack decision declined: "take"
            self.draw_and_skip(chain, victim, draw, {reason})

    def draw_and_skip(self, chain: Chain, victim: int, count: int, reasons: set[str]) -> None:
        """The victim draws and loses the turn; the skip event may come first or last."""
        early = self.maybe("skip", player=victim)
        self.presses(victim, count, reasons)
        if early is not None:
            chain.skipped.append(victim)
        else:
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
            self.choose_color({dealer, left})
            actor = self.peek().get("player")
            if actor not in (dealer, left):
                raise Violation(f"first Wild Dip: P{actor} draws; the dealer or P{left} must")
            self.presses(int(actor), 1, {"draw"})
            self.give(int(actor), self.table.seat_after(int(actor)))
            return left
        return self.next_turn(chain)
