"""Game flow shared by every ruleset: dealer pick, deal, turns, play again, scoring.

Card effects and first-card rules are per family (:mod:`tests.rules_checker.families`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NoReturn

from tests.rules_checker.cards import Violation, dealer_value, hand_points, parse
from tests.rules_checker.replay import Chain, Event, Played, Replay, show

PLAY_AGAIN_CARDS = ("S", "R")


class GameReplay(Replay):
    """One whole game: every round, then the game end."""

    def __init__(self, events: list[Event], start: Event) -> None:
        super().__init__(events, start)
        self.scores = [0] * self.players
        self.rounds = 0
        self.target = int(self.opt("target", 250 if self.ruleset == "pocket" else 500))
        self.scoring = str(self.opt("scoring", "winner"))
        self.lap: int | None = None  # a seat whose turn came back because all others were skipped
        self.expected_winner: set[int] = set()
        self.head_to_head = False
        self.round_winner: int | None = None
        self.last_skipped: list[int] = []
        self.custom_play_again = False  # a custom card with the play_again block
        self.turns_taken = 0
        self.ignore: frozenset[str] = frozenset()  # checks switched off by name (README)
        self.unfinished_ok = False
        self.cut = False  # a log cut at a round end (the battery plays few rounds)

    # ---- hooks for the families ----------------------------------------------------
    def effect(self, played: Played, chain: Chain) -> None:
        raise NotImplementedError

    def first_card(self, dealer: int) -> int:
        """Apply the turned-up card (rules.md 2.2, 3.2, 4.2); return who plays first."""
        raise NotImplementedError

    def returnable(self, code: str) -> bool:
        raise NotImplementedError

    # ---- game ----------------------------------------------------------------------
    def run(self) -> None:
        self.take("game_start")
        self.check_deck_listing()
        dealer = self.check_dealer_pick(self.expect("dealer"))
        self.pos += 1
        while True:
            self.play_round(dealer)
            if self.cut or (self.unfinished_ok and self.peek()["type"] == "<end of log>"):
                return
            if self.game_should_end():
                self.check_game_end()
                return
            dealer = self.take_next_dealer()

    def check_deck_listing(self) -> None:
        start = self.events[0]
        listed: Counter[str] = Counter(start.get("deck") or [])
        if "deck" in start and listed != self.deck:
            raise Violation(
                f"deck of {self.ruleset} differs from rules.md: "
                f"{listed - self.deck}"
                f" extra, {self.deck - listed} missing"
            )
        if not 2 <= self.players <= (5 if self.ruleset == "pocket" else 10):
            raise Violation(f"{self.players} players for {self.ruleset} (rules.md 5)")

    def check_dealer_pick(self, event: Event) -> int:
        """Highest number deals; action cards count 0 (2.2). Ties: any tied seat (re-turn)."""
        seat = int(event["seat"])
        if "dealer" in self.ignore:
            return seat
        if event.get("rounds"):
            return self.check_dealer_returns(event["rounds"], seat)
        turned = {int(seat): code for seat, code in event.get("turned", {}).items()}
        if turned:
            best = max(dealer_value(code) for code in turned.values())
            if dealer_value(turned.get(seat, "W")) != best:
                raise Violation(
                    f"P{seat} deals but turned {turned.get(seat)}; highest is {best} (2.2):"
                    f" {show(event)}"
                )
        return seat

    def check_dealer_returns(self, rounds: list[dict[str, str]], seat: int) -> int:
        """Every turn-up in order: the tied highest turn again until one seat is highest."""
        contenders = set(range(self.players))
        for number, turned in enumerate(rounds):
            cards = {int(s): code for s, code in turned.items()}
            if set(cards) != contenders:
                raise Violation(
                    f"dealer turn-up {number + 1} by {sorted(cards)}, expected {sorted(contenders)}"
                )
            best = max(dealer_value(code) for code in cards.values())
            contenders = {s for s, code in cards.items() if dealer_value(code) == best}
        if contenders != {seat}:
            raise Violation(f"P{seat} deals, but the turn-ups leave {sorted(contenders)} (2.2)")
        return seat

    def take_next_dealer(self) -> int:
        event = self.peek()
        if event["type"] != "deal":
            raise Violation(f"expected the next deal, got {show(event)}")
        dealer = int(event["dealer"])
        if dealer not in self.table.in_play:
            raise Violation(f"P{dealer} deals but is out of the game")
        return dealer

    # ---- round ---------------------------------------------------------------------
    def play_round(self, dealer: int) -> None:
        self.rounds += 1
        deal = self.take("deal", round=self.rounds, dealer=dealer)
        self.setup_round(deal)
        self.turns_taken = 0
        seat = self.first_card(dealer)
        while self.out is None:
            coming = self.peek()["type"]
            if coming == "round_end":
                break
            if coming == "<end of log>" and self.unfinished_ok:
                self.cut = True  # a log cut at the start of a turn
                return
            seat = self.turn(seat)
            self.turns_taken += 1
        self.check_round_end(self.expect("round_end", round=self.rounds))
        self.pos += 1

    def setup_round(self, deal: Event) -> None:
        table = self.table
        table.hands = [list(hand) for hand in deal["hands"]]
        table.pile = [deal["starter"]]
        table.hopper = list(deal["loaded"])
        table.shuffled = False
        table.direction = 1
        table.active_color = parse(deal["starter"]).color
        self.out, self.called, self.catchable = None, set(), set()
        size = int(self.opt("hand_size", 5 if self.ruleset == "pocket" else 7))
        for seat, hand in enumerate(table.hands):
            want = size if seat in table.in_play else 0
            if len(hand) != want:
                raise Violation(f"P{seat} dealt {len(hand)} cards, expected {want} (rules.md 1)")
        if self.returnable(deal["starter"]):
            raise Violation(
                f"starter {deal['starter']} must be returned and another turned (2.2/3.2)"
            )
        for code in deal.get("returned") or []:
            if not self.returnable(code):
                raise Violation(f"{code} returned to the deck although it may start the pile")
        self.conservation(f"deal of round {self.rounds}")

    def turn(self, seat: int) -> int:
        """One turn from its first move to the seat that plays next."""
        self.begin_turn(seat)
        event = self.peek()
        if event["type"] == "play" and event.get("reason") == "jump-in":
            chain = self.jump_in(event)
        elif event["type"] == "draw" and event.get("player") == seat:
            self.pos += 1
            chain = Chain(seat)
            self.draw_turn(seat, chain)
        elif self.is_turn_play(event, seat):
            self.pos += 1
            chain = Chain(seat)
            self.play(seat, event["card"], chain)
        else:
            self.not_your_turn(event, seat)
        self.last_skipped = list(chain.skipped)
        nxt = self.next_turn(chain)
        self.lap = nxt if nxt == chain.actor else None
        return nxt

    def is_turn_play(self, event: Event, seat: int) -> bool:
        """A play that starts ``seat``'s turn ("play-again" when the turn came back to it)."""
        if event["type"] != "play" or event.get("player") != seat:
            return False
        return event.get("reason") == "turn" or (
            event.get("reason") == "play-again" and self.lap == seat
        )

    def not_your_turn(self, event: Event, seat: int) -> NoReturn:
        if event.get("player") in self.last_skipped:
            raise Violation(
                f"P{event['player']} was skipped in the last turn and gets no turn"
                f" (2.4: a later Reverse does not undo a Skip); it is P{seat}'s turn"
            )
        raise Violation(f"it is P{seat}'s turn (play or draw), got {show(event)}")

    def jump_in(self, event: Event) -> Chain:
        if not self.opt("jump_in", False):
            raise Violation("a jump-in without the jump_in option")
        seat = int(event["player"])
        if event["card"] != self.table.pile[-1]:
            raise Violation(f"jump-in with {event['card']} on {self.table.pile[-1]}: not identical")
        self.pos += 1
        chain = Chain(seat)
        self.play(seat, event["card"], chain)
        return chain

    def play(self, seat: int, code: str, chain: Chain) -> None:
        played = self.lay(seat, code, check_match=self.must_match(code, seat))
        self.custom_play_again = False
        self.effect(played, chain)
        if self.out is None and self.is_out(seat):
            self.out = seat
        again = played.card.rank in PLAY_AGAIN_CARDS or self.custom_play_again
        if self.out is None and again:
            self.offer_play_again(seat, chain)

    def must_match(self, code: str, seat: int) -> bool:
        return True

    def offer_play_again(self, seat: int, chain: Chain) -> None:
        """'After a Skip or Reverse you may immediately play one more card' (2.4).

        In a two-seat round the extra play is the turn coming back to the actor (the
        original sheet's two-player rule), so no separate offer is expected. With
        ``two_player_only`` nobody else gets one. With 3+ seats every Skip/Reverse,
        including one played as the extra card, gives one more card (a chain).
        """
        if (
            len(self.table.in_play) == 2
            or self.opt("skip_reverse_play_again", "two_player_only") != "always"
        ):
            return
        event = self.peek()
        if event["type"] == "play" and event.get("reason") == "play-again":
            if event["player"] != seat:
                raise Violation(f"P{event['player']} plays again after P{seat}'s card (2.4)")
            self.pos += 1
            self.play(seat, event["card"], chain)
        else:
            self.maybe("pass", player=seat)

    # ---- drawing -------------------------------------------------------------------
    def draw_turn(self, seat: int, chain: Chain) -> None:
        """Press once / draw one (2.3, 3.2), the house rule, and playing the drawn card."""
        drawn = [card for press in self.presses(seat, 1, {"draw"}) for card in press]
        if self.opt("draw_until_playable", False):
            drawn = self.draw_until_playable(seat, drawn, empty=0 if drawn else 1)
        event = self.peek()
        if event["type"] == "play" and event.get("reason") == "drawn":
            self.play_drawn(seat, event, drawn, chain)
        else:
            self.maybe("pass", player=seat)

    def draw_until_playable(self, seat: int, drawn: list[str], empty: int) -> list[str]:
        """House rule [004]: keep drawing until a playable card, at most ``draw_until_cap`` cards.

        With a launcher the cap counts cards, no press may follow a press that brought a
        playable card, and a press that brings no card does not count towards the cap
        (at most ``hit_fire_cap`` of those, as for Wild Hit-Fire). README item 10.
        """
        cap = int(self.opt("draw_until_cap", 10))
        empty_cap = int(self.opt("hit_fire_cap", 50))
        while True:
            found = any(self.playable(c, seat) for c in drawn)
            go_on = not found and len(drawn) < cap and empty < empty_cap
            event = self.peek()
            more = event["type"] == "hit" and event.get("player") == seat
            more = more and event.get("reason") == "draw"
            if more and not go_on:
                raise Violation(
                    f"P{seat} keeps drawing after {drawn} (cap {cap}, draw_until_playable)"
                )
            if not more:
                can_draw = bool(self.table.hopper) or len(self.table.pile) > 1
                if go_on and can_draw:
                    raise Violation(
                        f"P{seat} stops drawing at {drawn} before a playable card or the cap"
                    )
                return drawn
            cards = self.presses(seat, 1, {"draw"})[0]
            empty += not cards
            drawn.extend(cards)

    def play_drawn(self, seat: int, event: Event, drawn: list[str], chain: Chain) -> None:
        if event["player"] != seat:
            raise Violation(f"P{event['player']} plays a drawn card on P{seat}'s turn")
        allowed = (
            drawn if (not self.pile_mode or self.opt("draw_until_playable", False)) else drawn[-1:]
        )
        if not self.drawn_card_may_be_played():
            raise Violation(
                f"P{seat} plays a launched card: the turn ends after a press (rules.md 2.3)"
            )
        if event["card"] not in allowed:
            raise Violation(f"P{seat} plays {event['card']} as drawn, but drew {drawn} (3.2)")
        self.pos += 1
        self.play(seat, event["card"], chain)

    def drawn_card_may_be_played(self) -> bool:
        return True

    # ---- round end and scoring (2.5, 3.3, 4.3) -------------------------------------
    def check_round_end(self, event: Event) -> None:
        if self.out is not None:
            if event.get("winner") != self.out:
                raise Violation(f"P{self.out} went out but round_end names {event.get('winner')}")
        elif event.get("winner") is not None or event.get("reason") == "out":
            raise Violation(f"round_end with winner {event.get('winner')} but nobody went out")
        else:
            self.check_turn_limit()
        if event.get("turns") is not None and event["turns"] != self.turns_taken:
            raise Violation(
                f"round_end says {event['turns']} turns; {self.turns_taken} were played"
            )
        self.conservation(f"end of round {self.rounds}")
        for seat, hand in enumerate(event["hands"]):
            if Counter(hand) != Counter(self.table.hands[seat]):
                raise Violation(
                    f"round_end hand of P{seat} {hand} != replayed {self.table.hands[seat]}"
                )
        held = [hand_points(hand) for hand in self.table.hands]
        if list(event["held"]) != held:
            raise Violation(f"held {event['held']} != points in hands {held} (2.5)")
        gained = self.expected_gains(held, event.get("winner"))
        if gained is not None and list(event["gained"]) != gained:
            raise Violation(f"gained {event['gained']} != {gained} ({self.scoring} scoring, 2.5)")
        self.scores = [s + g for s, g in zip(self.scores, event["gained"], strict=True)]
        if list(event["scores"]) != self.scores:
            raise Violation(f"scores {event['scores']} != running totals {self.scores}")
        self.check_eliminations(event)

    def check_turn_limit(self) -> None:
        """A round without a winner stops exactly at ``round_turn_limit`` turns (option)."""
        limit = int(self.opt("round_turn_limit", 5000))
        if limit == 0 or self.turns_taken != limit:
            raise Violation(
                f"round stopped without a winner after {self.turns_taken} turns"
                f" (round_turn_limit={limit})"
            )

    def expected_gains(self, held: list[int], winner: Any) -> list[int] | None:
        in_play = self.table.in_play
        if winner is None:
            return None  # a round stopped by round_turn_limit: no rule, not checked
        if self.scoring == "winner":
            gained = [0] * self.players
            gained[winner] = sum(held[s] for s in in_play if s != winner)
            return gained
        return [held[s] if s in in_play else 0 for s in range(self.players)]

    def check_eliminations(self, event: Event) -> None:
        self.head_to_head = len(self.table.in_play) == 2
        self.round_winner = event.get("winner")
        if self.scoring != "elimination":
            return
        reached = sorted(s for s in self.table.in_play if self.scores[s] >= self.target)
        said = sorted(event.get("eliminated") or [])
        if said != reached:
            raise Violation(f"eliminated {said}, but {reached} reached {self.target} (2.5)")
        if not (self.head_to_head and self.round_winner is not None):
            self.table.in_play = [s for s in self.table.in_play if s not in reached]

    def game_should_end(self) -> bool:
        if self.scoring == "elimination":
            if self.head_to_head and self.round_winner is not None:
                self.expected_winner = {self.round_winner}
                return True
            if len(self.table.in_play) <= 1:
                self.expected_winner = set(self.table.in_play) or set(range(self.players))
                return True
            return False
        if max(self.scores) < self.target:
            return False
        pick = max if self.scoring == "winner" else min
        best = pick(self.scores)
        self.expected_winner = {s for s in range(self.players) if self.scores[s] == best}
        return True

    def check_game_end(self) -> None:
        event = self.expect("game_end")
        if event.get("winner") not in self.expected_winner:
            raise Violation(
                f"game won by P{event.get('winner')}, rules say P{sorted(self.expected_winner)}"
            )
        if list(event["scores"]) != self.scores or event.get("rounds") != self.rounds:
            raise Violation(
                f"game_end scores/rounds {event['scores']}/{event.get('rounds')}"
                f" != {self.scores}/{self.rounds}"
            )
        self.pos += 1
