"""Round set-up and scoring for :class:`game.engine.Game`: dealer, deal, first card, round end.

Kept apart from the turn machinery so each file stays readable. Every card is
accounted for: at the start of a round all cards come back from the hands, the
discard pile and the launcher (``unload``), are shuffled by the game's chance
source, dealt, one is turned up, and the rest are loaded into the launcher.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from game.cards import Card, Color
from game.chance import derive_seed
from game.errors import GameError
from game.moves import Decision
from launcher.base import DrawPile, Launcher

if TYPE_CHECKING:
    from game.chance import Chance
    from game.rulesets import Ruleset, Step


def open_game_launcher(
    ruleset: Ruleset, launcher: Launcher[Any] | str | None, seed: int
) -> tuple[Launcher[Any], bool]:
    """The launcher to play with, and whether the game owns (and closes) it.

    ``None``: a :class:`DrawPile` for pile rulesets, else the default spec
    (``$UNO_ATTACK_LAUNCHER`` or ``sim://``); ``"pile://"``: a draw pile; other
    text: a launcher spec, seeded from the game seed when it names no seed.
    """
    if isinstance(launcher, Launcher) or (launcher is not None and not isinstance(launcher, str)):
        return launcher, False
    if launcher == "pile://" or (launcher is None and ruleset.draws_from_pile):
        return DrawPile(), True
    from launcher.spec import open_launcher

    return open_launcher(launcher, default_seed=derive_seed(seed, "launcher")), True


class TableMixin:
    """Dealing and scoring; mixed into :class:`~game.engine.Game`."""

    ruleset: Ruleset
    launcher: Launcher[Any]
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
        self._queue: deque[Step] = deque()
        self._actor = 0
        self._card: Card | None = None
        self._pos = 0
        self._target: int | None = None
        self._stack = 0
        self._stack_reason = "hit"
        self._stack_skips = False
        self._challenge: tuple[int, int] | None = None
        self._guilty = False
        self._out: int | None = None
        self._uno_open: int | None = None
        self._uno_called = False
        self._drawn: Card | None = None
        self._first_phase = False
        self._legal: list[Any] | None = None

    def _left(self, seat: int) -> int:
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
            launcher=repr(self.launcher),
            deck=[c.code for c in self.ruleset.deck],
        )
        self.launcher.unload()  # whatever was in it is not part of this game's deck
        self.dealer = self._choose_first_dealer()
        self._deal(list(self.ruleset.deck))

    def _choose_first_dealer(self) -> int:
        """Each player turns a card; highest number deals (actions count 0); ties turn again."""
        cards = list(self.ruleset.deck)
        self._chance.shuffle(cards)
        contenders = list(range(self.num_players))
        turned: dict[int, str] = {}
        while len(contenders) > 1 and cards:
            values = {}
            for seat in contenders:
                card = cards.pop()
                turned[seat] = card.code
                values[seat] = card.number or 0
            best = max(values.values())
            contenders = [s for s in contenders if values[s] == best]
        self._emit("dealer", seat=contenders[0], turned=turned)
        return contenders[0]

    def start_next_round(self) -> None:
        """After a round ends: collect every card, pass the deal to the left, deal again."""
        if self.pending is not Decision.ROUND_OVER:
            raise GameError(
                "the next round can start only when a round is over and the game is not"
                if self.pending is not Decision.GAME_OVER
                else "the game is over"
            )
        cards = (
            [c for hand in self.hands for c in hand] + self.discard + list(self.launcher.unload())
        )
        if len(cards) != len(self.ruleset.deck):
            raise GameError(
                f"card accounting broke: {len(cards)} cards, the deck has {len(self.ruleset.deck)}"
            )
        self.dealer = self._left(self.dealer)
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
        self.launcher.unload()
        dealer = self.dealer
        self._reset_round_state()
        self.dealer, self.direction = dealer, direction
        self.hands = [list(hand) for hand in hands]
        self.discard = [top]
        self.active_color = color if color is not None else top.color
        loaded = [*bottom, *pool]
        self.launcher.load(loaded)
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
        order = [self._left(dealer)]
        while len(order) < self.players_in:
            order.append(self._left(order[-1]))
        for _ in range(self.ruleset.hand_size):
            for seat in order:
                self.hands[seat].append(cards.pop())
        starter, returned = self._turn_starter(cards)
        self.discard = [starter]
        self.active_color = starter.color
        self.launcher.load(cards)
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
        self._actor = self._pos = self.dealer
        self._card = starter
        self._first_phase = True
        self._queue = deque(self.ruleset.first_card.get(starter.kind, ()))
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

    # -- the launcher: every hit presses it -----------------------------------------------
    def _hit(self, seat: int, presses: int, reason: str) -> int:
        """``seat`` presses the launcher ``presses`` times; returns the cards it got."""
        got = 0
        for _ in range(presses):
            got += len(self._press(seat, reason))
        return got

    def _press(self, seat: int, reason: str) -> tuple[Card, ...]:
        launcher = self.launcher
        if self._reloads and launcher.remaining == 0:
            self._reload()
        volley = launcher.hit()
        cards: tuple[Card, ...] = volley.cards
        if cards:
            self.hands[seat].extend(cards)
            if seat == self._uno_open:
                self._uno_open = None
        self._emit(
            "hit", player=seat, reason=reason, cards=[c.code for c in cards], counted=volley.counted
        )
        return cards

    def _reload(self) -> None:
        pile = self.discard
        if len(pile) < 2:
            return
        cards = pile[:-1]
        del pile[:-1]
        self._chance.shuffle(cards)
        self.launcher.load(cards)
        self._emit("reload", cards=[c.code for c in cards])

    # provided by the engine
    def _emit(self, kind: str, **fields: Any) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        raise NotImplementedError

    def _begin_turn(self, seat: int) -> None:
        raise NotImplementedError
