"""The drill: the table deals, the trainee makes the calls, each call is scored at once.

Pure: the rounds come in (:mod:`controller.training.deal`), answers and the seconds they took come in
from a front-end (JSON lines, a terminal, the console), events go out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from controller.core.events import CardEvent
from controller.core.published import View
from controller.core.settlement import BETS
from controller.training import calls
from controller.training.calls import CallKind, Expected
from controller.training.deal import DealtRound, TrainingDealError
from controller.training.events import (
    CallDueEvent,
    CallRejectedEvent,
    CallScoredEvent,
    TrainingEvent,
    TrainingReportEvent,
)
from controller.training.report import TrainingReport


@dataclass(frozen=True, slots=True)
class Due:
    """A call the trainee owes: its kind, the bet for a pay call, and what the rules expect."""

    round: int
    call: CallKind
    expected: Expected
    bet: str | None = None

    def event(self) -> CallDueEvent:
        event = CallDueEvent(round=self.round, call=self.call)
        if self.bet is not None:
            event.bet = self.bet
        return event


@dataclass(frozen=True, slots=True)
class Shown:
    """A card the drill shows: its ``card`` event, and the table's view just after it was dealt (None: not known)."""

    event: CardEvent
    view: View | None


Step = Shown | Due


def round_steps(number: int, dealt: DealtRound, focus_banker: bool, payouts: bool) -> list[Step]:
    """The cards to show and the calls to ask, in order, for one round numbered ``number``."""
    steps: list[Step] = []
    player, banker = dealt.player, dealt.banker
    views = dict(zip((slot for slot, _ in dealt.cards), dealt.views, strict=False))

    def shown(slot: str, code: str) -> Shown:
        return Shown(CardEvent(round=number, slot=slot, card=code), views.get(slot))

    for slot, card in dealt.cards:
        if slot in ("P3", "B3"):
            break
        steps.append(shown(slot, card.code))
    player_call = calls.player_call(player, banker)
    if not focus_banker:
        steps.append(Due(number, "player", player_call))
    if player_call.answer != "natural":
        third = dealt.player_third
        if third is not None:
            steps.append(shown("P3", third.code))
        steps.append(Due(number, "banker", calls.banker_call(banker, third)))
        if len(banker) == 3:
            steps.append(shown("B3", banker[2].code))
    steps.append(Due(number, "winner", calls.winner_call(player, banker)))
    if payouts:
        pays = calls.pay_calls(player, banker, dealt.variant, dealt.bets)
        steps.extend(Due(number, "pay", pays[bet], bet) for bet in BETS)
    return steps


def wanted(dealt: DealtRound, focus_banker: bool) -> bool:
    """Does the drill ask about this round? With the banker focus, only rounds where the player drew."""
    return not focus_banker or dealt.player_third is not None


class Drill:
    """``rounds`` of training from the dealt rounds; :meth:`start` then :meth:`answer` until :attr:`finished`.

    Cards that stop the table (:class:`~controller.training.deal.TrainingDealError`) end the drill early with
    its report, the error in :attr:`stopped`."""

    def __init__(self, dealt: Iterator[DealtRound], rounds: int, *, focus_banker: bool = False,
                 payouts: bool = False) -> None:
        self._dealt = (round_ for round_ in dealt if wanted(round_, focus_banker))
        self._rounds = rounds
        self._focus_banker = focus_banker
        self._payouts = payouts
        self._steps: list[Step] = []
        self._dealt_out = False
        self.due: Due | None = None
        """The call the trainee owes now (None before :meth:`start` and once finished)."""
        self.report = TrainingReport()
        self.stopped: TrainingDealError | None = None
        """Why the cards stopped the drill before its end (a misdeal in a script), or None."""
        self.shown: View | None = None
        """The table's view just after it dealt the last card the drill has shown: the round's layout and totals as
        far as the trainee has seen them (None before the first card)."""

    @property
    def finished(self) -> bool:
        """Every call asked was scored, and the rounds asked for (or all the cards there were) are dealt."""
        return (self.stopped is None and self.due is None and not self._steps
                and (self._dealt_out or self.report.rounds >= self._rounds))

    def start(self) -> list[TrainingEvent]:
        """The cards up to the first call, and that call (or just the report if there is nothing to drill)."""
        return self._advance()

    def answer(self, text: str, seconds: float) -> list[TrainingEvent]:
        """Score ``text`` for the call due; a word outside the call's vocabulary is rejected and asked again."""
        due = self.due
        if due is None:
            raise RuntimeError("no call is due")
        given = text.strip()
        problem = calls.word_problem(due.call, given)
        if problem is not None:
            rejected = CallRejectedEvent(round=due.round, call=due.call, input=given, reason=problem,
                                         say=f"{problem}; call again")
            return [rejected, due.event()]
        correct = calls.is_right(due.call, given, due.expected.answer)
        scored = CallScoredEvent(round=due.round, call=due.call, expected=due.expected.answer, given=given.lower(),
                                 correct=correct, cell=due.expected.cell, seconds=round(seconds, 3))
        if due.bet is not None:
            scored.bet = due.bet
        if not correct:
            scored.rule = due.expected.rule
        self.report.add(scored)
        self.due = None
        return [scored, *self._advance()]

    def report_event(self) -> TrainingReportEvent:
        return self.report.event(finished=self.finished)

    def _advance(self) -> list[TrainingEvent]:
        events: list[TrainingEvent] = []
        while True:
            if not self._steps and not self._next_round():
                events.append(self.report_event())
                return events
            step = self._steps.pop(0)
            if isinstance(step, Due):
                self.due = step
                events.append(step.event())
                return events
            self.shown = step.view
            events.append(step.event)

    def _next_round(self) -> bool:
        if self.report.rounds >= self._rounds or self.stopped is not None:
            return False
        try:
            dealt = next(self._dealt, None)
        except TrainingDealError as error:  # the report of the calls made so far still ends the drill
            self.stopped = error
            return False
        if dealt is None:
            self._dealt_out = True
            return False
        self.report.rounds += 1
        self._steps = round_steps(self.report.rounds, dealt, self._focus_banker, self._payouts)
        return True
