"""``croupier odds``: exact probabilities and house edges for an N-deck shoe."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from controller.cli.argtypes import whole_number
from controller.core.odds import compute_odds
from controller.core.settlement import VARIANTS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "odds", help="exact probabilities and house edges",
        description="Enumerate every deal of a fresh shoe exactly (fractions, no sampling) "
                    "through the rules table.",
    )
    parser.add_argument("--decks", type=whole_number(1, 8), default=8, metavar="N", help="decks, 1-8 (default 8)")
    parser.add_argument("--variant", choices=VARIANTS, default="commission", help="banker payout variant")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=odds)


def exact(value: Fraction) -> dict[str, Any]:
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}


PROBABILITY_NAMES = ("banker", "player", "tie", "player_draws", "banker_draws", "natural",
                     "player_pair", "banker_pair")
BETS = ("banker", "player", "tie", "player_pair", "banker_pair")


def odds(args: argparse.Namespace) -> int:
    result = compute_odds(args.decks)
    probabilities = {name: exact(getattr(result, name)) for name in PROBABILITY_NAMES}
    edges = {bet: exact(result.house_edge(bet, args.variant)) for bet in BETS}
    if args.json:
        print(json.dumps({"decks": args.decks, "variant": args.variant,
                          "probabilities": probabilities, "house_edge": edges}))
        return 0
    labels = {
        "banker": "banker wins", "player": "player wins", "tie": "tie",
        "player_draws": "player draws a third card", "banker_draws": "banker draws a third card",
        "natural": "a natural on either side", "player_pair": "player pair", "banker_pair": "banker pair",
    }
    print(f"Exact odds, {args.decks} deck(s), {args.variant.replace('_', ' ')} variant")
    for name in PROBABILITY_NAMES:
        value = getattr(result, name)
        print(f"  {labels[name]:<28} {float(value) * 100:9.4f}%   {value.numerator}/{value.denominator}")
    print("House edge")
    for bet in BETS:
        print(f"  {bet.replace('_', ' '):<28} {float(result.house_edge(bet, args.variant)) * 100:9.4f}%")
    return 0
