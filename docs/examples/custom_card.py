"""Write your table's Wild Customizable as a file and play with it.

The blank Wild Customizable card does what your table wrote on it. Describe that with the
engine's building blocks in a small TOML file and pass it as the `custom` rule option (or
`uno-attack simulate --custom FILE`). Bad blocks are errors naming the file.
"""

import tempfile
from pathlib import Path

from game import Game, RulesetError, Table
from game.bots import GreedyBot
from game.play.simulate import run_game

REVENGE = """\
name = "Revenge"
description = "Pick a victim: they press three times. Then the next player is skipped."
effects = ["target", "hit n=3 who=target reason=custom", "skip"]
"""

with tempfile.TemporaryDirectory() as folder:
    card = Path(folder) / "revenge.toml"
    card.write_text(REVENGE, encoding="utf-8")

    custom_plays = custom_presses = 0
    for seed in range(1, 6):
        with Table.new("attack", players=3, seed=seed, options={"custom": str(card)}) as table:
            run_game(table, [GreedyBot(seed=seed * 10 + s) for s in range(3)])
        game = table.game
        custom_plays += sum(1 for e in game.events if e["type"] == "play" and e["card"] == "WC")
        custom_presses += sum(
            1 for e in game.events if e["type"] == "hit" and e["reason"] == "custom"
        )
    print(f"5 games: Revenge played {custom_plays} times, causing {custom_presses} presses")
    assert custom_presses == 3 * custom_plays, "each Revenge makes its victim press three times"

    typo = Path(folder) / "typo.toml"
    typo.write_text('effects = ["target", "hitt n=3 who=target"]\n', encoding="utf-8")
    try:
        Game.new("attack", players=3, seed=1, options={"custom": str(typo)})
    except RulesetError as error:
        print(f"error: {str(error).replace(folder, '<tmp>')}")
