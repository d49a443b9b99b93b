"""``python -m tests.rules_checker LOG.jsonl [...]``: check simulate logs, exit 1 on a violation."""

from __future__ import annotations

import sys

from tests.rules_checker import Violation, check_log


def main(paths: list[str]) -> int:
    status = 0
    for path in paths:
        try:
            games = check_log(path)
        except Violation as error:
            print(f"{path}: VIOLATION: {error}")
            status = 1
        else:
            print(f"{path}: {games} games follow rules.md")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
