"""``croupier study``: the side-bet risk study (:mod:`controller.app.study`): what a perfect counter and the published
counts win per shoe on each bet under the house's rules, and the alert threshold that keeps an honest table quiet."""

from __future__ import annotations

import argparse
import json
import os
import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from config.loader import load_config
from config.schema import OFFERABLE_BETS, Settings
from controller.cli.argtypes import add_lang_option, number, whole_number
from controller.cli.language import of_args
from controller.core.bets.catalogue import BANKER_BY_VARIANT, BETS, REFERENCE_BETS, Bet
from controller.core.exceptions import CroupierError
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message

MAX_WORKERS = 64
REFERENCE = {bet.name: bet for bet in REFERENCE_BETS}
NAMES = tuple(dict.fromkeys((*OFFERABLE_BETS, *BANKER_BY_VARIANT.values(), *REFERENCE)))
"""Every name ``--bets`` takes (besides ``all``): the bets a house offers, the banker bet of each variant by its
catalogue name, and the published reference bets."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "study", help="side-bet risk study: what a counter wins per shoe, and the alert threshold to set",
        description="Deal N seeded shoes under the configured rules (decks, burn, cut card, variant, pay tables, "
                    "offered bets) with every bet's exact edge before every round, and report per bet what a "
                    "perfect counter and the published counts win per shoe, how many alerts each threshold of "
                    "the live edge raises on a table of honest players, and the [bets] alert_above to set "
                    "(docs/bets.md). The same seed deals the same shoes as croupier simulate --seed. Ctrl+C, "
                    "SIGTERM and SIGHUP stop it in order: the report of the shoes dealt so far (--json: finished "
                    "false), then the signal named: exit 130, 143 and 129 (128 + the signal's number).",
    )
    parser.add_argument("--config", metavar="FILE", help="TOML config file (default: the embedded default)")
    parser.add_argument("--decks", type=whole_number(1, 8), metavar="N", help="decks in the shoe (1-8)")
    parser.add_argument("--no-burn", action="store_true", help="start dealing at once, with no burn")
    parser.add_argument("--variant", choices=tuple(BANKER_BY_VARIANT),
                        help="the banker bet's variant (default: [table] variant)")
    parser.add_argument("--bets", metavar="LIST",
                        help="the bets to study, comma-separated, or all (default: [bets] offered); besides the "
                             "offered names: banker_no_commission, banker_ez, and the published natural_8, "
                             "natural_9 (Thorp and Walden 1966)")
    parser.add_argument("--shoes", type=whole_number(1), default=1000, metavar="N",
                        help="shoes to deal (default 1000)")
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), metavar="N", help="shuffle seed (default: random)")
    parser.add_argument("--workers", type=whole_number(1, MAX_WORKERS), metavar="N", default=None,
                        help=f"deal shoes in N processes (default: every core; the figures do not depend on N; "
                             f"1-{MAX_WORKERS})")
    parser.add_argument("--target", type=number(0.0, 100.0), default=None, metavar="ALERTS",
                        help="false alerts per shoe and bet the recommended alert_above allows (default 0.05)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw the edge through the shoe and the win per shoe by threshold to FILE "
                             "(.png, .svg or .pdf; needs the plot extra: matplotlib)")
    parser.add_argument("--trace", metavar="FILE",
                        help="write every round as a JSON line (shoe, round, cards seen, the round's cards, "
                             "each bet's exact edge); a path that cannot be written is refused before any shoe "
                             "is dealt")
    add_lang_option(parser)
    parser.set_defaults(handler=study)


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, dict[str, Any]] = {"table": {}, "shoe": {}}
    if args.decks is not None:
        overrides["table"]["decks"] = args.decks
    if args.no_burn:
        overrides["shoe"]["burn"] = "none"
    if args.variant is not None:
        overrides["table"]["variant"] = args.variant
    if args.lang is not None:
        overrides["table"]["language"] = args.lang
    return load_config(args.config, overrides=overrides)


def chosen_bets(text: str | None, settings: Settings) -> list[tuple[str, Bet]]:
    """The bets ``--bets`` names (default: ``[bets] offered``), each with the catalogue entry that settles it
    (``banker`` by the variant); a name it does not know is refused in one line."""
    from controller.core.bets.settle import bet_for

    if text is None:
        names: list[str] = list(settings.bets.offered)
        if not names:
            raise CroupierError(message("study.none_offered", "[bets] offered lists no bet, so there is none to "
                                        "study by default: give --bets, e.g. --bets all or --bets dragon_7,panda_8"))
    elif text.strip() == "all":
        names = list(NAMES)
    else:
        names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in NAMES]
    if unknown or not names:
        raise CroupierError(message("study.bets_unknown", "--bets {given}: expected all, or names from {names}, "
                                    "comma-separated", given=repr(text), names=", ".join(NAMES)))
    chosen: list[tuple[str, Bet]] = []
    for name in dict.fromkeys(names):
        bet = REFERENCE.get(name) or (bet_for(name, settings.table.variant) if name == "banker" else BETS[name])
        chosen.append((name, bet))
    return chosen


def study(args: argparse.Namespace) -> int:
    from controller.app.fastsim import Procedure
    from controller.app.study import DEFAULT_TARGET, Plan, StudiedBet

    settings = _settings(args)
    words = of_args(args)
    if args.plot is not None:
        from controller.ui.oddsplot import check_plot_path

        check_plot_path(args.plot)
    from controller.core.bets.settle import house_pays

    bets = tuple(StudiedBet(name, bet.name, house_pays(bet, settings.bets) if bet.name in BETS else bet.pays)
                 for name, bet in chosen_bets(args.bets, settings))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    shoe = settings.shoe
    procedure = Procedure(seed=seed, decks=settings.table.decks, cut_from_end=shoe.cut_card_from_end,
                          burn=shoe.burn, burn_cards=shoe.burn_cards, one_more=shoe.cut_card == "one_more")
    plan = Plan(procedure, bets, trace=args.trace is not None)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    target = args.target if args.target is not None else DEFAULT_TARGET
    trace = TraceFile(args.trace) if args.trace is not None else None  # refused before any shoe is dealt
    try:
        report, interrupt = _run(plan, args.shoes, workers, target, settings, trace)
    finally:
        if trace is not None:
            trace.close()
    if report is not None:
        if args.json:
            print(json.dumps(report))
        else:
            print(report_text(report, words))
        if args.plot is not None:
            from controller.ui.studyplot import write_study_plot

            write_study_plot(report, args.plot, words)
    if interrupt is not None:  # the report of the shoes dealt is given: now the command says what stopped it
        raise interrupt
    return 0


def _run(plan: Any, shoes: int, workers: int, target: float, settings: Settings,
         trace: TraceFile | None) -> tuple[dict[str, Any] | None, KeyboardInterrupt | None]:
    """The report (None when a stop came before the first shoes were tallied) and the stop that ended the study
    early (None: every shoe was dealt)."""
    from controller.app.study import bet_report, run
    from controller.ui.transcript import Progress

    procedure = plan.procedure
    fresh = _fresh_edges(plan, procedure.decks)  # first here: a note of the kernel's absence is said once, before
    # the workers are forked (they would each say it again)
    progress = Progress(shoes, unit="shoes")
    try:
        tally = run(plan, shoes, workers, progress.show if progress.enabled else None, trace)
    finally:
        progress.finish()
    if tally.shoes == 0:
        return None, tally.interrupt
    return {
        "shoes": tally.shoes, "shoes_asked": shoes, "finished": tally.interrupt is None, "seed": procedure.seed,
        "rounds": tally.rounds, "rounds_per_shoe": tally.rounds / tally.shoes, "decks": procedure.decks,
        "variant": settings.table.variant,
        "burn": procedure.burn, "cut_card_from_end": procedure.cut_from_end, "cut_card": settings.shoe.cut_card,
        "target_alerts_per_shoe": target,
        "bets": {bet.name: {"house_edge": float(-fresh[bet.name]),
                            **bet_report(bet, tally.bets[bet.name], tally.shoes, target)} for bet in plan.bets},
    }, tally.interrupt


def _fresh_edges(plan: Any, decks: int) -> dict[str, Fraction]:
    from controller.core.bets.exact import Shoe
    from controller.core.bets.kernel import BetValues

    shoe = Shoe.of(decks)
    values = BetValues([(bet.name, bet.bet, bet.pays) for bet in plan.bets])
    return values.evs(shoe.values, shoe.ranks, shoe.cards)


class TraceFile:
    """``--trace``'s file, opened before any shoe is dealt (a path that cannot be written is refused first, in one
    line); the rounds are written one JSON object a line as each chunk of shoes is added up, numbered across the
    shoes as ``croupier simulate`` numbers them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.number = 0
        try:
            self.handle = Path(path).open("w", encoding="utf-8")  # noqa: SIM115  (written chunk by chunk, closed)
        except OSError as error:
            raise self._refusal(error) from None

    def __call__(self, rounds: list[dict[str, object]]) -> None:
        try:
            for record in rounds:
                self.number += 1
                self.handle.write(json.dumps({"round": self.number, **record}) + "\n")
        except OSError as error:
            raise self._refusal(error) from None

    def close(self) -> None:
        try:
            self.handle.close()
        except OSError as error:
            raise self._refusal(error) from None

    def _refusal(self, error: OSError) -> CroupierError:
        return CroupierError(message("study.trace_unwritable", "--trace {path}: cannot write it ({reason}); give "
                                     "another path", path=self.path, reason=str(error.strerror or error)))


