"""``croupier simulate``: a simulated table on the mock shoe."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from config.loader import load_config
from config.schema import Settings
from controller.app.runner import Runner
from controller.app.session import Outputs, play, scoreboard_for
from controller.cli.archiveargs import add_archive_option, watch_property
from controller.cli.argtypes import add_lang_option, seconds, whole_number
from controller.cli.feedargs import add_feed_option, check_feed_url, feed_from_args
from controller.cli.language import text as worded
from controller.cli.simulate_fast import add_workers_option, blocking_option, run_fast, workers_error
from controller.core.events import Event, TableEvent
from controller.core.exceptions import JournalError
from controller.core.inputs import parse_tokens
from controller.core.table import Table
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.ui.localise import Localiser, table_catalogue
from controller.ui.oddscompare import OddsComparison
from controller.ui.oddsplot import check_plot_path, write_plot
from controller.ui.transcript import JsonLines, Progress, Summary, Transcript
from drivers.base import CardSource
from drivers.merged import MergedSource
from drivers.mock import MockShoe, read_script

TRANSCRIPT_LIMIT = 200
"""Above this many rounds the transcript gives way to a progress bar and the summary."""


def add_table_options(parser: argparse.ArgumentParser,
                      rounds_help: str = "stop after N rounds (default: deal one shoe to the cut card)") -> None:
    """Options shared by ``simulate`` and ``run``."""
    parser.add_argument("--config", metavar="FILE", help="TOML config file (default: the embedded default)")
    parser.add_argument("--decks", type=whole_number(1, 8), metavar="N", help="decks in the shoe (1-8)")
    parser.add_argument("--rounds", type=whole_number(0), metavar="N", help=rounds_help)
    parser.add_argument("--no-burn", action="store_true", help="start dealing at once, with no burn")
    parser.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    add_lang_option(parser)
    parser.add_argument("--quiet", action="store_true", help="print only the final summary")
    parser.add_argument("--scoreboard", metavar="HOST:PORT",
                        help="serve the live web scoreboard here (e.g. 127.0.0.1:8080; default: [scoreboard] address)")
    add_feed_option(parser)
    add_archive_option(parser)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="run a simulated table on the mock shoe",
        description="Deal a simulated table from a seeded mock shoe or a script, printing every "
                    "instruction a dealer would get. Exit status: 0 the events ended at a round boundary, "
                    "3 they ended mid-round, 4 the table is halted on a misdeal, 2 bad arguments or config.",
    )
    add_table_options(parser)
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), metavar="N",
                        help="shuffle seed (default: random)")
    parser.add_argument("--cards", metavar="TOKENS",
                        help='deliver exactly these reader events, e.g. "5H 2C ?? @next @burn"')
    parser.add_argument("--script", metavar="FILE", help="deliver the reader events of a shoe script file")
    parser.add_argument("--manual-next", action="store_true",
                        help="wait for @next instead of starting each round automatically")
    parser.add_argument("--journal", metavar="PATH", help="journal every input here, and resume from it")
    parser.add_argument("--interactive", action="store_true",
                        help="show the dealer console (Textual) and take the dealer's keys; implies --manual-next")
    parser.add_argument("--pace", type=seconds, metavar="SECONDS",
                        help="seconds between cards from the mock shoe (default 0; 1 with --interactive)")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw the summary's comparison with croupier odds to FILE (.png, .svg or .pdf; "
                             "needs the plot extra: matplotlib)")
    add_workers_option(parser)
    parser.set_defaults(handler=simulate)


def settings_from_args(args: argparse.Namespace, rounds_in_settings: bool = True) -> Settings:
    """Settings from ``--config`` and the options; ``rounds_in_settings=False`` keeps ``--rounds`` out of them
    (for ``run``, where it limits one session and is not part of what the table is)."""
    overrides: dict[str, dict[str, Any]] = {"table": {}, "shoe": {}, "simulation": {}}
    if args.decks is not None:
        overrides["table"]["decks"] = args.decks
    if args.no_burn:
        overrides["shoe"]["burn"] = "none"
    if rounds_in_settings and getattr(args, "rounds", None) is not None:
        overrides["simulation"]["rounds"] = args.rounds
    if getattr(args, "lang", None) is not None:
        overrides["table"]["language"] = args.lang
    if getattr(args, "manual_next", False) or getattr(args, "interactive", False):
        overrides["simulation"]["auto_next"] = False
    if getattr(args, "archive", None) is not None:  # the URL itself is checked by the property check
        overrides["protection"] = {"property_check": bool(args.archive)}
    return load_config(args.config, overrides=overrides)


def build_sinks(args: argparse.Namespace, rounds: int, words: Catalogue = ENGLISH) -> tuple[
        list[Callable[[list[Event]], None]], Summary, Progress | None]:
    """The summary, and the JSON stream, the transcript or the progress bar; texts in ``words``' language."""
    summary = Summary()
    sinks: list[Callable[[list[Event]], None]] = [summary]
    progress: Progress | None = None
    localiser = Localiser(words)
    if args.json:
        sinks.append(localiser.wrap(JsonLines()))
    elif not args.quiet:
        if rounds > TRANSCRIPT_LIMIT:
            progress = Progress(rounds)
            sinks.append(progress)
        else:
            sinks.append(localiser.wrap(Transcript(show_next=not getattr(args, "auto_next", True), words=words)))
    return sinks, summary, progress


