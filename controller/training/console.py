"""The drill in the dealer console's style: a Textual screen answered by keys.

==========  =====================================
call        keys
==========  =====================================
player      ``n`` natural, ``d`` draw, ``s`` stand
banker      ``d`` draw, ``s`` stand
winner      ``p`` player, ``b`` banker, ``t`` tie
pay         type the net pay (``+0.95``), Enter
==========  =====================================

``q`` (or Ctrl+Q) ends the drill (the report then says it ended early); the report is kept (the training
journal) and given back to be printed when the console closes, however the drill ended. Each call is timed from
the moment it is shown. The screen is built of the dealer console's widgets: the hands by slot with the cards as
the dealer reads them (``6♦``) and their totals, as the table's view showed them when it dealt the last card the
drill has shown (:attr:`~controller.training.drill.Drill.shown`, never added up here), and the call due in large
type. TRAINING stays in large type at the top all
along: a drill never passes for live play.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any, ClassVar, Final

from textual import events as textual_events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.driver import Driver
from textual.widgets import Footer, Input, Static

from controller.core.events import CardEvent
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.training.calls import CALL_NAMES, PAY_BETS
from controller.training.drill import Drill
from controller.training.events import CallDueEvent, TrainingEvent, TrainingReportEvent
from controller.training.frontends import END_OF_INPUT, answer_record, describe, question
from controller.training.report import report_lines
from controller.ui.console import MODE_BANNER_CSS, BigText, mode_banner
from controller.ui.console_words import word_bindings
from controller.ui.hands import hand_text
from controller.ui.keyboard_driver import keyboard_driver
from controller.ui.tableview import BANKER_SLOTS, PLAYER_SLOTS

KEY_WORDS: Final[dict[str, dict[str, str]]] = {
    "player": {"n": "natural", "d": "draw", "s": "stand"},
    "banker": {"d": "draw", "s": "stand"},
    "winner": {"p": "player", "b": "banker", "t": "tie"},
}
"""For each word call, the key that gives each word."""

WORD_NAMES: Final[dict[str, Message]] = {
    "natural": message("train.console.word.natural", "natural"),
    "draw": message("train.console.word.draw", "draw"),
    "stand": message("train.console.word.stand", "stand"),
    "player": message("train.console.word.player", "player"),
    "banker": message("train.console.word.banker", "banker"),
    "tie": message("train.console.word.tie", "tie"),
}
"""Each answer word as the console names it beside its key (the drill still scores the word)."""

CALL_QUESTIONS: Final[dict[str, Message]] = {
    "player": message("train.console.ask.player", "Player's call"),
    "banker": message("train.console.ask.banker", "Banker's call"),
    "winner": message("train.console.ask.winner", "Winner"),
}
"""The question of each word call, before its keys."""

BINDING_NAMES: Final = {"quit_drill": message("train.console.key.quit", "end the drill")}

Keeper = Callable[[Mapping[str, Any] | None, list[TrainingEvent]], None]


class PayField(Input):
    """The field a pay is typed in: it leaves ``q`` to the drill (no pay holds a q), so that q ends the drill at a
    pay call too, as at every other call; a field that takes printable keys hides the app's bindings of them."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "q" and super().check_consume_key(key, character)


