"""UNO Attack for reinforcement-learning frameworks: the sequential table both wrappers share.

:mod:`game.openspiel` (the OpenSpiel game ``python_uno_attack``) and :mod:`game.pettingzoo`
(an AEC environment) are thin skins over one :class:`~game.rl.table.Table`: a
:class:`~game.core.engine.Game` (every launcher press is a chance node the table
resolves), a fixed integer action space with masks
(:class:`~game.rl.actions.ActionSpace`), turn-taking for the out-of-turn moves (UNO calls,
catches, jump-ins), per-seat information-set strings and tensors, and zero-sum returns.
Neither framework is imported here: both are the ``rl`` extra (docs/rl.md).
"""

try:
    import numpy  # noqa: F401  # every tensor and mask is a numpy array
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise ModuleNotFoundError(
        f"game.rl needs {missing.name}: pip install 'uno-attack[rl]'", name=missing.name
    ) from missing

from game.rl.actions import ActionSpace  # noqa: E402
from game.rl.table import CHANCE, TERMINAL, Table, TableSpec  # noqa: E402

__all__ = ["CHANCE", "TERMINAL", "ActionSpace", "Table", "TableSpec"]
