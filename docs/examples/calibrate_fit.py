"""Measure a launcher and fit a profile to it: record presses, fit, save, reuse.

This is `uno-attack calibrate record` + `calibrate fit` from Python, rehearsed on the simulated
launcher. Point SPEC at "gpio://?mock=1" (or a real gpio://, serial:// launcher) and the same
code measures that one; the session file is plain JSON Lines, flushed press by press.
"""

import tempfile
from pathlib import Path

from launcher import open_launcher
from launcher.calibration.fit import fit_sessions
from launcher.calibration.record import Recorder
from launcher.calibration.session import SessionHeader, SessionWriter, read_session
from launcher.profiles import save_profile

SPEC = "sim://?profile=original-1999"  # the 1999 launcher fires in a fixed pattern
PRESSES = 400

with tempfile.TemporaryDirectory() as folder:
    session_path = Path(folder) / "mine.jsonl"
    header = SessionHeader(
        launcher=SPEC,
        cards_loaded=90,
        reload_below=10,
        presses_planned=PRESSES,
        seed=1,
        notes="recipe: rehearsal on sim://",
    )
    with (
        SessionWriter.create(session_path, header) as writer,
        open_launcher(SPEC, default_seed=1) as launcher,
    ):
        Recorder(launcher, writer, header).run(PRESSES)

    session = read_session(session_path)
    print(f"{session.label}: {len(session.presses)} presses, {session.counts.sum()} cards")

    report = fit_sessions([session], name="mine")
    mean = report.mean
    print(f"mean {mean.mean:.2f} cards per press (95 % interval {mean.low:.2f} to {mean.high:.2f})")
    for k, p, low, high in zip(
        report.estimate.values,
        report.estimate.probabilities,
        report.estimate.low,
        report.estimate.high,
        strict=True,
    ):
        print(f"  P({k:2d} cards) = {p:.3f}  [{low:.3f}, {high:.3f}]")
    print(f"presses independent? {report.independent}; what decides a press: {report.structure}")
    print(f"fitted profile: kind {report.profile.kind}; source: {report.profile.source}")

    profile_path = save_profile(report.profile, Path(folder) / "mine.toml")
    with open_launcher(f"sim://?profile={profile_path}&seed=2") as fitted:
        fitted.load(range(90))
        print("the fitted profile as a launcher:", [fitted.hit().counted for _ in range(12)])
