"""UNO Attack as an OpenSpiel game: ``import game.openspiel`` registers ``python_uno_attack``.

>>> import pyspiel
>>> import game.openspiel
>>> spiel_game = pyspiel.load_game("python_uno_attack", {"ruleset": "pocket", "players": 3})
>>> state = spiel_game.new_initial_state()
>>> state.current_player() in range(3)
True

Parameters: ``ruleset`` (attack, attack-original, attack-mega-hit, classic, pocket),
``players``, ``options`` (rule options, ``"name:value;name:value"``), ``profile`` (the
launcher's spit-out profile: a preset name or a TOML path) and ``seed`` (the stream the
initial states' shuffles are seeded from). One episode is one round (:mod:`game.rl.table`).

Chance: every launcher press is an explicit chance node whose outcomes are the profile's
counts capped by the hopper (``fired:N`` is action N). Shuffles cannot be listed (a
108-card deck), so each state samples them from its own seeded chance source, which it
carries, clones and serializes — what OpenSpiel calls sampled chance. The game type still
says ``EXPLICIT_STOCHASTIC``: OpenSpiel serializes a ``SAMPLED_STOCHASTIC`` game through
``Game::GetRNGState``, which a Python game cannot provide, so ``random_sim_test`` with
serialization would abort; the shuffles' source is part of the state instead.

The information state of a seat is everything it saw this round, in order
(:meth:`~game.rl.table.Table.information_state_string`); ``resample_from_infostate``
deals the cards it cannot see again, for :mod:`open_spiel.python.algorithms.ismcts`.
Needs the ``rl`` extra (``pip install 'uno-attack[rl]'``).
"""

from __future__ import annotations

import random
from typing import Any

try:
    import numpy as np
    import pyspiel
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise ModuleNotFoundError(
        f"game.openspiel needs {missing.name}: pip install 'uno-attack[rl]'", name=missing.name
    ) from missing

from game.core.chance import derive_seed
from game.core.errors import RulesetError
from game.rl.compat import max_outcome
from game.rl.table import CHANCE, TERMINAL, Table, TableSpec
from launcher.profiles import DEFAULT_PROFILE

#: The table's actor is the current player as it is (OpenSpiel's ids for chance and the end).
assert (CHANCE, TERMINAL) == (int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL))

SHORT_NAME = "python_uno_attack"
#: The deal is one chance node choosing one of this many seeds, uniformly.
DEALS = 4096
_DEFAULTS: dict[str, Any] = {
    "ruleset": "attack",
    "players": 2,
    "options": "",
    "profile": DEFAULT_PROFILE,
    "seed": 0,
}
_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python UNO Attack",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=10,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def parse_options(text: str) -> dict[str, str]:
    """``"stack_draws:true;jump_in:true"`` -> ``{"stack_draws": "true", "jump_in": "true"}``.

    ``:`` and ``;``, because OpenSpiel's game strings (``name(k=v,k=v)``) reserve ``=``
    and ``,``.
    """
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, colon, value = part.partition(":")
        if not colon or not name.strip():
            raise RulesetError(
                f"game option {part!r} is not NAME:VALUE",
                hint='write options="stack_draws:true;jump_in:true"',
            )
        options[name.strip()] = value.strip()
    return options


def spec_of(params: dict[str, Any]) -> TableSpec:
    """The table a parameter dict describes."""
    return TableSpec.of(
        str(params["ruleset"]),
        int(params["players"]),
        parse_options(str(params["options"])),
        str(params["profile"]),
    )


class UnoAttackGame(pyspiel.Game):  # pyspiel ships no type stubs (Any)
    """The OpenSpiel game: one round of a ruleset at a table of ``players``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        spec = spec_of(merged)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.actions.size,
            max_chance_outcomes=max(DEALS, max_outcome(spec.launcher_profile) + 1),
            num_players=spec.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=spec.max_length,
        )
        super().__init__(_GAME_TYPE, info, merged)
        self.spec = spec
        self.seed = int(merged["seed"])

    def new_initial_state(self) -> UnoAttackState:
        """A round before the deal (a chance node over :data:`DEALS` deal seeds)."""
        return UnoAttackState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> UnoAttackObserver:
        return UnoAttackObserver(self.spec, iig_obs_type, params)


class UnoAttackState(pyspiel.State):
    """A state: before the deal, a chance node; then a :class:`~game.rl.table.Table`."""

    def __init__(self, game: UnoAttackGame) -> None:
        super().__init__(game)
        self._spec = game.spec
        self._seed = game.seed
        #: None until the deal (the first chance node) is made.
        self._table: Table | None = None

    @property
    def dealt(self) -> bool:
        return self._table is not None

    @property
    def table(self) -> Table:
        if self._table is None:
            raise pyspiel.SpielError("the round is not dealt yet: apply a deal:N chance outcome")
        return self._table

    def current_player(self) -> int:
        """The table's actor: its CHANCE and TERMINAL are OpenSpiel's player ids (checked at
        import; read at every step, so no pybind enum is converted here)."""
        table = self._table
        return CHANCE if table is None else table.actor

    def _legal_actions(self, player: int) -> list[int]:
        table = self._table
        return table.legal_actions() if table is not None and player == table.actor else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._table is None:
            return [(deal, 1.0 / DEALS) for deal in range(DEALS)]
        return self._table.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self._table is None:
            self._table = Table(self._spec, derive_seed(self._seed, f"deal:{action}"))
        else:
            # an int from OpenSpiel: int() of it would cost about 600 instructions (docs/rl.md)
            self._table.apply(action if type(action) is int else int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{action}" if self._table is None else f"fired:{action}"
        return self._spec.actions.name(action)

    def is_terminal(self) -> bool:
        return self._table is not None and self._table.is_terminal()

    def returns(self) -> list[float]:
        if self._table is None:
            return [0.0] * self._spec.players
        return self._table.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> UnoAttackState:
        """A state the seat cannot tell from this one (ISMCTS's world sample).

        ``probability_sampler()`` gives a uniform number in [0, 1) (OpenSpiel's
        ``UniformProbabilitySampler``); it seeds the deal of the hidden cards.
        """
        rng = random.Random(int(probability_sampler() * 2**53))
        world: UnoAttackState = self.clone()
        world._table = self.table.resample(player_id, rng)
        return world

    def __str__(self) -> str:
        table = self._table
        if table is None:
            return f"undealt {self._spec} seed={self._seed}"
        hands = " / ".join(
            " ".join(c.code for c in table.game.hand(s)) for s in range(table.players)
        )
        return f"{table} [{hands}] pile={len(table.game.pile)} seed={table.seed}"


class UnoAttackObserver:
    """OpenSpiel's Python observer: observation or (perfect recall) information state."""

    def __init__(self, spec: TableSpec, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.private = (
            iig_obs_type is None
            or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        self.spec = spec
        size = spec.information_state_size if self.perfect_recall else spec.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: UnoAttackState, player: int) -> None:
        table = state._table
        if table is None:  # before the deal nothing is known
            self.tensor.fill(0)
        elif self.perfect_recall:
            self.tensor[:] = table.information_state_tensor(player, self.private)
        else:
            self.tensor[:] = table.observation_tensor(player, self.private)

    def string_from(self, state: UnoAttackState, player: int) -> str:
        table = state._table
        if table is None:
            return f"p{player} undealt"
        if self.perfect_recall:
            return table.information_state_string(player, self.private)
        return table.observation_string(player, self.private)


pyspiel.register_game(_GAME_TYPE, UnoAttackGame)