def _refused(args: argparse.Namespace, scripted: bool) -> str | None:
    """Why the options cannot run together (one line), or None; notes what is not used, checks --plot."""
    if args.cards is not None and args.script is not None:
        return worded(message("cli.cards_or_script", "give --cards or --script, not both"))
    if scripted and args.seed is not None:
        print("croupier simulate: " + worded(message("cli.seed_unused", "note: --seed is not used when the cards "
                                                     "are given (--cards/--script)")), file=sys.stderr)
    if args.plot is not None:
        check_plot_path(args.plot)
    return None


def journal_option(args: argparse.Namespace) -> str | None:
    """``--journal``, None when not given. An empty path is refused: it would run the table with no journal,
    saying nothing."""
    path: str | None = args.journal
    if path is not None and not path.strip():
        raise JournalError(message("cli.empty_journal", "--journal {given}: expected the path of a journal file, "
                                   "e.g. --journal table.journal", given=repr(path)))
    return path


def simulate(args: argparse.Namespace) -> int:
    journal_option(args)
    settings = settings_from_args(args)
    check_feed_url(settings)  # the fast path publishes nothing, but a bad URL is refused all the same
    decks = settings.table.decks
    scripted = args.cards is not None or args.script is not None
    refused = _refused(args, scripted)
    if refused:
        print(f"croupier simulate: {refused}", file=sys.stderr)
        return 2
    seed = _seed(args, scripted)
    source, url = _mock_shoe(args, f"mock://?seed={seed}&decks={decks}&cut={settings.shoe.cut_card_from_end}")
    rounds = settings.simulation.rounds
    blocking = blocking_option(args, settings, TRANSCRIPT_LIMIT)
    refusal = workers_error(args, blocking)
    if refusal is not None:
        print(f"croupier simulate: {worded(refusal)}", file=sys.stderr)
        return 2
    words = table_catalogue(settings)
    if blocking is None and run_fast(args, settings, seed, source.decks, source.cut_from_end, words):
        return 0
    args.auto_next = settings.simulation.auto_next
    interactive = bool(getattr(args, "interactive", False))
    if interactive:
        args.quiet = True
    sinks, summary, progress = build_sinks(args, rounds, words)
    outputs = Outputs(notice=lambda text: print(f"croupier simulate: {text}", file=sys.stderr, flush=True))
    feed = feed_from_args(args, settings, args.journal, outputs.notice)
    comparison = OddsComparison(decks, settings.table.variant, settings.bets)
    sinks.insert(1, comparison)
    for sink in sinks:
        outputs.add(sink, replayed=sink is summary or sink is comparison,
                    earlier=summary.restore if sink is summary else comparison.restore if sink is comparison else None)
    history: list[Event] = []
    if interactive:
        outputs.add(history.extend)
    if args.scoreboard or settings.scoreboard.address:
        scoreboard_for(outputs, args.scoreboard or settings.scoreboard.address, settings, "simulation")
    if progress is not None:
        outputs.closers.append(progress.finish)
    pace = args.pace if args.pace is not None else (1.0 if interactive else 0.0)
    card_source: CardSource = (MergedSource(source, pace=pace, hold_when_idle=interactive)
                               if interactive or pace else source)
    runner = Runner(Table(settings), card_source, outputs.emit, auto_next=settings.simulation.auto_next,
                    rounds=rounds, new_shoes=not scripted and (rounds > 0 or interactive),
                    auto_shoe=not interactive, deliver_all=scripted,
                    auto_reveal=settings.simulation.auto_next and not interactive)
    watch_property(runner, outputs, args, settings, feed)
    header: list[Event] = [TableEvent(decks=decks, variant=settings.table.variant, driver=url,
                                      seed=None if scripted else seed, mode="simulation")]
    status = play(runner, outputs, header, args.journal, _journal_key(args, url) if args.journal else None,
                  history if interactive else None, feed=feed, software=_software(args))
    if not args.json:
        print(summary.text(words))
        print(comparison.text(words))
    if args.plot is not None:
        write_plot(comparison, args.plot, words)
    ending = runner.ending_message(words.text)
    if ending:
        outputs.notice(ending)
    return status


def _software(args: argparse.Namespace) -> Mapping[str, Any] | None:
    """The software a new journal's start record keeps (none without a journal)."""
    if not args.journal:
        return None
    from controller.integrity.check import recorded_software

    return recorded_software(args.config)


def _seed(args: argparse.Namespace, scripted: bool) -> int:
    """``--seed``; or, resuming a journal without it, the journal's seed; or a random one."""
    seed: int | None = args.seed
    if seed is None and args.journal and not scripted:
        from controller.journal.replay import journal_seed

        seed = journal_seed(args.journal)  # resuming without --seed: the journal's seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return seed


def _mock_shoe(args: argparse.Namespace, url: str) -> tuple[MockShoe, str]:
    """The mock shoe dealing ``--cards``, ``--script`` or the seeded shoes of ``url``; and its URL as shown."""
    if args.cards is not None:
        return MockShoe(url, inputs=parse_tokens(args.cards)), "mock:// (--cards)"
    if args.script is not None:
        return MockShoe(url, inputs=read_script(args.script)), f"mock://?script={args.script}"
    return MockShoe(url), url


def _journal_key(args: argparse.Namespace, url: str) -> dict[str, Any]:
    """What a journal is tied to besides the settings: the card source and its arguments."""
    key: dict[str, Any] = {"command": "simulate", "driver": url, "cards": args.cards, "script": args.script}
    if args.script is not None:
        import hashlib

        key["script_sha256"] = hashlib.sha256(Path(args.script).read_bytes()).hexdigest()
    return key
