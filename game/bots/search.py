"""The search bot (``search``): determinized Monte Carlo over the rule bot's rollouts.

At each decision with a real choice it runs *sweeps*; a sweep is:

1. **Determinize**: :meth:`~game.core.engine.Game.resample_from_infostate` deals the
   cards it cannot see — the other hands and the draw pile / launcher hopper —
   at random from the cards it has not seen, keeping every hand's size and the
   cards it knows another seat holds (:mod:`game.core.infostate`); its beliefs about
   the colours a seat lacks (:mod:`game.bots.inference`) bias the deal. The
   sample depends only on the seat's observation, never on the true cards, and
   its chance source is new, so a reload's shuffle is not the real one.
2. **Roll out** some legal moves in that same world (common random numbers:
   same world, same rule-bot seeds, same launcher presses): make the move,
   then let rule bots play every seat for ``depth`` decisions (or to the end
   of the round).
3. Score: 1 for winning the round, 0 for losing it; a cut-off rollout scores
   the seat's win chance fitted from hand sizes (:data:`LEAF_FIT`). Short
   rollouts with a smooth score are cheaper and far less noisy than long ones
   scored 0/1, so the same CPU buys more of them (docs/bots.md).

**Successive halving** spends the ``iterations`` budget: half on sweeps over
every legal move, the other half on the rule bot's own move and the ``keep``
best others. It plays the rule bot's move unless another beats it, paired
sweep by sweep, by ``margin`` standard errors. Decisions with one legal move
cost nothing; a challenge is answered by the rule bot (whether the accused
bluffed is hidden). Everything random comes from the bot's own seeded ``rng``,
so a seed replays the game; ``time_budget`` (seconds, off by default) trades
replayability for a wall-clock bound.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ClassVar

from game.bots.base import offer_table_moves
from game.bots.inference import Belief, hand_constraints
from game.bots.rule import RuleBot
from game.core.errors import RulesetError
from game.core.infostate import InfoStateSampler
from game.core.moves import Decision, Move, fired
from launcher.profiles import DEFAULT_PROFILE, IIDProfile, Profile, load_profile

if TYPE_CHECKING:
    from game.core.engine import Game

#: Cards one press yields in a rollout, given the cards loaded.
PressModel = Callable[[int], int]
#: Makes a rollout's press model from a seed.
PressModels = Callable[[int], PressModel]


class SearchBot(RuleBot):
    """Determinized Monte Carlo with rule-bot rollouts; see the module docstring."""

    name = "search"
    PARAMS: ClassVar[dict[str, float]] = {
        "iterations": 256,  #: rollouts per decision (spread over its legal moves)
        "depth": 20,  #: decisions per rollout before it is scored from hand sizes
        "margin": 1.0,  #: standard errors a move must beat the rule bot's choice by
        "keep": 2,  #: moves besides the rule bot's that get the second half of the rollouts
    }

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: float = PARAMS["iterations"],
        depth: float = PARAMS["depth"],
        margin: float = PARAMS["margin"],
        keep: float = PARAMS["keep"],
        time_budget: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(seed)
        self.iterations = max(1, int(iterations))
        self.depth = max(1, int(depth))
        self.margin = margin
        self.keep = max(1, int(keep))
        self.time_budget = time_budget
        self.clock = clock
        #: Rollouts made so far (for benchmarks).
        self.rollouts = 0

    @classmethod
    def from_params(cls, seed: int | None, params: Mapping[str, float]) -> SearchBot:
        known = dict(cls.PARAMS, **params)
        _check_params(known)
        return cls(
            seed,
            iterations=known["iterations"],
            depth=known["depth"],
            margin=known["margin"],
            keep=known["keep"],
        )

    def choose(self, game: Game, seat: int) -> Move:
        """Search worlds sampled from ``seat``'s observation; the game itself is never read."""
        view = game.observation(seat)
        moves = view.moves
        if len(moves) == 1 or view.decision is Decision.CHALLENGE:
            return self.decide(view)
        default = moves.index(self.decide(view))
        kept, rows = self.halving(game, seat, default)
        return moves[kept[pick(rows, kept.index(default), self.margin)]]

    def evaluate(self, game: Game, seat: int) -> list[float]:
        """The total rollout score of each of the seat's legal moves (observation order)."""
        sweeps = self.sweeps(game, seat)
        return [sum(column) for column in zip(*sweeps, strict=True)]

    def sweeps(self, game: Game, seat: int) -> list[list[float]]:
        """Per sweep (one sampled world), the rollout score of each legal move, in order."""
        moves = game.observation(seat).moves
        count = max(1, self.iterations // len(moves))
        return self._sweep(game, seat, list(range(len(moves))), count, self._deadline())

    def halving(self, game: Game, seat: int, default: int) -> tuple[list[int], list[list[float]]]:
        """Successive halving: screen every move, then spend the rest on the few best.

        Half the budget goes to sweeps over all legal moves; the rule bot's
        ``default`` and the ``keep`` best others by mean then share the other half.
        Returns the kept move indices and, per sweep, their scores (both phases).
        """
        moves = game.observation(seat).moves
        deadline = self._deadline()
        everyone = list(range(len(moves)))
        first = max(2, self.iterations // (2 * len(moves)))
        rows = self._sweep(game, seat, everyone, first, deadline)
        totals = [sum(column) for column in zip(*rows, strict=True)]
        others = sorted((i for i in everyone if i != default), key=lambda i: -totals[i])
        kept = sorted([default, *others[: self.keep]])
        rows = [[row[i] for i in kept] for row in rows]
        spent = first * len(moves)
        second = max(0, (self.iterations - spent) // len(kept))
        rows += self._sweep(game, seat, kept, second, deadline)
        return kept, rows

    def _deadline(self) -> float | None:
        return None if self.time_budget is None else self.clock() + self.time_budget

    def _sweep(
        self, game: Game, seat: int, chosen: list[int], count: int, deadline: float | None
    ) -> list[list[float]]:
        """``count`` sampled worlds; in each, the rollout score of each ``chosen`` move."""
        view = game.observation(seat)
        moves = view.moves
        rows: list[list[float]] = []
        models = press_models(game)
        beliefs = hand_constraints(view.history, game.num_players)
        sampler = InfoStateSampler(game, seat)
        for _ in range(count):
            if deadline is not None and rows and self.clock() >= deadline:
                break
            world_seed = self.rng.getrandbits(64)
            world = sampler.sample(random.Random(world_seed), prefer=beliefs, history=False)
            rows.append(
                [
                    self._rollout(world.copy(), moves[i], seat, world_seed, models(world_seed))
                    for i in chosen
                ]
            )
        return rows

    def _rollout(self, sim: Game, move: Move, seat: int, seed: int, model: PressModel) -> float:
        self.rollouts += 1
        bots = [RuleBot(seed + s) for s in range(sim.num_players)]
        sim.play(move)
        offer_table_moves(sim, bots)
        for _ in range(self.depth):
            if sim.is_round_over():
                return 1.0 if getattr(sim, "round_winner", None) == seat else 0.0
            if sim.pending is Decision.PRESS:
                held = len(sim.pile)  # a press shoots no more than the hopper holds
                sim.play(fired(min(model(held), held)))
                continue
            actor = sim.decider
            sim.play(bots[actor].choose(sim, actor))
            offer_table_moves(sim, bots)
        return _closeness(sim, seat)


def pick(rows: list[list[float]], default: int, margin: float) -> int:
    """The move to play: the rule bot's ``default`` unless another beats it clearly.

    Moves are compared with ``default`` sweep by sweep (paired: same world, same
    presses), and one replaces it only if its mean gain exceeds ``margin``
    standard errors: with few rollouts, noise must not overrule good sense.
    """
    best, best_gain = default, 0.0
    n = len(rows)
    for i in range(len(rows[0])):
        diffs = [row[i] - row[default] for row in rows]
        mean = sum(diffs) / n
        spread = (sum((d - mean) ** 2 for d in diffs) / (n - 1)) ** 0.5 if n > 1 else 0.0
        if mean > best_gain and mean > margin * spread / n**0.5:
            best, best_gain = i, mean
    return best


#: The win chance of a seat from hand sizes, ``sigmoid(c0 + c1 ln mine + c2 ln best + c3 turn)``
#: (``best``: the fewest cards among the others; ``turn``: 1 if the seat is to decide),
#: fitted by logistic regression to rule-bot rounds of Attack (``bench/leaf_fit.py``).
LEAF_FIT: dict[int, tuple[float, float, float, float]] = {
    2: (-0.067, -0.517, 0.517, 0.135),
    4: (-0.544, -0.857, 0.592, 0.166),
}


def _closeness(sim: Game, seat: int) -> float:
    """A cut-off rollout's score: the fitted win chance of ``seat`` from the hand sizes.

    A smooth score, not 0/1, makes short rollouts far less noisy than complete ones.
    """
    if sim.is_round_over():
        return 1.0 if getattr(sim, "round_winner", None) == seat else 0.0
    mine = max(1, len(sim.hands[seat]))
    best = max(1, min(len(sim.hands[s]) for s in sim.seats_in_play if s != seat))
    players = sim.players_in
    c0, c1, c2, c3 = LEAF_FIT[min(LEAF_FIT, key=lambda n: (abs(n - players), n))]
    z = c0 + c1 * math.log(mine) + c2 * math.log(best) + c3 * (sim.decider == seat)
    return 1.0 / (1.0 + math.exp(-z))


def determinize(
    game: Game, seat: int, rng: random.Random, beliefs: list[Belief] | None = None
) -> Game:
    """A world ``seat`` cannot tell from ``game``: its hidden cards dealt again by ``rng``.

    :meth:`~game.core.engine.Game.resample_from_infostate` with the search bot's beliefs
    (``beliefs``) biasing the deal and no event log (rollouts do not read it).
    """
    return InfoStateSampler(game, seat).sample(rng, prefer=beliefs, history=False)


def press_models(game: Game) -> PressModels:
    """How many cards a rollout's press yields: the launcher's (public) per-press odds the
    game was given, sampled with the rollout's seed (one card from a draw pile), or the
    default profile when the game has none (a launcher whose presses depend on the past)."""
    odds = game.press_odds
    if odds == (0.0, 1.0):
        return lambda seed: _one_card
    known: Profile = (
        IIDProfile("game", "the game's press odds", "", tuple(odds))
        if odds
        else load_profile(DEFAULT_PROFILE)
    )
    return lambda seed: known.sampler(seed).next


def _one_card(loaded: int) -> int:
    return 1 if loaded else 0


def _check_params(params: Mapping[str, float]) -> None:
    """A spec's numbers must make sense: ``search:iterations=-3`` is a typo, not 1 rollout."""
    for name in ("iterations", "depth", "keep"):
        value = params[name]
        if not (math.isfinite(value) and value >= 1 and value == int(value)):
            raise RulesetError(
                f"search bot: {name}={value:g} must be a whole number >= 1",
                hint=f"e.g. search:{name}={SearchBot.PARAMS[name]:g}",
            )
    if not (math.isfinite(params["margin"]) and params["margin"] >= 0):
        raise RulesetError(
            f"search bot: margin={params['margin']:g} must be a number >= 0",
            hint="standard errors a move must beat the rule bot's by, e.g. search:margin=1",
        )