def _percent(value: float) -> str:
    return f"{value * 100:+.3f}%"


def report_text(report: dict[str, Any], words: Catalogue) -> str:
    """The report for people, in ``words``' language."""
    say = words.say
    lines = [say("study.heading", "Risk study: {shoes} shoes (seed {seed}), {decks} decks, {variant}, burn {burn}, "
                 "cut card {cut} from the end; {rounds} rounds, every bet's exact edge before every round",
                 shoes=report["shoes"], seed=report["seed"], decks=report["decks"], variant=report["variant"],
                 burn=report["burn"], cut=report["cut_card_from_end"], rounds=report["rounds"])]
    if not report.get("finished", True):
        lines.append(say("study.stopped_early", "Stopped early: the figures are those of the first {shoes} of the "
                         "{asked} shoes asked for.", shoes=report["shoes"], asked=report["shoes_asked"]))
    for name, bet in report["bets"].items():
        pays = ", ".join(f"{pay_class} {Decimal(str(amount)).normalize():f}"
                         for pay_class, amount in bet["pays"].items())
        lines += ["", say("study.bet", "{bet} (pays {pays}): house edge {edge} on a fresh shoe", bet=name, pays=pays,
                          edge=_percent(bet["house_edge"])),
                  "  " + say("study.players", "player: rounds bet a shoe, mean edge when betting, units won a shoe "
                             "expected (standard error) and observed (standard error)")]
        for label, play in [(say("study.perfect", "perfect counter (bets when the edge is positive)"),
                             bet["perfect"])] + [(f"{system} ({'TC' if play['true_count'] else 'RC'} >= "
                                                  f"{play['threshold']:g})", play)
                                                 for system, play in bet["counts"].items()]:
            lines.append(f"    {label:<52} {play['rounds_per_shoe']:7.2f} {_percent(play['mean_edge']):>9} "
                         f"{play['units_per_shoe']:+8.3f} ({play['units_per_shoe_se']:.3f}) "
                         f"{play['observed_units_per_shoe']:+8.2f} ({play['observed_units_per_shoe_se']:.2f})")
        lines.append("  " + say("study.thresholds", "alert above: alerts a shoe on an honest table, shoes alerted, "
                                "rounds above a shoe, share of the perfect counter's win they carry"))
        for row in bet["thresholds"]:
            lines.append(f"    {row['above'] * 100:5.1f}% {row['alerts_per_shoe']:8.3f} {row['shoes_alerted']:8.3f} "
                         f"{row['rounds_above_per_shoe']:8.2f} {row['share_of_win'] * 100:7.1f}%")
        chosen = bet["recommended_alert_above"]
        figures = {"above": f"{chosen['above']:g}", "alerts": f"{chosen['alerts_per_shoe']:.3f}",
                   "target": f"{chosen['target_alerts_per_shoe']:g}", "share": f"{chosen['share_of_win'] * 100:.1f}"}
        if bet["settled_as"] in BETS:  # the key is the catalogue bet's: banker on a no-commission table is
            # banker_no_commission ([bets.alert_above] banker is the commission row's)
            lines.append("  " + say("study.recommended", "recommended [bets.alert_above] {bet} = {above} ({alerts} "
                                    "false alerts a shoe for a target of {target}; the rounds above it carry "
                                    "{share}% of the perfect counter's win)", bet=bet["settled_as"], **figures))
        else:
            lines.append("  " + say("study.recommended_reference", "{bet}, a reference bet no table offers (no "
                                    "[bets.alert_above] key): threshold {above} ({alerts} false alerts a shoe for a "
                                    "target of {target}; the rounds above it carry {share}% of the perfect "
                                    "counter's win)", bet=name, **figures))
    return "\n".join(lines)
