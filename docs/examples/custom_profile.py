"""Simulate games with a launcher profile of your own.

A profile says how many cards each press shoots. Write one as TOML (docs/profiles.md), check
what it means for a game with the exact analysis, then use it anywhere a launcher spec goes:
sim://?profile=PATH. Mistakes in the file are errors naming the file and the field.
"""

import tempfile
from pathlib import Path

from game.play.simulate import SimConfig, simulate
from launcher import ProfileError
from launcher.analysis import analyse, sample
from launcher.profiles import load_profile

STINGY = """\
schema = 1
name = "stingy"
kind = "escalating"
source = "invented: a launcher that rarely fires, for this recipe"
description = "Usually nothing; the chance of cards rises after every empty press."
hazard = [0.15, 0.25, 0.4, 0.6]
guaranteed_after = 6
firing = [0, 0.5, 0.3, 0.2]
"""

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "stingy.toml"
    path.write_text(STINGY, encoding="utf-8")

    profile = load_profile(path)
    exact = analyse(profile)
    print(
        f"{profile.name} ({profile.kind}): mean {exact.mean:.3f} cards per press, "
        f"P(nothing) {exact.p_nothing:.3f}, "
        f"a Wild Hit-Fire costs {exact.presses_until_cards:.2f} presses"
    )
    drawn = sample(profile, 200_000, seed=1)
    print(f"vectorised sampler, 200000 presses: mean {drawn.mean():.3f}")

    for spec in ("sim://?profile=web-game", f"sim://?profile={path}"):
        summary = simulate(
            SimConfig(
                ruleset="attack",
                players=3,
                games=6,
                seed=5,
                launcher=spec,
                bots=("greedy", "random"),
            )
        )
        print(
            f"{spec.replace(folder, '<tmp>')}: {summary['turns_per_round']:.1f} turns per round, "
            f"{summary['mean_cards_per_hit']:.2f} cards per press"
        )

    broken = Path(folder) / "broken.toml"
    broken.write_text(STINGY.replace("firing = [0, 0.5, 0.3, 0.2]", "firing = [0, 0.5, 0.3]"))
    try:
        load_profile(broken)
    except ProfileError as error:
        print(f"error: {str(error).replace(folder, '<tmp>')}")
