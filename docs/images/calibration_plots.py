"""Redraw docs/calibration.md's figures from its practice recipe.

Run: python docs/images/calibration_plots.py

The recipe is the how-to's first step, on the simulated 1999 launcher with seed 1, so the
figures are the ones a reader gets by typing the same commands:

    uno-attack calibrate record practice.jsonl --launcher "sim://?profile=original-1999" \\
        --seed 1 --presses 300
    uno-attack calibrate fit practice.jsonl --plot calibration-fit.png
    uno-attack calibrate compare practice.jsonl web-game --plot calibration-compare.png
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from game.cli import main

HERE = Path(__file__).resolve().parent
FIGURES = ("calibration-fit.png", "calibration-compare.png")


def redraw(folder: Path = HERE) -> list[Path]:
    """Run the recipe in a scratch folder and copy its two plots into ``folder``."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        session = str(work / "practice.jsonl")
        spec = "sim://?profile=original-1999"
        steps = [
            ["calibrate", "record", session, "--launcher", spec, "--seed", "1", "--presses", "300"],
            ["calibrate", "fit", session, "--plot", str(work / FIGURES[0])],
            ["calibrate", "compare", session, "web-game", "--plot", str(work / FIGURES[1])],
        ]
        for argv in steps:
            if main(argv) != 0:
                raise SystemExit(f"failed: uno-attack {' '.join(argv)}")
        return [Path(shutil.copy(work / name, folder / name)) for name in FIGURES]


if __name__ == "__main__":
    for path in redraw():
        print(f"wrote {path}")
