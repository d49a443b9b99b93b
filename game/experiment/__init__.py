"""Launcher science: grids of simulated games that say what a launcher does to a game.

``uno-attack experiment run`` plays a grid (rulesets × players × launcher profiles ×
bots × rule options) in tasks with per-task seeds (:mod:`.grid`), on local processes
or a Dask cluster (:mod:`.executors`), into a resumable JSON Lines file (:mod:`.store`);
``report`` aggregates it with confidence intervals (:mod:`.stats`) and plots it
(:mod:`.plots`); ``tune`` searches the profile setting for a target length (:mod:`.tune`);
``paper`` writes docs/experiments.md (:mod:`.paper`). docs/experiments.md has the recipes.
"""

from game.experiment.grid import Cell, Grid, Task, grid_from_toml
from game.experiment.stats import TimeModel, aggregate, format_report

__all__ = ["Cell", "Grid", "Task", "TimeModel", "aggregate", "format_report", "grid_from_toml"]
