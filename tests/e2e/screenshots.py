"""Regenerate the web table's screenshots in docs/images/web from the end-to-end tests.

    python -m tests.e2e.screenshots --out docs/images/web
    python -m tests.e2e.screenshots --out docs/images/web -k tv_and_phones   # the TV's only

Runs ``pytest tests/e2e`` with ``$UNO_ATTACK_SCREENSHOTS`` set: each picture is taken by
the test that drives that page (real server, real headless Chromium, at the viewport the
test uses: a phone's 390x844, the TV's 1920x1080), so the docs show what those tests saw.
``-k`` picks tests as pytest's ``-k`` does, to retake a few pictures without the rest.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import SCREENSHOTS_ENV

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/web", help="folder for the PNG files")
    parser.add_argument("-k", dest="select", help="only the tests matching (pytest -k)")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, SCREENSHOTS_ENV: str(out)}
    command = [sys.executable, "-m", "pytest", "tests/e2e", "-q", "-p", "no:randomly", "-x"]
    if args.select:
        command += ["-k", args.select]
    status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    for picture in sorted(out.glob("*.png")):
        print(f"{picture.relative_to(ROOT) if picture.is_relative_to(ROOT) else picture}")
    return status


if __name__ == "__main__":
    sys.exit(main())