class TrainingConsole(App[list[str]]):
    """The drill on one screen: the round's hands, the call due in large type with its keys, the last verdict,
    the score; its return value is the report's lines."""

    CSS = """
    #action-box { height: auto; border: heavy $accent; padding: 0 1; }
    #question { height: auto; text-style: bold; }
    #hands { height: auto; }
    .hand { width: 1fr; height: auto; border: round $primary; padding: 0 1; }
    #verdict { height: auto; padding: 0 1; }
    #score { height: auto; padding: 0 1; }
    #pay { display: none; margin: 0 1; }
    #pay.asked { display: block; }
    """ + MODE_BANNER_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_drill", "end the drill", priority=True)]
    """q ends the drill whatever has the focus, the pay's field too (:class:`PayField`; docs/training.md)."""
    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks English only, and a drill needs none

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal, its keyboard read so that a byte that is not UTF-8 is no crash."""
        return keyboard_driver(super().get_driver_class())

    def __init__(self, drill: Drill, keep: Keeper | None = None,
                 clock: Callable[[], float] = time.monotonic, words: Catalogue = ENGLISH) -> None:
        super().__init__()
        self.words = words
        word_bindings(self, words, BINDING_NAMES)
        self.drill = drill
        self.keep = keep
        self.clock = clock
        self.asked = 0.0
        self.question = ""
        self.report: list[str] = []
        self.ended = False
        """The drill was ended before its end (its report kept as ended early)."""
        self.stopped = False
        """A stop came from outside (:meth:`stop`)."""

    def compose(self) -> ComposeResult:
        yield mode_banner("training", self.words)
        with Vertical(id="action-box"):
            yield BigText("", id="call-big")
            yield Static(id="question")
        yield PayField(placeholder=self.words.say("train.console.pay_placeholder", "net pay, e.g. +0.95"),
                    id="pay", disabled=True)
        with Horizontal(id="hands"):
            yield Static(id="player-hand", classes="hand")
            yield Static(id="banker-hand", classes="hand")
        yield Static(id="verdict")
        yield Static(id="score")
        yield Footer()

    def on_mount(self) -> None:
        self._tell(None, self.drill.start())
        if self.stopped:
            self.action_quit_drill()

    def on_key(self, event: textual_events.Key) -> None:
        """A key answers the word call due; a printable key that is none of its answers (nor ``q``) is said to be
        none, with the keys that are, and scores nothing."""
        due = self.drill.due
        if due is None or due.call == "pay":
            return
        word = KEY_WORDS[due.call].get(event.key)
        if word is not None:
            event.stop()
            self._answer(word)
        elif event.is_printable and event.character and event.key not in self._bindings.key_to_bindings:
            event.stop()
            self.query_one("#verdict", Static).update(self.words.say(
                "train.console.key.unknown", "{key} is not an answer: {keys}", key=event.character,
                keys=self._keys(due.call)))

    def action_help_quit(self) -> None:
        """Ctrl+C does not end the drill: say what does, in the drill's language (Textual's notice is English)."""
        self.notify(self.words.say("train.console.ctrl_c", "Ctrl+C does not end the drill: press q or Ctrl+Q."))

    def _keys(self, call: str) -> str:
        """The keys of a word call with the word each gives (``n natural, d draw, s stand``)."""
        return ", ".join(f"{key} {self.words.text(WORD_NAMES[word])}" for key, word in KEY_WORDS[call].items())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self._answer(event.value)

    def action_quit_drill(self) -> None:
        """End the drill (kept and reported as ended early while a call is due) and close with the report."""
        self.end_drill()
        self.exit(self.report)

    def end_drill(self, draw: bool = True) -> list[str]:
        """End the drill where it is, once: while a call is due it is kept and reported as ended early (``draw``:
        on the screen too; not once the console is closed). The report's lines."""
        if self.drill.due is not None and not self.ended:
            self.ended = True
            self._tell(END_OF_INPUT, [self.drill.report_event()], draw)
        return self.report

    def stop(self) -> None:
        """A stop from outside (Ctrl+C as a signal, or a stop signal taken as one): the drill ends as on ``q``, at
        once or, before the console has started, as soon as it starts."""
        self.stopped = True
        if self.is_running:
            self.action_quit_drill()

    async def action_quit(self) -> None:
        """Ctrl+Q ends the drill as ``q`` does: the report is never lost."""
        self.action_quit_drill()

    def _answer(self, text: str) -> None:
        due = self.drill.due
        assert due is not None
        seconds = self.clock() - self.asked
        record = answer_record(due, text, seconds)
        self._tell(record, self.drill.answer(text, seconds))

    def _tell(self, answer: Mapping[str, Any] | None, events: list[TrainingEvent], draw: bool = True) -> None:
        if self.keep is not None:
            self.keep(answer, events)
        verdicts: list[str] = []
        for event in events:
            if isinstance(event, CardEvent):
                continue  # the hands are the table's view as far as the drill has shown it (_show_hands)
            if isinstance(event, CallDueEvent):
                self.question = question(event, self.words)
                self.asked = self.clock()
            elif isinstance(event, TrainingReportEvent):
                self.report = report_lines(event, self.words)
            else:
                verdicts.extend(describe(event, self.words))
        if draw:
            self._render(verdicts)

    def _render(self, verdicts: list[str]) -> None:
        due = self.drill.due
        say = self.words.say
        self._show_hands()
        pay = self.query_one("#pay", Input)
        big = ""
        if due is None:
            question = say("train.console.over", "Drill over. q: quit")
            if self.drill.stopped is not None:
                question += "\n" + str(self.drill.stopped)
        elif due.call == "pay":
            question = self.question
            big = f"{self.words.text(CALL_NAMES['pay'])} {self._bet_name(due.bet)}"
        else:
            question = say("train.console.ask", "{question}: {keys}", question=CALL_QUESTIONS[due.call],
                           keys=self._keys(due.call))
            big = self.words.text(CALL_QUESTIONS[due.call])
        self.query_one("#call-big", BigText).update(big.upper())
        paying = due is not None and due.call == "pay"
        pay.set_class(paying, "asked")
        pay.disabled = not paying
        if paying:
            pay.focus()
        else:
            self.set_focus(None)
        self.query_one("#question", Static).update(question)
        if verdicts:
            self.query_one("#verdict", Static).update("\n".join(line.strip() for line in verdicts))
        tally = self.drill.report_event()
        score = say("train.console.score", "{right} of {calls} right", right=tally.correct, calls=tally.calls)
        self.query_one("#score", Static).update("\n".join(self.report) if self.report else score)

    def _bet_name(self, bet: str | None) -> str:
        name = PAY_BETS.get((bet or "").replace("_", " "))
        return self.words.text(name) if name is not None else str(bet)

    def _show_hands(self) -> None:
        """Each side's cards and total as the table's view showed them just after the last card the drill showed."""
        view = self.drill.shown
        cards = {card.slot: card.card for card in view.cards if card.card is not None} if view is not None else {}
        totals = {"player": view.player_total, "banker": view.banker_total} if view is not None else {}
        for side, slots in (("player", PLAYER_SLOTS), ("banker", BANKER_SLOTS)):
            self.query_one(f"#{side}-hand", Static).update(hand_text(side, slots, cards, totals.get(side), self.words))


