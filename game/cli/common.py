"""Arguments several commands share, declared once so their help and defaults agree."""

from __future__ import annotations

import argparse


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE`` (repeatable) and ``--custom FILE``, read by ``parse_options``."""
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rule option, repeatable (`uno-attack rules show ID` lists them)",
    )
    parser.add_argument(
        "--custom", metavar="FILE", help="TOML file defining the Wild Customizable action"
    )
