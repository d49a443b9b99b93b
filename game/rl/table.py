"""One round of UNO Attack as a sequential game: one actor at a time, ids for moves.

The engine's turn structure has two things frameworks like OpenSpiel and PettingZoo do not:

* **Launcher presses** are chance nodes (the rules core holds no launcher). The
  table lists their outcomes (:func:`game.rl.compat.chance_outcomes`); a press with one
  possible outcome (a draw pile, an empty hopper) is made at once and never shown.
* **Out-of-turn moves** (call UNO, catch a seat that did not, jump in) may be made by any
  seat at almost any time. The table turns them into turns: whenever some seats have
  such moves, each of them in turn — the seat down to one card first, then the others
  from the decider's left — gets a turn whose moves are its out-of-turn moves plus
  ``wait``. Once every such seat has waited, the decider moves. Any other move opens a new
  round of offers.

Shuffles (the deal, a reload) are not chance nodes: they are sampled from the game's own
seeded chance source, which is part of the state (cloned and serialized with it).

An episode is one round: it ends when the round does; the winner gets +1, the others
-1/(n-1) (0 for everyone when ``round_turn_limit`` ends it without a winner).
"""

from __future__ import annotations

import dataclasses
import functools
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from game.core.cards import COLORS
from game.core.chance import seeded
from game.core.engine import Game
from game.core.errors import IllegalMove
from game.core.infostate import QuickCopyRandom
from game.core.moves import Decision, Move
from game.core.observe import redact
from game.core.round import round_fields, set_round_fields
from game.core.rulesets import Ruleset, load_ruleset
from game.play.driver import fired
from game.rl import compat
from game.rl.actions import ActionSpace
from game.rl.tensor import SeatMask, SeatTensor, TensorLayout
from launcher.profiles import DEFAULT_PROFILE, Profile, load_profile

#: Who acts at a chance node / after the end (OpenSpiel's PlayerId values).
CHANCE, TERMINAL = -1, -4
#: The round's end, tested by identity (``in`` a tuple compares a StrEnum member by ``==``).
_ROUND_OVER, _GAME_OVER = Decision.ROUND_OVER, Decision.GAME_OVER
_DECISIONS = tuple(Decision)
_PRESS = Decision.PRESS
#: A press's outcomes: the counts it can shoot, their probabilities, the running sums
#: (:class:`game.rl.compat.PressOutcomes`, or the same as a plain tuple).
_Outcomes = tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]
#: The largest game length OpenSpiel's GameInfo can hold (a C++ int).
_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class TableSpec:
    """What a table is: ruleset, players, rule options and the launcher profile.

    ``profile`` is a preset name or a TOML path; it matters only for launcher rulesets
    (the pile rulesets, classic and pocket, draw one card per press).
    """

    ruleset: str = "attack"
    players: int = 2
    options: tuple[tuple[str, Any], ...] = ()
    profile: str = DEFAULT_PROFILE

    @classmethod
    def of(
        cls,
        ruleset: str = "attack",
        players: int = 2,
        options: Mapping[str, Any] | None = None,
        profile: str | None = None,
    ) -> TableSpec:
        return cls(
            ruleset, players, tuple(sorted((options or {}).items())), profile or DEFAULT_PROFILE
        )

    @property
    def rules(self) -> Ruleset:
        return _static(self)[0]

    @property
    def launcher_profile(self) -> Profile | None:
        """The profile presses follow (None: a draw pile)."""
        return _static(self)[1]

    @property
    def actions(self) -> ActionSpace:
        return _static(self)[2]

    @property
    def observation_size(self) -> int:
        """The length of :meth:`Table.observation_tensor`."""
        faces, n = len(self.actions.cards), self.players
        return 2 * faces + len(COLORS) + 4 * n + len(_DECISIONS) + 3

    @property
    def information_state_size(self) -> int:
        """The length of :meth:`Table.information_state_tensor`."""
        return self.observation_size + self.players * len(self.actions.cards)

    @property
    def max_length(self) -> int:
        """A bound on the player moves of a round (``round_turn_limit`` turns, each bounded)."""
        turns = int(self.rules.options["round_turn_limit"]) or _INT_MAX
        # per turn: the turn, a colour, a target, a stack answer, a play-again, and an offer
        # of out-of-turn moves to every seat after each of them
        return min(_INT_MAX, turns * 6 * (self.players + 1))