def run_training_console(drill: Drill, keep: Keeper | None = None, words: Catalogue = ENGLISH,
                         show: Callable[[str], None] = print) -> None:
    """Run the drill in the console, in ``words``' language, until it is over and the trainee quits (or quits
    before), then ``show`` the report's lines once the screen is gone, however the drill ended.

    A stop while it runs (Ctrl+C as a signal, or SIGTERM and SIGHUP, which :mod:`controller.cli.stopping` passes to
    the Ctrl+C handler) ends the drill as ``q`` does, its report kept and shown; then :class:`KeyboardInterrupt`
    is raised, for the command to say what stopped it. Without this the console closed on a stop with the report
    neither shown nor kept."""
    console = TrainingConsole(drill, keep, words=words)
    stops: list[int] = []

    def stop(number: int, frame: FrameType | None) -> None:
        stops.append(number)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the console is not running yet: it ends the drill as it starts
            console.stopped = True
            return
        loop.call_soon_threadsafe(console.stop)

    previous: Any = None
    with contextlib.suppress(ValueError):  # only the main thread takes signals
        previous = signal.signal(signal.SIGINT, stop)
    try:
        console.run()
    except KeyboardInterrupt:
        stops.append(signal.SIGINT)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    lines = console.end_drill(draw=False)
    if not stops:
        for line in lines:
            show(line)
        return
    with contextlib.suppress(OSError):  # a terminal hung up (SIGHUP) takes no more lines: the report is kept
        for line in lines:
            show(line)
    raise KeyboardInterrupt
