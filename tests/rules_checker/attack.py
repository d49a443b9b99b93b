"""The UNO Attack family (rules.md 2): attack, attack-original, attack-mega-hit.

Every draw is a press of the launcher; Hit cards, Discard All, Trade Hands, the
launcher wilds and the Wild Customizable.
"""

from __future__ import annotations

from tests.rules_checker.cards import Violation, parse
from tests.rules_checker.common import HIT_PRESSES, HIT_REASONS
from tests.rules_checker.custom import CustomEffects
from tests.rules_checker.replay import Chain, Played


class LauncherReplay(CustomEffects):
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
            self.discard_color(seat, played.card.color)
        elif rank == "TH":
            self.trade_hands(played)
        elif rank == "WAH":
            self.maybe_color(seat)
            self.all_hit(seat)
        elif rank == "WHF":
            self.maybe_color(seat)
            self.hit_fire(chain, self.next_victim(chain))
        elif rank == "WC":
            self.custom_card(played, chain)
        else:
            super().family_effect(played, chain)

    def trade_hands(self, played: Played) -> None:
        seat = played.seat
        if self.is_out(seat):
            raise Violation(f"P{seat} goes out on a Trade Hands, which the rules forbid (2.4)")
        self.swap_hands(seat, self.choose_target(seat))

    def all_hit(self, actor: int) -> None:
        """Every other player, starting left of the player, presses once (2.4)."""
        for seat in self.clockwise(actor):
            self.presses(seat, 1, {"all-hit"})

    def hit_fire(self, chain: Chain, victim: int) -> None:
        """Wild Hit-Fire: press until cards fire, take them and lose the turn (2.4)."""
        self.fire_until(victim, {"hit-fire"})
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
