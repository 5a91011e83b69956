"""``croupier odds``: exact probabilities and house edges of every bet, for a fresh or a partly dealt shoe."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from fractions import Fraction
from typing import Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import error_text, of_args
from controller.core.bets.catalogue import BANKER_BY_VARIANT, BETS
from controller.core.bets.exact import MAX_CARDS, MIN_CARDS, Shoe, ShoeTooShort, bet_odds, round_probabilities
from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError, CroupierError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import decks as counted_decks
from controller.i18n.message import Message, message
from controller.i18n.numbers import format_decimal_text, format_fixed
from controller.i18n.variants import variant_name
from controller.ui.bigtext import pad_cells
from controller.ui.oddscompare import right


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "odds", help="exact probabilities and house edges of every bet",
        description="Enumerate every deal exactly (fractions, no sampling) through the rules table: the "
                    "probability of each outcome that pays and the house edge of every bet of docs/bets.md "
                    "under its default pays, for a fresh shoe or one less the cards gone (--seen, --journal).",
    )
    parser.add_argument("--decks", type=whole_number(1, 8), default=None, metavar="N",
                        help="decks, 1-8 (default 8, or the journal's)")
    parser.add_argument("--variant", choices=tuple(BANKER_BY_VARIANT), default=None,
                        help="banker payout variant of the house_edge summary (default commission, or the "
                             "journal's)")
    gone = parser.add_mutually_exclusive_group()
    gone.add_argument("--seen", metavar="TOKENS",
                      help='cards gone from the shoe, e.g. "AS 10H kd" (spaces or commas between)')
    gone.add_argument("--journal", metavar="PATH", help="the shoe in play on this journal (the cards the "
                      "players could have seen in it are gone)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(parser)
    parser.set_defaults(handler=odds)


def exact(value: Fraction) -> dict[str, Any]:
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}


def exact_percent(value: Fraction) -> dict[str, Any]:
    return {"exact": f"{value.numerator}/{value.denominator}", "percent": float(value) * 100}


PROBABILITY_NAMES = ("banker", "player", "tie", "player_draws", "banker_draws", "natural",
                     "player_pair", "banker_pair")
BETS_SUMMARY = ("banker", "player", "tie", "player_pair", "banker_pair")


def parse_seen(text: str, decks: int) -> Counter[str]:
    """The cards of ``--seen``; refuses a token that is no card, or more copies than ``decks`` hold."""
    gone: Counter[str] = Counter()
    for token in text.replace(",", " ").split():
        try:
            gone[parse_card(token).code] += 1
        except CardCodeError as error:
            raise CroupierError(message("odds.seen_not_card", "--seen: {error}; give the cards gone from the shoe, "
                                        "e.g. \"AS 10H KD\"", error=error_text(error))) from None
    for code, count in gone.items():
        if count > decks:
            raise CroupierError(message("odds.seen_too_many_for_shoe", "--seen: {count} copies of {code}, but a "
                                        "shoe of {decks} holds {copies}; check the cards or give --decks", count=count,
                                        code=code, decks=counted_decks(decks), copies=decks))
    return gone


def journal_shoe(path: str) -> tuple[int, str, Counter[str]]:
    """The decks, the variant and the cards the players could have seen in the shoe in play on the journal
    ``path``."""
    from controller.journal.about import refuse_training_journal
    from controller.journal.replay import replay, table_from_header
    from controller.journal.store import Journal
    from controller.journal.verify import verify

    journal = Journal.open_existing(path)
    try:
        with journal.snapshot():  # the records verified are the records replayed, while a table writes on
            refuse_training_journal(journal)
            table = table_from_header(path, verify(journal).header)
            replay(journal, table)
    finally:
        journal.close()
    return table.decks, table.variant, Counter(table.ledger.shown)


def too_short(option: str, error: ShoeTooShort) -> Message:
    """What is true of the next round of a shoe with too few cards left for its odds."""
    left = error.left
    if not error.no_round:
        return message("odds.may_not_finish", "{option}: {left} cards left: a round needs {least} to {most} cards, "
                       "so the next one may run out before it is complete and has no odds; croupier odds needs at "
                       "least {most} cards left", option=option, left=left, least=MIN_CARDS, most=MAX_CARDS)
    if left == 1:
        return message("odds.no_round_one", "{option}: 1 card left: a round needs at least {least} cards, so none "
                       "can be dealt; croupier odds needs at least {most} cards left", option=option,
                       least=MIN_CARDS, most=MAX_CARDS)
    return message("odds.no_round", "{option}: {left} cards left: a round needs at least {least} cards, so none can "
                   "be dealt; croupier odds needs at least {most} cards left", option=option, left=left,
                   least=MIN_CARDS, most=MAX_CARDS)


def odds(args: argparse.Namespace) -> int:
    variant = args.variant or "commission"
    if args.journal is not None:
        decks, played, gone = journal_shoe(args.journal)
        variant = args.variant or played
        if args.decks is not None and args.decks != decks:
            raise CroupierError(message("odds.decks_not_journal", "--decks {given}: the journal's shoe has {decks} "
                                        "decks; leave --decks out with --journal", given=args.decks, decks=decks))
    else:
        decks = args.decks if args.decks is not None else 8
        gone = parse_seen(args.seen, decks) if args.seen is not None else Counter()
    shoe = Shoe.of(decks, gone)
    try:
        probabilities = round_probabilities(shoe)
        every_bet = bet_odds(shoe)
    except ShoeTooShort as error:
        raise CroupierError(too_short("--journal" if args.journal else "--seen", error)) from None
    banker = BANKER_BY_VARIANT[variant]
    edges = {bet: every_bet[banker if bet == "banker" else bet].house_edge for bet in BETS_SUMMARY}
    if args.json:
        print(json.dumps({
            "decks": decks, "variant": variant, "cards_left": shoe.size, "seen": sum(gone.values()),
            "probabilities": {name: exact(probabilities[name]) for name in PROBABILITY_NAMES},
            "house_edge": {bet: exact(edge) for bet, edge in edges.items()},
            "bets": {name: {"house_edge": exact_percent(bet.house_edge),
                            "outcomes": {c: exact_percent(p) for c, p in bet.classes.items()}}
                     for name, bet in every_bet.items()},
        }))
        return 0
    _print_text(variant, decks, shoe, probabilities, edges, every_bet, of_args(args))
    return 0


def _labels(words: Catalogue) -> dict[str, str]:
    say = words.say
    return {
        "banker": say("odds.banker_wins", "banker wins"), "player": say("odds.player_wins", "player wins"),
        "tie": say("odds.tie", "tie"), "player_draws": say("odds.player_draws", "player draws a third card"),
        "banker_draws": say("odds.banker_draws", "banker draws a third card"),
        "natural": say("odds.natural", "a natural on either side"),
        "player_pair": say("odds.player_pair", "player pair"), "banker_pair": say("odds.banker_pair", "banker pair"),
    }


def _print_text(variant: str, decks: int, shoe: Shoe, probabilities: dict[str, Fraction],
                edges: dict[str, Fraction], every_bet: dict[str, Any], words: Catalogue = ENGLISH) -> None:
    say, language = words.say, words.language
    labels = _labels(words)
    edge_names = {"banker": say("odds.bet_banker", "banker"), "player": say("odds.bet_player", "player"),
                  "tie": labels["tie"], "player_pair": labels["player_pair"], "banker_pair": labels["banker_pair"]}

    def percent(value: Fraction) -> str:
        return right(format_fixed(float(value) * 100, 4, language), 9) + "%"

    left = "" if shoe.size == 52 * decks else say("odds.cards_left", ", {cards} cards left", cards=shoe.size)
    print(say("odds.heading", "Exact odds, {decks} deck(s){left}, {variant} variant", decks=decks, left=left,
              variant=variant_name(variant, words).replace("_", " ")))
    for name in PROBABILITY_NAMES:
        value = probabilities[name]
        print(f"  {pad_cells(labels[name], 28)} {percent(value)}   {value.numerator}/{value.denominator}")
    print(say("odds.house_edge", "House edge"))
    for bet, edge in edges.items():
        print(f"  {pad_cells(edge_names[bet], 28)} {percent(edge)}")
    print(say("odds.every_bet", "Every bet (default pays; docs/bets.md): house edge, then each paying outcome"))
    for name, bet in every_bet.items():
        edge = bet.house_edge
        print(f"  {name:<28} {percent(edge)}   {edge.numerator}/{edge.denominator}")
        for pay_class, probability in bet.classes.items():
            pays = (say("odds.push", "push") if pay_class not in BETS[name].pays
                    else say("odds.pays", "pays {pays}",
                             pays=format_decimal_text(str(BETS[name].pays[pay_class]), language)))
            print(f"      {pay_class:<24} {percent(probability)}   ({pays})")
