"""Compare two measurement sessions (or a session and a profile): same launcher or not?

Did new batteries change anything? Is my toy like the web game's invented numbers? Record a
session for each condition and compare them: you get Monte-Carlo p-values, the total variation
distance (the share of presses that would have to change) and a verdict in plain words.
"""

import tempfile
from pathlib import Path

from launcher import open_launcher
from launcher.calibration.compare import Side, compare
from launcher.calibration.record import Recorder
from launcher.calibration.session import SessionHeader, SessionWriter, read_session
from launcher.profiles import load_profile


def record(path: Path, spec: str, seed: int, presses: int = 300) -> Side:
    """Record a session on `spec` and return it as one side of a comparison."""
    header = SessionHeader(
        launcher=spec, cards_loaded=90, reload_below=10, presses_planned=presses, seed=seed
    )
    with (
        SessionWriter.create(path, header) as writer,
        open_launcher(spec, default_seed=seed) as launcher,
    ):
        Recorder(launcher, writer, header).run(presses)
    session = read_session(path)
    return Side.of_counts(session.label, session.counts)


with tempfile.TemporaryDirectory() as folder:
    monday = record(Path(folder) / "monday.jsonl", "sim://?profile=web-game", seed=1)
    tuesday = record(Path(folder) / "tuesday.jsonl", "sim://?profile=web-game", seed=2)
    other = record(Path(folder) / "other-toy.jsonl", "sim://?profile=bookmarklet", seed=3)

    for a, b in (
        (monday, tuesday),
        (monday, other),
        (monday, Side.of_profile(load_profile("web-game"))),
    ):
        result = compare(a, b, seed=0)
        tests = ", ".join(f"{t.name} p={t.p_value:.3g}" for t in result.tests)
        print(f"{a.label} vs {b.label}: {tests}")
        print(f"  {result.verdict}")
