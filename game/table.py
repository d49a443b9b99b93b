"""Round set-up and scoring for :class:`game.engine.Game`: dealer, deal, first card, round end.

Kept apart from the turn machinery so each file stays readable. Every card is
accounted for: at the start of a round all cards come back from the hands, the
discard pile and the launcher (``unload``), are shuffled by the game's chance
source, dealt, one is turned up, and the rest are loaded into the launcher.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.cards import Card, Color
from game.errors import GameError
from game.moves import Decision

if TYPE_CHECKING:
    from game.chance import Chance
    from game.rulesets import Ruleset, Step


@dataclass(slots=True)
class PressDue:
    """A pending chance node: ``seat`` must press the launcher ``presses`` more times.

    ``until``: ``count`` (exactly that many presses), ``fire`` (stop at the first
    press that shoots cards; ``presses`` is the cap left), ``playable`` (draw until
    a card that may be played comes out; ``presses`` is the cap left).
    """

    seat: int
    presses: int
    reason: str
    until: str = "count"


class TableMixin:
    """Dealing and scoring; mixed into :class:`~game.engine.Game`."""

    ruleset: Ruleset
    names: list[str]
    num_players: int
    scores: list[int]
    round_number: int
    winner: int | None
    eliminated: list[bool]
    seed: int | None
    _chance: Chance
    _reloads: bool
    _uno_open: int | None
    pending: Decision
    decider: int
    pile_generation: int
    _last_volley: tuple[Card, ...]
    _drawn_cards: int
    _draw_empties: int
    _due_seat_drawn: int

    def _reset_round_state(self) -> None:
        self.hands: list[list[Card]] = [[] for _ in range(self.num_players)]
        self.discard: list[Card] = []
        self.active_color: Color | None = None
        self.direction = 1
        self.dealer = 0
        self.current = 0
        self.decider: int = 0
        self.pending = Decision.TURN
        self.turns = 0
        self.round_winner: int | None = None
        self.queue: deque[Step] = deque()
        self.actor = 0
        self.card: Card | None = None
        self.pos = 0
        self.target: int | None = None
        self.stack = 0
        self._stack_reason = "hit"
        self._stack_skips = False
        self._challenge: tuple[int, int] | None = None
        self._guilty = False
        self._out: int | None = None
        self._uno_open: int | None = None
        self._uno_called = False
        self._drawn: Card | None = None
        self.first_phase = False
        self._legal: list[Any] | None = None
        #: The draw pile (the launcher's hopper model), next card out first.
        self.pile: deque[Card] = deque()
        self._due: PressDue | None = None
        self._then = "run"
        self._resume_to: tuple[Decision, int] = (Decision.TURN, 0)

    def left_seat(self, seat: int) -> int:
        """The next seat still in play clockwise (deal order), whatever the direction of play."""
        n = self.num_players
        seat = (seat + 1) % n
        while self.eliminated[seat]:
            seat = (seat + 1) % n
        return seat

    @property
    def seats_in_play(self) -> list[int]:
        """Seats not eliminated (all of them unless ``scoring=elimination``)."""
        return [s for s in range(self.num_players) if not self.eliminated[s]]

    @property
    def players_in(self) -> int:
        return self.num_players - sum(self.eliminated)

    # -- game start -----------------------------------------------------------------
    def _start_game(self) -> None:
        self._emit(
            "game_start",
            ruleset=self.ruleset.id,
            players=list(self.names),
            seed=self.seed,
            options={k: v for k, v in self.ruleset.options.items()},
            launcher=self._launcher_text(),
            deck=[c.code for c in self.ruleset.deck],
            **self._custom_header(),
        )
        self.dealer = self._choose_first_dealer()
        self._deal(list(self.ruleset.deck))

    def _custom_header(self) -> dict[str, Any]:
        """The custom card's effect and its file's text, so a log can be checked on its own."""
        path = self.ruleset.options.get("custom")
        if not path:
            return {}
        from game.cards import Kind

        steps = [str(s) for s in self.ruleset.effects.get(Kind.WILD_CUSTOM, ())]
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        return {"custom": steps, "custom_file": text}

    def _choose_first_dealer(self) -> int:
        """Each player turns a card; highest number deals (actions count 0); ties turn again."""
        cards = list(self.ruleset.deck)
        self._chance.shuffle(cards)
        contenders = list(range(self.num_players))
        turned: dict[int, str] = {}
        rounds: list[dict[int, str]] = []  # every turn-up, ties re-turning (rules.md 2.2)
        while len(contenders) > 1 and cards:
            values = {}
            rounds.append({})
            for seat in contenders:
                card = cards.pop()
                turned[seat] = rounds[-1][seat] = card.code
                values[seat] = card.number or 0
            best = max(values.values())
            contenders = [s for s in contenders if values[s] == best]
        self._emit("dealer", seat=contenders[0], turned=turned, rounds=rounds)
        return contenders[0]

    def start_next_round(self) -> None:
        """After a round ends: collect every card, pass the deal to the left, deal again."""
        if self.pending is not Decision.ROUND_OVER:
            raise GameError(
                "the next round can start only when a round is over and the game is not"
                if self.pending is not Decision.GAME_OVER
                else "the game is over"
            )
        cards = [c for hand in self.hands for c in hand] + self.discard + list(self.pile)
        if len(cards) != len(self.ruleset.deck):
            raise GameError(
                f"card accounting broke: {len(cards)} cards, the deck has {len(self.ruleset.deck)}"
            )
        self.dealer = self.left_seat(self.dealer)
        self._deal(cards)

    def set_position(
        self,
        hands: Sequence[Sequence[Card]],
        top: Card,
        *,
        color: Color | None = None,
        current: int = 0,
        direction: int = 1,
        bottom: Sequence[Card] = (),
    ) -> None:
        """Set up a position (tests, puzzles, a referee fixing the table) from the game's cards.

        ``hands`` and ``top`` must come out of the deck; ``bottom`` are the next
        cards the launcher will yield, in order; every other card is loaded
        after them in deck order. ``current`` is to play. Emits a ``deal`` event
        (with ``position: true``), so logs still account for every card.
        """
        pool = list(self.ruleset.deck)
        for card in [c for hand in hands for c in hand] + [top, *bottom]:
            if card not in pool:
                raise GameError(f"set_position: the {self.ruleset.id} deck has no more {card}")
            pool.remove(card)
        if len(hands) != self.num_players or direction not in (1, -1):
            raise GameError(f"set_position needs {self.num_players} hands and direction 1 or -1")
        dealer = self.dealer
        self._reset_round_state()
        self.dealer, self.direction = dealer, direction
        self.hands = [list(hand) for hand in hands]
        self.discard = [top]
        self.active_color = color if color is not None else top.color
        loaded = [*bottom, *pool]
        self._set_pile(loaded)
        self._emit(
            "deal",
            round=self.round_number,
            dealer=dealer,
            hands=[[c.code for c in h] for h in self.hands],
            starter=top.code,
            returned=[],
            loaded=[c.code for c in loaded],
            position=True,
        )
        self._begin_turn(current)

    # -- the deal -------------------------------------------------------------------
    def _deal(self, cards: list[Card]) -> None:
        dealer = self.dealer
        self._reset_round_state()
        self.dealer = dealer
        self.round_number += 1
        chance = self._chance
        chance.shuffle(cards)
        order = [self.left_seat(dealer)]
        while len(order) < self.players_in:
            order.append(self.left_seat(order[-1]))
        for _ in range(self.ruleset.hand_size):
            for seat in order:
                self.hands[seat].append(cards.pop())
        starter, returned = self._turn_starter(cards)
        self.discard = [starter]
        self.active_color = starter.color
        self._set_pile(cards)
        self._emit(
            "deal",
            round=self.round_number,
            dealer=dealer,
            hands=[[c.code for c in hand] for hand in self.hands],
            starter=starter.code,
            returned=[c.code for c in returned],
            loaded=[c.code for c in cards],
        )
        self._resolve_first_card(starter)

    def _turn_starter(self, cards: list[Card]) -> tuple[Card, list[Card]]:
        """Turn the top card; a card whose first-card rule is ``return`` goes back in at random."""
        returned: list[Card] = []
        for _ in range(len(cards) * 4):
            card = cards.pop()
            steps = self.ruleset.first_card.get(card.kind, ())
            if not (steps and steps[0].name == "return"):
                return card, returned
            returned.append(card)
            cards.insert(self._chance.randrange(len(cards) + 1), card)
        raise GameError("every card in the deck is one the rules return when turned first")

    def _resolve_first_card(self, starter: Card) -> None:
        self.actor = self.pos = self.dealer
        self.card = starter
        self.first_phase = True
        self.queue = deque(self.ruleset.first_card.get(starter.kind, ()))
        self._run()

    # -- round end ------------------------------------------------------------------
    def _end_round(self, winner: int | None) -> None:
        rules = self.ruleset
        held = [rules.hand_points(hand) for hand in self.hands]
        gained = [0] * self.num_players
        if winner is not None:
            if rules.options["scoring"] == "winner":
                gained[winner] = sum(held)
            else:
                gained = list(held)
        for seat, points in enumerate(gained):
            self.scores[seat] += points
        self.round_winner = winner
        head_to_head = self.players_in == 2
        knocked = self._eliminate()
        self._emit(
            "round_end",
            round=self.round_number,
            winner=winner,
            reason="out" if winner is not None else "turn-limit",
            held=held,
            gained=gained,
            scores=list(self.scores),
            hands=[[c.code for c in hand] for hand in self.hands],
            turns=self.turns,
            eliminated=knocked,
        )
        self._legal = None
        self.decider = -1
        champion = self._game_winner(winner, head_to_head)
        if champion is None:
            self.pending = Decision.ROUND_OVER
            return
        self.winner = champion
        self.pending = Decision.GAME_OVER
        self._emit("game_end", winner=champion, scores=list(self.scores), rounds=self.round_number)

    def _eliminate(self) -> list[int]:
        """Challenge game: seats whose total reached the target are out of the game."""
        if self.ruleset.options["scoring"] != "elimination":
            return []
        knocked = [s for s in self.seats_in_play if self.scores[s] >= self.ruleset.target]
        for seat in knocked:
            self.eliminated[seat] = True
        return knocked

    def _game_winner(self, round_winner: int | None, head_to_head: bool) -> int | None:
        target, scores, scoring = self.ruleset.target, self.scores, self.ruleset.options["scoring"]
        if scoring == "elimination":
            left = self.seats_in_play
            if head_to_head and round_winner is not None:
                return round_winner  # the last two played head to head: this hand decides
            if len(left) == 1:
                return left[0]
            return min(range(len(scores)), key=lambda s: (scores[s], s)) if not left else None
        if max(scores) < target:
            return None
        if scoring == "winner":
            return scores.index(max(scores))
        return scores.index(min(scores))

    # -- the launcher: every hit is a chance node (game.driver presses it) ----------------
    def _set_pile(self, cards: Sequence[Card]) -> None:
        self.pile = deque(cards)
        self.pile_generation += 1

    def _presses(
        self, seat: int, presses: int, reason: str, *, until: str = "count", then: str = "run"
    ) -> bool:
        """Stop for ``presses`` presses by ``seat``; False when there are none to wait for.

        ``then`` says how to carry on once they are done: ``run`` the rest of the
        card's effect, finish a ``draw``, or ``resume`` the decision an out-of-turn
        penalty interrupted.
        """
        if presses <= 0:
            return False
        if then == "resume":
            self._resume_to = (self.pending, self.decider)
        self._due = PressDue(seat, presses, reason, until)
        self._then = then
        self._maybe_reload()
        self.pending, self.decider = Decision.PRESS, seat
        self._legal = None
        return True

    def _on_fired(self, count: int) -> None:
        """Apply one press's outcome: ``count`` cards came out of the launcher."""
        due = self._due
        assert due is not None
        pile, seat = self.pile, due.seat
        cards = tuple([pile.popleft() for _ in range(min(count, len(pile)))])
        if cards:
            self.hands[seat].extend(cards)
            if seat == self._uno_open:
                self._uno_open = None
            self._last_volley = cards
        self._emit(
            "hit", player=seat, reason=due.reason, cards=[c.code for c in cards], counted=count
        )
        due.presses -= 1
        if due.presses > 0 and not self._press_done(due, cards):
            self._maybe_reload()
            return
        self._due = None
        self._legal = None
        self._continue()

    def _press_done(self, due: PressDue, cards: tuple[Card, ...]) -> bool:
        if due.until == "fire":
            return bool(cards)
        if due.until == "playable":  # house rule draw_until_playable: the cap counts cards
            self._drawn_cards += len(cards)
            self._draw_empties += not cards
            options = self.ruleset.options
            return (
                self._drawn_cards >= int(options["draw_until_cap"])
                or self._draw_empties >= int(options["hit_fire_cap"])
                or any(self._fits(c) for c in cards)
            )
        return False

    def _continue(self) -> None:
        then = self._then
        if then == "draw":
            self._after_draw(self._due_seat_drawn)
        elif then == "resume":
            self.pending, self.decider = self._resume_to
        else:
            self._run()

    def _maybe_reload(self) -> None:
        if self._reloads and not self.pile:
            self._reload()

    def _reload(self) -> None:
        pile = self.discard
        if len(pile) < 2:
            return
        cards = pile[:-1]
        del pile[:-1]
        self._chance.shuffle(cards)
        self._set_pile(cards)
        self._emit("reload", cards=[c.code for c in cards])

    # provided by the engine
    def _emit(self, kind: str, **fields: Any) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        raise NotImplementedError

    def _begin_turn(self, seat: int) -> None:
        raise NotImplementedError

    def _fits(self, card: Card) -> bool:
        raise NotImplementedError

    def _after_draw(self, seat: int) -> None:
        raise NotImplementedError

    def _launcher_text(self) -> str:
        raise NotImplementedError
