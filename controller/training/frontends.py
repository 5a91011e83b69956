"""The drill in a stream: as JSON lines for other front-ends, or as prompted lines in a plain terminal.

Both read one answer per line; the time a call took is measured from the moment it was asked.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from controller.core.events import CardEvent
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.i18n.numbers import format_fixed
from controller.i18n.variants import VARIANT_NAMES
from controller.training.calls import PAY_BETS, VOCABULARY, rule_message, word_problem_message
from controller.training.drill import Drill, Due
from controller.training.events import (
    CallDueEvent,
    CallRejectedEvent,
    CallScoredEvent,
    TrainingEvent,
    training_line,
)
from controller.training.report import report_lines

Writer = Callable[[list[TrainingEvent]], None]
Keeper = Callable[[Mapping[str, Any] | None, list[TrainingEvent]], None]
"""Keeps what the drill said after an answer (None: its opening), before it is shown: the training journal."""

END_OF_INPUT: Mapping[str, Any] = {"end": "the input ended before the drill"}


def answer_record(due: Due, text: str, seconds: float) -> dict[str, Any]:
    """An answer as the training journal keeps it."""
    return {"answer": {"round": due.round, "call": due.call, "text": text.rstrip("\r\n"),
                       "seconds": round(seconds, 3)}}


def run_drill(drill: Drill, answers: TextIO, show: Writer, ask: Callable[[], None] = lambda: None,
              keep: Keeper | None = None, clock: Callable[[], float] = time.monotonic) -> None:
    """Run ``drill`` reading one answer per line from ``answers`` until it ends or the input does.

    At the end of the input the drill stops where it is and the report says it ended early; so it does at Ctrl+C
    (or a stop signal taken as Ctrl+C: :mod:`controller.cli.stopping`) while a call is awaited, and the interrupt
    goes on (the command then says what stopped it).
    """
    def tell(answer: Mapping[str, Any] | None, events: list[TrainingEvent]) -> None:
        if keep is not None:
            keep(answer, events)
        show(events)

    tell(None, drill.start())
    asked = clock()
    while drill.due is not None:
        try:
            ask()
            line = answers.readline()
        except KeyboardInterrupt:  # Ctrl+C (or a stop signal) at a call ends the drill as the input's end does
            report: list[TrainingEvent] = [drill.report_event()]
            if keep is not None:
                keep(END_OF_INPUT, report)
            with contextlib.suppress(OSError):  # a terminal hung up (SIGHUP) takes no more lines: the report is kept
                show(report)
            raise
        if not line:
            tell(END_OF_INPUT, [drill.report_event()])
            return
        seconds = clock() - asked
        answer = answer_record(drill.due, line, seconds)
        events = drill.answer(line, seconds)
        tell(answer, events)
        if isinstance(events[0], CallScoredEvent):
            asked = clock()


class JsonLines:
    """Each event as one compact JSON line on ``out``, flushed at once."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, events: list[TrainingEvent]) -> None:
        for event in events:
            self.out.write(training_line(event) + "\n")
        self.out.flush()


SIDES = {"P": message("train.player_card", "Player card {number}: {card}"),
         "B": message("train.banker_card", "Banker card {number}: {card}")}
QUESTIONS = {
    "player": message("train.ask.player", "Player's call ({words})?"),
    "banker": message("train.ask.banker", "Banker's call ({words})?"),
    "winner": message("train.ask.winner", "Winner ({words})?"),
}


def question(due: CallDueEvent, words: Catalogue = ENGLISH) -> str:
    """The question a call asks a person, with its words (the answers stay the words the drill accepts)."""
    if due.call == "pay":
        bet = str(due.get("bet"))
        return words.say("train.ask.pay", "Pay on the {bet} bet (e.g. +0.95, -1, 0)?",
                         bet=PAY_BETS.get(bet.replace("_", " "), bet))
    asked = QUESTIONS[due.call]
    return words.text(Message(asked.id, asked.text, {"words": "/".join(VOCABULARY[due.call])}))


def describe(event: TrainingEvent, words: Catalogue = ENGLISH) -> list[str]:
    """An event of the drill as lines for a person (a call due is asked, not described: none)."""
    say = words.say
    if isinstance(event, CardEvent):
        heading = [say("train.round", "Round {round}", round=event.round)] if event.slot == "P1" else []
        card = SIDES[event.slot[0]]
        return [*heading, "  " + words.text(Message(card.id, card.text, {"number": event.slot[1],
                                                                         "card": event.card}))]
    if isinstance(event, CallDueEvent):
        return []
    if isinstance(event, CallRejectedEvent):
        problem = word_problem_message(event.call, event.input)
        return ["  " + (say("train.call_again", "{problem}; call again", problem=problem) if problem
                        else event.say)]
    if isinstance(event, CallScoredEvent):
        took = format_fixed(event.seconds, 1, words.language) + " s"
        if event.correct:
            return ["  " + say("train.right", "right ({took})", took=took)]
        rule = event.rule if isinstance(event.rule, str) else ""
        worded = rule_message(rule)
        variant = VARIANT_NAMES.get(str(worded.params.get("variant"))) if worded is not None else None
        if worded is not None and variant is not None:  # a pay's rule names the table's variant as people read it
            worded = message(worded.id, worded.text, **{**worded.params, **worded.parts, "variant": variant})
        return ["  " + say("train.wrong", "WRONG ({took}): {expected}, not {given}: {rule}", took=took,
                           expected=event.expected, given=event.given,
                           rule=words.text(worded) if worded is not None else rule)]
    return report_lines(event, words)


class PlainTerminal:
    """The drill as lines for a person: the cards, a question with its words, the verdict."""

    def __init__(self, out: TextIO, words: Catalogue = ENGLISH) -> None:
        self.out = out
        self.words = words
        self.question = ""

    def __call__(self, events: list[TrainingEvent]) -> None:
        for event in events:
            if isinstance(event, CallDueEvent):
                self.question = question(event, self.words)
            for line in describe(event, self.words):
                self.out.write(line + "\n")
        self.out.flush()

    def ask(self) -> None:
        self.out.write(self.question + " ")
        self.out.flush()
