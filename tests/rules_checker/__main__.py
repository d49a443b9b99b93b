"""``python -m tests.rules_checker [--ignore dealer] LOG.jsonl ...``: check simulate logs.

Prints the first violation of each log with its log line; exit status 1 if any.
"""

from __future__ import annotations

import argparse
import sys

from tests.rules_checker import Violation, check_log


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.rules_checker")
    parser.add_argument("logs", nargs="+", help="JSON Lines logs from uno-attack simulate --log")
    parser.add_argument("--ignore", action="append", default=[], help="switch a check off: dealer")
    args = parser.parse_args(argv)
    status = 0
    for path in args.logs:
        try:
            games = check_log(path, ignore=frozenset(args.ignore))
        except Violation as error:
            print(f"{path}: VIOLATION: {error}")
            status = 1
        else:
            print(f"{path}: {games} games follow rules.md")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
