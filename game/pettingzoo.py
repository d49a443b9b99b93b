"""UNO Attack as a PettingZoo AEC environment: ``game.pettingzoo.env(ruleset=..., players=...)``.

>>> from game.pettingzoo import env
>>> table = env(ruleset="pocket", players=3)
>>> table.reset(seed=7)
>>> observation, reward, termination, truncation, info = table.last()
>>> int(observation["action_mask"].sum()) > 0
True

Agents ``player_0`` ... act one at a time (:mod:`game.rl.table`): a turn, a colour, a
target, a challenge, a stack or take, and the out-of-turn moves (UNO calls, catches,
jump-ins) offered seat by seat, each with ``wait``. The action space is fixed
(:class:`~game.rl.actions.ActionSpace`); ``observation["action_mask"]`` marks the legal
ids. ``observation["observation"]`` is the seat's information-state tensor (its hand, the
table, every seat's played cards; docs/rl.md). Launcher presses are sampled inside
:meth:`UnoAttackEnv.step` from the profile's distribution with the environment's
generator, seeded by ``reset(seed=...)``; an episode is one round; the winner's reward is
+1, the others' -1/(n-1). Needs the ``rl`` extra.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
    from pettingzoo.utils.env_logger import EnvLogger
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise ModuleNotFoundError(
        f"game.pettingzoo needs {missing.name}: pip install 'uno-attack[rl]'", name=missing.name
    ) from missing

from game.rl.table import TERMINAL, Table, TableSpec

RENDER_MODES = ("human", "ansi")


def env(**kwargs: Any) -> AECEnv:
    """The environment, wrapped in PettingZoo's order-enforcing wrapper (see :func:`raw_env`)."""
    return OrderEnforcingWrapper(raw_env(**kwargs))


