"""``uno-attack rules list|show ID``: the rulesets, their decks, effects and options."""

from __future__ import annotations

import argparse
import json
from typing import Any

from game.core.rulesets import OPTIONS, RULESET_IDS, describe, load_ruleset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="list the rulesets or show one",
        description="List the rulesets, or show a ruleset's deck, effects and options.",
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="ACTION")
    list_parser = sub.add_parser("list", help="list the rulesets")
    list_parser.add_argument("--json", action="store_true")
    list_parser.set_defaults(func=run_list)
    show = sub.add_parser("show", help="show one ruleset with every option and its default")
    show.add_argument("ruleset", metavar="ID", help=", ".join(RULESET_IDS))
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=run_show)
    parser.set_defaults(func=run_list, json=False)


def run_list(args: argparse.Namespace) -> int:
    rows = []
    for ruleset_id in RULESET_IDS:
        rules = load_ruleset(ruleset_id)
        rows.append(
            {
                "id": rules.id,
                "name": rules.name,
                "cards": len(rules.deck),
                "hand": rules.hand_size,
                "target": rules.target,
                "players": f"{rules.min_players}-{rules.max_players}",
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        print(
            f"{row['id']:<17}{row['cards']:>4} cards  hand {row['hand']}  to {row['target']:<4} "
            f"{row['players']:>5} players  {row['name']}"
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    info = describe(args.ruleset)
    if args.json:
        print(json.dumps(info))
        return 0
    print(f"{info['id']}: {info['name']}\n  source: {info['source']}")
    print(
        f"  {info['deck_size']} cards, hand {info['hand_size']}, target {info['target']}, "
        f"players {info['players'][0]}-{info['players'][1]}, draws from the {info['draw']}"
    )
    print("  deck:")
    for label, count in info["deck"].items():
        print(f"    {count:>3} x {label}")
    print("  effects:")
    for code, steps in info["effects"].items():
        print(f"    {code:<4} {'; '.join(steps) or '(none)'}")
    print("  options (name = value: meaning):")
    for name, value in info["options"].items():
        print(f"    {name} = {value}: {OPTIONS[name].doc}")
    return 0