@functools.cache
def _static(spec: TableSpec) -> tuple[Ruleset, Profile | None, ActionSpace]:
    rules = load_ruleset(spec.ruleset, dict(spec.options))
    rules.check_players(spec.players)
    profile = None if rules.draws_from_pile else load_profile(spec.profile)
    return rules, profile, ActionSpace(rules, spec.players)


class Table:
    """A round of UNO Attack with one actor at a time (module docstring): the shared core."""

    def __init__(self, spec: TableSpec, seed: int) -> None:
        self.spec = spec
        self.seed = seed
        self._profile = spec.launcher_profile
        odds, by_load = _press_tables(spec)
        self.game = Game(spec.rules, spec.players, _quick_copying(seed), seed=seed, press_odds=odds)
        self.press = compat.PressState()
        #: A memoryless press's outcomes by load (None: the profile has a memory).
        self._by_load = by_load
        #: Seats that waited in the current offer of out-of-turn moves.
        self.declined: set[int] = set()
        self._actions = spec.actions
        self._layout = _layout(spec)
        #: The moves made, each (events before it, actor, action id), or for a press (events
        #: before it, None, cards shot): with the engine's events, what happened in order.
        self.moves: list[tuple[int, int | None, int]] = []
        #: Per seat, the log as it saw it, one token an entry (made when first asked for).
        self.views: list[list[str]] = [[] for _ in range(spec.players)]
        self._viewed = (0, 0)  # events, moves
        #: Every play this round (public), as the plays are made (:meth:`apply`): one
        #: ``seat * faces + face`` each, the played-card rows of the tensors.
        self.plays: list[int] = []
        #: Each seat's tensors (hand shown, hand hidden) and masks, made when first asked
        #: for and then kept up to date (:mod:`game.rl.tensor`).
        self._seat_tensors: list[SeatTensor | None] = [None] * (2 * spec.players)
        self._seat_masks: list[SeatMask | None] = [None] * spec.players
        #: The seat UNO is open to, found when the decider is (_ASK: ask the game), and
        #: the game's pending decision (both as :meth:`_settle` last saw them).
        self._uno: int | None = _ASK
        self._pending = Decision.TURN
        self.actor = TERMINAL
        #: Whether the actor is being offered its out-of-turn moves (else it decides).
        self.offering = False
        #: Whether jump-ins are on (else out-of-turn moves need a seat UNO is open to).
        self._jump_in = self.game.rules.jump_in
        self._legal: dict[int, Move | None] | None = None
        self._outcomes: _Outcomes = _NO_PRESS
        self._settle()

    # -- the sequential view ------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.spec.players

    @property
    def actions(self) -> ActionSpace:
        return self._actions

    def is_terminal(self) -> bool:
        return self.actor == TERMINAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: (cards shot, probability) for each possible press outcome."""
        if self.actor != CHANCE:
            return []
        counts, probabilities, _ = self._outcomes
        return list(zip(counts, probabilities, strict=True))

    def legal(self) -> dict[int, Move | None]:
        """The actor's moves by action id (None is ``wait``); empty at chance/terminal."""
        legal = self._legal
        if legal is None:
            if self.offering or self.actor < 0:
                legal = self._offers()
            else:  # the decider's moves: the common case, one call
                legal = self._actions.encode_all(self.game.legal_moves())
            self._legal = legal
        return legal

    def legal_actions(self) -> list[int]:
        """The actor's action ids (at a chance node: the press outcomes), ascending."""
        if self.actor == CHANCE:
            return list(self._outcomes[0])
        return sorted(self.legal())

    def action_mask(self, seat: int) -> np.ndarray:
        """1 for each id ``seat`` may take now (all 0 when it does not act), as int8: a
        fresh array, copied from the seat's kept mask (:class:`~game.rl.tensor.SeatMask`)."""
        mask = self._seat_masks[seat]
        if mask is None:
            mask = self._seat_masks[seat] = SeatMask(self._actions.size)
        if seat == self.actor:
            legal = self._legal
            mask.show(self.legal() if legal is None else legal)
        else:
            mask.show(())
        return mask.array.copy()

    def apply(self, action: int, uniform: Callable[[], float] | None = None) -> None:
        """Make ``action`` for the actor (at a chance node: the press shot ``action`` cards).

        ``uniform``: then sample every press that follows until a seat acts, as
        :meth:`press_until_a_seat_acts` would (an RL environment's step, in one call:
        about 900 instructions a step less; docs/rl.md, session 12).
        """
        actor = self.actor
        if actor == CHANCE:
            if action not in self._outcomes[0]:
                raise IllegalMove(f"a press cannot shoot {action} cards here")
            self._press(action)
            self._settle(uniform)
            return
        legal = self._legal
        if legal is None:
            legal = self.legal()
        if action not in legal:
            raise IllegalMove(f"action {action} is not legal for seat {actor} now")
        move, game = legal[action], self.game
        # the log's __len__ called as a method: through len() it costs about 390 instructions
        # more (Python's slot wrapper), 1.5 times a step of the env() loop (docs/rl.md)
        self.moves.append((game.event_log.__len__(), actor, action))
        if move is None:
            self.declined.add(actor)
        else:
            if self.declined:
                self.declined.clear()
            game.play(move)
            if action < self._actions.give:  # play:CARD, the first ids; every seat sees it
                self.plays.append(actor * self._layout.faces + action)
        self._settle(uniform)

    def press_until_a_seat_acts(self, uniform: Callable[[], float]) -> None:
        """Sample every pending press (``uniform()``: a number in [0, 1)) until a seat acts."""
        if self.actor == CHANCE:
            counts, _, cumulative = self._outcomes
            self._press(counts[bisect_right(cumulative, uniform() * cumulative[-1])])
            self._settle(uniform)  # and the presses after it

    def returns(self) -> list[float]:
        """Zero-sum: +1 to the round's winner, -1/(n-1) to the rest; 0 before the end."""
        n = self.players
        winner = self.game.round_winner if self.is_terminal() else None
        if winner is None:
            return [0.0] * n
        return [1.0 if seat == winner else -1.0 / (n - 1) for seat in range(n)]

    # -- views of one seat -----------------------------------------------------------------
    def observation_string(self, seat: int, private: bool = True) -> str:
        """What ``seat`` sees now (no memory): its hand, the table, who acts."""
        game = self.game
        hand = " ".join(c.code for c in game.hand(seat)) if private else "?"
        color = game.active_color.value if game.active_color else "-"
        return (
            f"p{seat} hand:[{hand}] sizes:{game.hand_sizes} top:{game.discard[-1].code} "
            f"color:{color} dir:{game.direction} {game.pending.value}@{game.decider} "
            f"actor:{self.actor} stack:{game.stack} pile:{len(game.pile)} "
            f"uno:{game.uno_pending}"
        )

    def information_state_string(self, seat: int, private: bool = True) -> str:
        """Everything ``seat`` has seen this round, in order (its information set)."""
        waited = ",".join(map(str, sorted(self.declined)))
        view = " ".join(self._view(seat)) if private else ""
        return f"{self.observation_string(seat, private)} waited:[{waited}] | {view}"

    def observation_tensor(self, seat: int, private: bool = True) -> np.ndarray:
        """A fixed-size float vector of :meth:`observation_string` (docs/rl.md, layout)."""
        return self._seat_tensor(seat, private).array[: self._layout.observation_size].copy()

    def information_state_tensor(self, seat: int, private: bool = True) -> np.ndarray:
        """The observation plus every seat's played cards this round (relative seats).

        A fixed-size summary of the information set; the string form is the exact one. A
        fresh array, copied from the seat's kept tensor (:class:`~game.rl.tensor.SeatTensor`:
        only what changed since it was last asked for is written).
        """
        return self._seat_tensor(seat, private).array.copy()

    def tensor_and_mask(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`information_state_tensor` and :meth:`action_mask` of ``seat`` in one call:
        an RL environment's observation, once a step.

        A Python call costs 350-500 instructions before its body runs, so this is written
        out without the calls the two would make: :meth:`action_mask`'s lines, the common
        case of :meth:`legal` (its two calls cost about 1,000 instructions a step of the
        ``env()`` loop; docs/rl.md, session 12) and :meth:`_seat_tensor`'s.
        """
        mask = self._seat_masks[seat]
        if mask is None:
            mask = self._seat_masks[seat] = SeatMask(self._actions.size)
        actor, game = self.actor, self.game
        if seat == actor:
            legal = self._legal
            if legal is None:
                if self.offering:
                    legal = self._offers()
                else:  # the decider's moves
                    legal = self._actions.encode_all(game.legal_moves())
                self._legal = legal
            mask.show(legal)
        else:
            mask.show(())
        tensor = self._seat_tensors[seat]
        if tensor is None:
            tensor = self._seat_tensors[seat] = SeatTensor(self._layout, seat, True)
        uno = self._uno
        if uno is not None and uno == _ASK:  # None == int: an unspecialised compare
            uno = game.uno_pending
        tensor.refresh(game, actor, self._pending, uno, self.plays)
        return tensor.array.copy(), mask.array.copy()

    def _seat_tensor(self, seat: int, private: bool) -> SeatTensor:
        """``seat``'s kept tensor, brought up to the table's state."""
        index = seat if private else seat + self.spec.players
        tensor = self._seat_tensors[index]
        if tensor is None:
            tensor = self._seat_tensors[index] = SeatTensor(self._layout, seat, private)
        uno = self._uno
        tensor.refresh(
            self.game,
            self.actor,
            self._pending,
            self.game.uno_pending if uno == _ASK else uno,
            self.plays,
        )
        return tensor

    # -- copies, worlds, pickling ---------------------------------------------------------
    def copy(self) -> Table:
        """An independent copy (its own game, chance source, views)."""
        twin = object.__new__(Table)
        twin.__dict__.update(self.__dict__)
        twin.game = self.game.copy()
        twin._copy_memory(self)
        return twin

    def resample(self, seat: int, rng: Any) -> Table:
        """A copy where what ``seat`` cannot see is dealt again (same views, same actor)."""
        twin = object.__new__(Table)
        twin.__dict__.update(self.__dict__)
        twin.game = compat.resample(self.game, seat, rng)
        twin._copy_memory(self)
        return twin

    def _copy_memory(self, other: Table) -> None:
        self.press = dataclasses.replace(other.press)
        self.declined = set(other.declined)
        self.moves = list(other.moves)
        self.views = [list(view) for view in other.views]
        self.plays = list(other.plays)
        self._seat_tensors = [None] * (2 * self.spec.players)
        self._seat_masks = [None] * self.spec.players
        self._legal = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        game = dict(self.game.__dict__)
        del game["ruleset"], game["rules"]  # rebuilt from the spec (mapping proxies)
        state["game"] = game
        state["game_round"] = round_fields(self.game)  # the round's fields live in slots
        state["_legal"] = None
        state["_seat_tensors"] = [None] * (2 * self.spec.players)  # they hold memoryviews
        state["_seat_masks"] = [None] * self.spec.players
        del state["_layout"]  # rebuilt from the spec (it holds the card objects)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        from game.core.legal import CompiledRules

        game = object.__new__(Game)
        game.__dict__.update(state.pop("game"))
        set_round_fields(game, state.pop("game_round"))
        spec: TableSpec = state["spec"]
        game.ruleset = spec.rules
        game.rules = CompiledRules.of(spec.rules)
        self.__dict__.update(state)
        self.game = game
        self._layout = _layout(spec)
        self._jump_in = game.rules.jump_in

    def __str__(self) -> str:
        return f"{self.game!r} actor={self.actor} waited={sorted(self.declined)}"

    # -- the machinery --------------------------------------------------------------------
    def _press(self, count: int) -> None:
        """The pending press shot ``count`` cards (a count it can shoot)."""
        if self.declined:
            self.declined.clear()
        game = self.game
        self.moves.append((game.event_log.__len__(), None, count))  # as in apply()
        game.play(_FIRED[count] if count < len(_FIRED) else fired(count))
        if self._by_load is None:  # the profile has a memory: advance it
            compat.after_press(game, self._profile, self.press, count)

    def _settle(self, uniform: Callable[[], float] | None = None) -> None:
        """Make the presses that have one outcome (with ``uniform``, every press: sampled
        as in :meth:`press_until_a_seat_acts`); find who acts next."""
        self._legal = None
        game = self.game
        while True:
            pending = self._pending = game.pending
            if pending is not _PRESS:
                if pending is _ROUND_OVER or pending is _GAME_OVER:
                    self.actor, self._outcomes, self.offering = TERMINAL, _NO_PRESS, False
                    self._uno = _ASK
                    return
                self._outcomes = _NO_PRESS
                if game.uno_open is None and not self._jump_in:
                    # no out-of-turn move (Game.table_moves's own first test, without its call)
                    self._uno = offered = None
                else:
                    table_moves = game.table_moves()
                    if table_moves:  # a seat UNO is open to can call it: then it is in them
                        self._uno = game.uno_pending
                        offered = self._offered_seat(table_moves)
                    else:
                        self._uno = offered = None
                self.offering = offered is not None
                self.actor = game.decider if offered is None else offered
                return
            by_load = self._by_load
            if by_load is not None:  # every load up to the deck's size is listed
                loaded = len(game.pile)
                outcomes = by_load[loaded] if loaded < len(by_load) else by_load[-1]
            else:
                outcomes = compat.press_outcomes(game, self._profile, self.press)
            counts, _, cumulative = outcomes
            if len(counts) == 1:
                self._press(counts[0])
            elif uniform is None:
                self.actor, self.offering, self._outcomes = CHANCE, False, outcomes
                self._uno = _ASK
                return
            else:
                self._press(counts[bisect_right(cumulative, uniform() * cumulative[-1])])

    def _offered_seat(self, moves: list[Move]) -> int | None:
        """The next seat to be offered its out-of-turn ``moves``, or None (the decider moves)."""
        seats = {self.game.seat_of(move) for move in moves} - self.declined
        if not seats:
            return None
        first = self.game.uno_pending
        if first in seats:
            return first
        n, decider = self.players, self.game.decider
        return next(s for s in ((decider + i) % n for i in range(1, n + 1)) if s in seats)

    def _offers(self) -> dict[int, Move | None]:
        """The offered seat's out-of-turn moves and ``wait`` (nothing at chance/terminal)."""
        actor, game, encode = self.actor, self.game, self._actions.encode
        if actor < 0:
            return {}
        offered: dict[int, Move | None] = {}
        for move in game.table_moves():
            if game.seat_of(move) == actor:
                offered.setdefault(encode(move), move)
        offered[self._actions.wait] = None
        return dict(sorted(offered.items()))

    def _view(self, seat: int) -> list[str]:
        """``seat``'s tokens of what happened: the engine's events as the engine redacts them
        for that seat, and the moves (a ``give`` names its card to the giver only)."""
        events, moves, views = self.game.events, self.moves, self.views
        names, give, give_end = self._actions.names, self._actions.give, self._actions.color
        seen, told = self._viewed
        while True:
            if told < len(moves) and moves[told][0] <= seen:  # a move, before its events
                _, actor, action = moves[told]
                if actor is None:  # a press
                    token = hidden = f"fired:{action}"
                else:
                    token = f"{actor}:{names[action]}"
                    hidden = f"{actor}:give" if give <= action < give_end else token
                for other, view in enumerate(views):
                    view.append(token if other == actor else hidden)
                told += 1
            elif seen < len(events):
                event = events[seen]
                public = _token(event)
                for other, view in enumerate(views):
                    redacted = redact(event, other)
                    view.append(public if redacted is event else _token(redacted))
                seen += 1
            else:
                break
        self._viewed = seen, told
        return views[seat]


#: No press pending.
_NO_PRESS = compat.PressOutcomes((), (), ())
#: ``fired:N`` for the usual counts (the core's own shared moves), without a call each.
_FIRED = tuple(fired(count) for count in range(64))


#: ``Table._uno`` when the seat UNO is open to is not known: the game is asked.
_ASK = -2


@functools.cache
def _press_tables(spec: TableSpec) -> tuple[tuple[float, ...] | None, tuple[_Outcomes, ...] | None]:
    """The profile's odds for the core and a memoryless press's outcomes by load, once per
    spec (listing the outcomes costs about 480,000 instructions: a new table, an episode of
    ``env()``, used to list them again; docs/rl.md, session 14).

    The outcomes are :func:`game.rl.compat.outcomes_by_load`'s as plain tuples (counts,
    probabilities, running sums), one for every load up to the deck's size: a press looks
    its load up by index (the ``min()`` of two numbers it replaces cost about 1,400
    instructions more) and unpacks it (a ``NamedTuple``'s fields are read through
    descriptors: about 400 more).
    """
    profile = spec.launcher_profile
    by_load = compat.outcomes_by_load(profile)
    if by_load is None:
        return compat.press_odds(profile), None
    top = len(by_load) - 1  # the last entry stands for every larger load
    listed = [by_load[min(n, top)] for n in range(max(len(spec.rules.deck), top) + 1)]
    return compat.press_odds(profile), tuple(
        (o.counts, o.probabilities, o.cumulative) for o in listed
    )


@functools.cache
def _layout(spec: TableSpec) -> TensorLayout:
    """The tensor layout of ``spec`` (once per spec: its key hashes every card of the deck)."""
    rules = spec.rules
    return TensorLayout.of(tuple(spec.actions.cards), frozenset(rules.deck), spec.players)


def _quick_copying(seed: int) -> QuickCopyRandom:
    """The game's seeded stream in a source that deep-copies in one call (clones copy it).

    ``Game.copy`` deep-copies a ``random.Random`` element by element (625 words), the
    largest cost of an OpenSpiel clone; the resampler's source copies its state at C speed
    and draws the same numbers. While the core seeds as ``random.Random`` does (checked at
    import), the source is seeded itself: a quarter of the cost of seeding a second source
    and copying its state (about 180,000 instructions a table; docs/rl.md, session 14).
    """
    if _SEEDED_AS_RANDOM:
        return QuickCopyRandom(seed)
    twin = QuickCopyRandom(0)
    twin.setstate(seeded(seed).getstate())
    return twin


#: Whether the core's ``seeded(seed)`` is ``random.Random(seed)``'s stream.
_SEEDED_AS_RANDOM = all(
    seeded(seed).getstate() == QuickCopyRandom(seed).getstate() for seed in (0, 1, 2**62 + 7)
)


def _token(event: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in event.items())