def _forwarded(name: str, *, after_reset: bool = True) -> property:
    """A read of the environment's ``name`` (before ``reset()``: PettingZoo's AttributeError)."""

    def read(self: OrderEnforcingWrapper) -> Any:
        if after_reset and not self.has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(read, doc=f"The environment's ``{name}``.")


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # pettingzoo ships no type hints
    """PettingZoo's order-enforcing wrapper, with the reads of every step made directly.

    PettingZoo's wrapper hands the environment's attributes on through ``__getattr__``,
    which Python calls only once the ordinary lookup has failed and built an
    AttributeError: about 9,100 instructions a read, and ``last()`` and ``step()`` make six
    a step, more than the rules engine's whole move (docs/rl.md, "Why the step is written
    this way"). Here the attributes they read are properties that forward them, with
    PettingZoo's check: read before ``reset()``, they raise its AttributeError; ``step``
    makes PettingZoo's checks and calls the environment's at once, ``last`` hands over to
    the environment's. Everything else (the order checks of ``observe``, ``render``,
    ``agent_iter``) is PettingZoo's own.
    """

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards", after_reset=False)

    def __init__(self, env: AECEnv) -> None:
        self.has_reset = False
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.has_reset = True
        # From now on last() is the environment's own, bound here: the method below would
        # only hand over to it, and its frame cost about 1,400 instructions a step (callgrind
        # of the env() loop; docs/rl.md, session 12).
        self.last = self.env.last  # type: ignore[method-assign]  # on purpose: above
        # and step() is _Stepping's, which holds the wrapper and the environment: this
        # class's own reads of self.has_reset and self.env go through the __getattr__ hook
        # PettingZoo's wrapper has (about 400 instructions each, three a step; session 14)
        self.step = _Stepping(self, self.env).step  # type: ignore[method-assign]  # as last

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Before ``reset()``: PettingZoo's check, then the environment's ``last()``
        (PettingZoo's wrapper reads it field by field). After it, :meth:`reset` has bound
        the environment's ``last`` in its place."""
        if observe and not self.has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        """PettingZoo's checks, then the environment's ``step`` (theirs takes three calls).
        After ``reset()``, :meth:`reset` has bound :meth:`_Stepping.step` in its place."""
        if not self.has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def __str__(self) -> str:
        return str(self.env)


class _Stepping:
    """The wrapper's ``step`` once it has been reset: the same checks, with the wrapper and
    the environment held in slots (a class without ``__getattr__``: plain attribute reads)."""

    __slots__ = ("wrapper", "env")

    def __init__(self, wrapper: OrderEnforcingWrapper, env: AECEnv) -> None:
        self.wrapper, self.env = wrapper, env

    def step(self, action: Any) -> None:
        """:meth:`OrderEnforcingWrapper.step` after ``reset()`` (it never goes back)."""
        self.wrapper._has_updated = True
        env = self.env
        if not env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            env.step(action)


def raw_env(
    ruleset: str = "attack",
    players: int = 2,
    profile: str | None = None,
    options: dict[str, Any] | None = None,
    render_mode: str | None = None,
) -> UnoAttackEnv:
    """The bare environment: ``ruleset``, ``players``, a launcher ``profile`` (preset name or
    TOML path), rule ``options`` and ``render_mode`` (``human`` prints, ``ansi`` returns)."""
    return UnoAttackEnv(TableSpec.of(ruleset, players, options, profile), render_mode)


class UnoAttackEnv(AECEnv):  # pettingzoo ships no type hints
    """One round per episode; see the module docstring."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "uno_attack_v0",
        "is_parallelizable": False,
    }

    def __init__(self, spec: TableSpec, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: use one of {RENDER_MODES} or None")
        self.spec = spec
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(spec.players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size = self._size = spec.actions.size
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        observation = spaces.Box(-1.0, np.inf, (spec.information_state_size,), np.float32)
        self._observation_spaces = {
            agent: spaces.Dict(
                {"observation": observation, "action_mask": spaces.Box(0, 1, (size,), np.int8)}
            )
            for agent in self.possible_agents
        }
        self._rng = random.Random(secrets.randbits(64))
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # -- the AEC protocol ----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new round; ``seed`` reseeds the environment's generator (deal and presses)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.table = Table(self.spec, self._rng.getrandbits(63))
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._uniform = self._rng.random
        self.table.press_until_a_seat_acts(self._uniform)
        self.agent_selection = self.possible_agents[self.table.actor]

    def step(self, action: int | None) -> None:
        """The selected agent makes ``action`` (an id with mask 1; None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        if table is None:
            raise RuntimeError("call reset() before using the environment")
        # the acting agent's cumulative reward is 0 already: every reward is 0 until the
        # round ends, and then every agent is done (PettingZoo zeroes it here)
        # the action: an int, or a numpy integer made one (None only for a done agent; int()
        # of an int costs about 600 instructions, a type test 180: callgrind, docs/rl.md);
        # the presses that follow are sampled in the same call
        table.apply(
            action if type(action) is int else int(action),  # type: ignore[arg-type]
            self._uniform,
        )
        if table.actor == TERMINAL:
            for seat, reward in enumerate(table.returns()):
                name = self.possible_agents[seat]
                self.rewards[name] = reward
                self.terminations[name] = True
            self._accumulate_rewards()  # before the end every reward is 0: nothing to add
        else:
            self.agent_selection = self.possible_agents[table.actor]
        render_mode = self.render_mode
        if render_mode is not None and render_mode == "human":  # None == str: a slow compare
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's information-state tensor and its action mask (all 0 unless it acts)."""
        table, seat = self._table(), self._seat[agent]
        return {
            "observation": table.information_state_tensor(seat),
            "action_mask": table.action_mask(seat),
        }

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, cumulative reward, termination, truncation, info.

        AECEnv's own, with :meth:`observe`'s body in place of its call (once a step).
        """
        agent, table = self.agent_selection, self.table
        if not observe:
            observation = None
        elif table is None:
            raise RuntimeError("call reset() before using the environment")
        else:
            tensor, mask = table.tensor_and_mask(self._seat[agent])
            observation = {"observation": tensor, "action_mask": mask}
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | None:
        """The table as text: every seat's hand size, the top card, who acts and its moves."""
        if self.render_mode is None:
            return None
        table = self._table()
        text = self.describe(table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.table = None

    @staticmethod
    def describe(table: Table) -> str:
        game = table.game
        lines = [table.observation_string(seat) for seat in range(table.players)]
        if not table.is_terminal():
            names = [table.actions.name(a) for a in table.legal_actions()]
            lines.append(f"P{table.actor} ({game.pending.value}) may: {' '.join(names)}")
        else:
            lines.append(f"round over, winner: {game.round_winner}")
        return "\n".join(lines)

    # -- helpers --------------------------------------------------------------------------
    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table
