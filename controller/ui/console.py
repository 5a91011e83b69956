"""The dealer console: a Textual app for the dealer's screen.

It shows the moments that matter in large type (:mod:`controller.ui.moments`): an open alert until
it is acknowledged, the cut card and the last round, the result in the winner's colour with the
score, a third card with the rule that calls it, a misdeal's keys; each slot's card and the totals
(a hand-entered card marked ``✎``), the shoe number, the dealer, the reader, the shoe counters and
the roads. Only the keys that apply now are shown and accepted; anything irreversible asks first:

====  ==========================================  ===========================
key   what                                        input
====  ==========================================  ===========================
n     next round                                  ``@next``
b     burn the offending card(s) and continue     ``@burn``
v     void the round, bets returned (asks)        ``@void``
e     the last card read was exposed in error     ``@exposed``
u     use the exposed card where it was dealt     ``@use``
m     enter a card by hand (asks, reads it back)  ``@manual XX``
s     new shoe loaded (asks to confirm)           ``@shoe``
c     close the shoe early (asks)                 ``@close``
a     acknowledge the oldest open alert           ``@ack ID``
k     the stub's count is the one the table shows ``@count``
t     type the stub's count (asks the number)     ``@count 312``
z     undo the last hand-entered card or exposed  ``@undo``
      call (only while the core offers it; asks)
^q    quit (asks while a round is being dealt)
====  ==========================================  ===========================

Undo follows the house rules (:mod:`controller.core.undo`): a card read from the shoe is never
taken back, and the core refuses anything else with the reason.

Feed it table events with :meth:`DealerConsole.apply` (from any thread); it
calls ``on_input(Input)`` for each dealer input. ``python -m controller.ui.console
EVENTS.jsonl`` shows a recorded event stream and prints the dealer's inputs to
standard output.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import ClassVar, Final, cast

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from controller.core.events import Event, to_builtins
from controller.core.exceptions import CroupierError
from controller.core.inputs import Input as DealerInput
from controller.core.inputs import InputKind
from controller.core.published import View
from controller.core.recall import RECALL_EVENTS, recalled_rounds
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.kinds import kind_name
from controller.terms import MODE_WORDS, Mode
from controller.ui import fitting
from controller.ui.bigtext import banner, big_width, can_render, cells, render_big, wrap_big
from controller.ui.cardnames import card_params
from controller.ui.console_words import (
    MANUAL_MARK,
    reader_word,
    result_line,
    sent_words,
    status_parts,
    top_bar,
    word_bindings,
)
from controller.ui.dealer_words import misdeal_lines
from controller.ui.dialogs import ConfirmScreen, ManualEntryScreen, RevealTotalScreen, StubCountScreen
from controller.ui.fontglyphs import large_type
from controller.ui.hands import card_text, hand_text
from controller.ui.keyboard_driver import keyboard_driver
from controller.ui.localise import Localiser
from controller.ui.moments import Moment, alert_moment, next_moment, shoe_banner
from controller.ui.recalltext import recall_text
from controller.ui.roads import RESPONSIBLE_GAMING_LINE, RESPONSIBLE_GAMING_LINE_KO, responsible_gaming_lines
from controller.ui.roadsview import RoadsView
from controller.ui.tableview import BANKER_SLOTS, BURN_PLACE, FACE_DOWN, PLAYER_SLOTS, TableView, ViewEvent

__all__ = ["MANUAL_MARK", "BigText", "DealerConsole", "RoadsView", "TableScreen", "card_text", "main",
           "status_parts"]

InputCallback = Callable[[DealerInput], None]

COMPACT_ROWS: Final = 30
"""Below this many rows the console drops borders and repeated lines so the roads fit (80x24): the result line
(the large type says it) and the status line but for an approval awaited or an advantage alert (the top line
takes the cards burned and set aside beside the cards left, until the moments on screen need the row they may
take: :mod:`controller.ui.fitting`), and hides the roads while the table is halted so a misdeal's keys fit in
large type."""
LARGE_SCREEN_ROWS: Final = 40
"""From this many rows the large type may grow beyond two pixel rows a row."""


def card_name(code: str) -> str:
    """``4♦`` for ``4D`` (as :func:`card_text`, without style)."""
    return card_text(code).plain


class BigText(Widget):
    """Text in large block letters, as large as the width allows (plain bold if it cannot fit).

    On a large terminal (:data:`LARGE_SCREEN_ROWS`) the letters grow up to ``max_scale``. Text the block
    font has no glyphs for (Korean, Chinese, Japanese) is drawn in an installed font's glyphs
    (:mod:`controller.ui.fontglyphs`) as large; without such a font, letter-spaced or wrapped by terminal cells
    (a full-width character takes two) by :func:`controller.ui.bigtext.banner`.
    """

    DEFAULT_CSS = "BigText { height: auto; width: 100%; }"

    def __init__(self, text: str = "", *, id: str | None = None, max_scale: int = 3, shrinks_at: int = 3) -> None:
        super().__init__(id=id)
        self._text = text
        self._style = "bold"
        self.max_scale = max_scale
        self.shrinks_at = shrinks_at
        """The fitting level (:mod:`controller.ui.fitting`) from which the letters keep to their smallest size."""

    @property
    def text(self) -> str:
        return self._text

    def update(self, text: str, style: str = "bold") -> None:
        """Show ``text`` in ``style``."""
        if text != self._text or style != self._style:
            self._text = text
            self._style = style
            self.refresh(layout=True)

    def render(self) -> Text:
        return self.drawn(self.size.width or 80)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The rows the letters take at ``width``, the width the layout gives it: its size, which :meth:`render`
        reads, is that width only after the layout (after a resize, the letters drawn at the old width would give
        the layout their height, one layout late, and the console would fit its terminal to them)."""
        if not width:
            return 0
        return len(self.drawn(width).wrap(self.app.console, width))

    def drawn(self, width: int) -> Text:
        """The letters at ``width`` columns."""
        rows = self.app.size.height if self.is_attached else 24
        largest = self.max_scale if rows >= LARGE_SCREEN_ROWS else 2
        if fitting.level_of(self) >= self.shrinks_at:
            largest = 1
        text = Text()  # the style as a span: Textual reads Rich colour names there
        if can_render(self._text):
            for scale in range(largest, 0, -1):
                if big_width(self._text, scale) <= width:
                    text.append("\n".join(render_big(self._text, scale)), style=self._style)
                    return text
            lines = wrap_big(self._text, width)  # too wide for one line: several lines of large type
            if lines is not None:
                text.append("\n".join(row for line in lines for row in render_big(line)), style=self._style)
                return text
        drawn = large_type(self._text, width, largest, getattr(getattr(self.app, "words", None), "language", None))
        if drawn is not None:  # Korean, Chinese, Japanese: glyphs of an installed font
            text.append("\n".join(drawn), style=self._style)
            return text
        if cells(self._text) > len(self._text):  # no font for them: spaced out, wrapped by cells
            text.append("\n".join(banner(self._text, width)), style=self._style)
            return text
        text.append(self._text.upper(), style=self._style)
        return text


class TableScreen(Screen[None]):
    """The console's main screen; its key bindings are the dealer's inputs (only those that apply now)."""

    fit_level = 0
    """What the screen gives up to fit the terminal (:mod:`controller.ui.fitting`)."""
    composed = False
    """Are its widgets all mounted? Until then the console draws nothing on it (the runner's thread may hand the
    console events while the screen is still being built); the screen's mount draws the view as it is then."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "dealer('next')", "Next round"),
        Binding("b", "dealer('burn')", "Burn"),
        Binding("v", "void", "Void"),
        Binding("e", "dealer('exposed')", "Exposed"),
        Binding("u", "dealer('use')", "Use"),
        Binding("m", "manual", "Manual"),
        Binding("s", "new_shoe", "New shoe"),
        Binding("c", "close_shoe", "Close shoe"),
        Binding("a", "ack", "Ack alert"),
        Binding("r", "reveal", "Reveal"),
        Binding("k", "count_confirm", "Count OK"),
        Binding("t", "count_type", "Type count"),
        Binding("z", "undo", "Undo"),
        Binding("h", "recall", "Recall"),
    ]

    def __init__(self, words: Catalogue = ENGLISH, mode: Mode = "live") -> None:
        super().__init__()
        self.words = words
        self.mode = mode
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar")
        yield mode_banner(self.mode, self.words)
        with VerticalScroll(id="main"):
            with Vertical(id="alert-box"):
                yield BigText("", id="alert-big", max_scale=2, shrinks_at=2)
                yield Static("", id="alert-text")
            with Vertical(id="banner-box"):
                yield BigText("", id="banner-big", max_scale=2, shrinks_at=2)
                yield Static("", id="banner-text")
            with Vertical(id="action-box"):
                yield BigText(self.words.say("console.waiting", "WAITING"), id="next-action")
                yield Static(self.words.say("console.waiting.detail", "Waiting for the table."),
                             id="next-action-text")
            yield Static("", id="misdeal")
            with Horizontal(id="hands"):
                yield Static("", id="player-hand", classes="hand")
                yield Static("", id="banker-hand", classes="hand")
            yield Static("", id="result")
            with Horizontal(id="status-bar"):
                yield Static("", id="reader")
                yield Static("", id="shoe")
            yield Static("", id="sent")
            yield RoadsView(id="roads", words=self.words)
            yield Static(responsible_gaming_text(RESPONSIBLE_GAMING_ROW, self.words), id="responsible-gaming")
        yield Footer()

    def on_mount(self) -> None:
        self.composed = True  # Textual mounts a screen after every widget its compose yields is mounted
        app = self.app
        if isinstance(app, DealerConsole):  # each layout checks the fit (:mod:`controller.ui.fitting`)
            self.screen_layout_refresh_signal.subscribe(self, lambda _: app.laid_out(), immediate=True)
        self.set_class(app.size.height < COMPACT_ROWS, "compact")
        if isinstance(app, DealerConsole):
            try:
                app.refresh_view()
            except NoMatches:  # unless a stop cancelled the console's start while they mounted: it is closing
                self.composed = False

    def on_resize(self) -> None:
        self.set_class(self.app.size.height < COMPACT_ROWS, "compact")
        for big in self.query(BigText):  # their size follows the terminal's rows, not only their width
            big.refresh(layout=True)
        self.query_one("#roads", RoadsView).compact = self.has_class("compact")
        app = self.app
        if isinstance(app, DealerConsole):
            app.refresh_view()

    @property
    def console(self) -> DealerConsole | None:
        app = self.app
        return app if isinstance(app, DealerConsole) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that apply now are shown and accepted."""
        console = self.console
        if console is None or action not in ACTION_INPUTS:
            return True
        kind = ACTION_INPUTS[action] if action != "dealer" else str(parameters[0])
        if action == "count_confirm" and console.view.misdeal is not None:
            return False  # after a mismatch the count is typed again: confirming the table's figure proves nothing
        if action == "ack" and not console.view.alerts:
            return False  # the open alerts are the supervisor's (advantage, no badges): a would acknowledge none shown
        return console.applies(kind)

    async def on_key(self, event: events.Key) -> None:
        """A key no binding of the screen takes now is answered on the status line, never dropped without a word:
        one that does not apply now is named with what it does, one the console does not have is said to be none
        (the keys that apply are in the footer)."""
        console = self.console
        active = self.active_bindings.get(event.key)
        if console is None or (active is not None and active.enabled):
            return
        key = event.character if event.is_printable and event.character else event.key
        named = event.key
        if len(key) == 1 and key.isascii() and key.isupper() and key.lower() in self._bindings.key_to_bindings:
            named = key.lower()  # the capital the screen shows ("press B"), typed with Shift or Caps Lock
            lowered = self.active_bindings.get(named)
            if lowered is not None and lowered.enabled:
                event.stop()
                await self.app.run_action(lowered.binding.action, lowered.node)
                return
        words = self.words
        bound = self._bindings.key_to_bindings.get(named)
        if bound:
            answer = words.say("console.key.not_now", "{key} ({name}) does not apply now: press a key the footer "
                               "shows", key=key, name=bound[0].description)
        else:
            answer = words.say("console.key.unknown", "{key} is not a key of the console: press a key the footer "
                               "shows", key=key)
        event.stop()
        console.refuse_key(answer)

    def action_dealer(self, kind: str) -> None:
        console = self.console
        if console is not None and console.applies(kind):
            console.send_input(DealerInput(InputKind(kind)))

    def _confirmed(self, question: str, yes: str, then: Callable[[], None]) -> None:
        def answered(confirmed: bool | None) -> None:
            if confirmed:
                then()

        self.app.push_screen(ConfirmScreen(question, yes, self.words), answered)

    def _ask_and_send(self, kind: InputKind, question: str, yes: str) -> None:
        console = self.console
        if console is None or not console.applies(kind.value):
            return
        self._confirmed(question, yes, lambda: console.send_input(DealerInput(kind)))

    def action_void(self) -> None:
        round_number = self.console.view.round if self.console is not None else None
        words = self.words
        self._ask_and_send(InputKind.VOID, words.say("console.ask.void", "Void round {round}? Every bet goes back.",
                                                     round=str(round_number)),
                           words.say("console.ask.void.yes", "void it"))

    def action_close_shoe(self) -> None:
        words = self.words
        self._ask_and_send(InputKind.CLOSE, words.say("console.ask.close", "Close this shoe now? No more rounds are "
                                                      "dealt from it."),
                           words.say("console.ask.close.yes", "close the shoe"))

    def action_new_shoe(self) -> None:
        words = self.words
        self._ask_and_send(InputKind.SHOE, words.say("console.ask.shoe", "New shoe: is it shuffled, cut and loaded?"),
                           words.say("console.ask.shoe.yes", "start the new shoe"))

    def action_ack(self) -> None:
        """Acknowledge the oldest open alert; a critical one (which stops the table) only once the dealer confirms
        surveillance released it."""
        console = self.console
        if console is None or not console.view.alerts:
            return
        alert_id, alert = next(iter(console.view.alerts.items()))
        send = partial(console.send_input, DealerInput(InputKind.ACK, alert_id))
        if alert.get("severity") != "critical":
            send()
            return
        words = self.words
        self._confirmed(words.say("console.ask.release", "Release critical alert {id} ({kind})? Only once "
                                  "surveillance has cleared it: the table deals again.", id=alert_id,
                                  kind=kind_name(str(alert.get("kind", "?")), words)),
                        words.say("console.ask.release.yes", "release it"), send)

    def action_undo(self) -> None:
        console = self.console
        subject = console.view.undo_subject() if console is not None and console.applies("undo") else None
        if console is None or subject is None:
            return
        card, slot = subject
        words = self.words
        if console.view.undo == "@exposed":
            question = words.say("undo.confirm_exposed", "Take back the exposed call? {card} stays in {slot}.",
                                 card=card_name(card), slot=slot or "?")
        else:
            question = words.say("undo.confirm_manual", "Take back {card} from {slot}?", card=card_name(card),
                                 slot=slot or words.say("undo.the_burn", "the burn"))
        self._confirmed(question, words.say("undo.yes", "take it back"),
                        lambda: console.send_input(DealerInput(InputKind.UNDO)))

    def action_recall(self) -> None:
        """Game recall, at any time (a halt included): the recall screen over this one."""
        console = self.console
        if console is not None:
            self.app.push_screen(RecallScreen(console.recall_lines(), self.words, self.mode))

    def action_reveal(self) -> None:
        """Reveal the next hand; with ``reveal_total`` first ask the total the dealer sees on it."""
        console = self.console
        if console is None or not console.applies("reveal"):
            return
        if not console.reveal_total:
            console.send_input(DealerInput(InputKind.REVEAL))
            return

        def keyed(total: int | None) -> None:
            if total is not None:
                console.send_input(DealerInput(InputKind.REVEAL, str(total)))

        self.app.push_screen(RevealTotalScreen(next_reveal_side(console.view.slots), self.words), keyed)

    def action_count_confirm(self) -> None:
        """The dealer counted the stub and found the count the table shows: ``@count``."""
        console = self.console
        if console is not None and console.applies("count") and console.view.misdeal is None:
            console.send_input(DealerInput(InputKind.COUNT))

    def action_count_type(self) -> None:
        """Ask the number the dealer counts in the stub, then send it: ``@count N``."""
        console = self.console
        if console is None or not console.applies("count"):
            return

        def typed(count: int | None) -> None:
            if count is not None:
                console.send_input(DealerInput(InputKind.COUNT, str(count)))

        self.app.push_screen(StubCountScreen(console.view.stub_count_expected(), self.words), typed)

    def action_manual(self) -> None:
        console = self.console
        if console is None or not console.applies("manual"):
            return
        words = self.words
        slot = manual_place(console.view, words)

        def entered(code: str | None) -> None:
            if code is not None:
                card = card_name(code)
                self._confirmed(words.say("console.ask.manual", "{card} to {slot}?", card=card, slot=slot),
                                words.say("console.ask.manual.yes", "enter {card} by hand", card=card),
                                lambda: console.send_input(DealerInput(InputKind.MANUAL, code)))

        self.app.push_screen(ManualEntryScreen(words), entered)


class RecallScreen(Screen[None]):
    """Game recall (R1, R2): the last rounds step by step, under RECALL in large type, over the table's screen, which
    goes on following the table; Esc (or ``h`` again) returns to it as it is."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,h", "back", "Back")]
    DEFAULT_CSS = """
    #recall-title { background: $warning; color: $background; }
    #recall-body { height: auto; padding: 0 1; }
    #recall-keys { dock: bottom; height: 1; padding: 0 1; text-style: bold; }
    """

    def __init__(self, lines: list[str], words: Catalogue = ENGLISH, mode: Mode = "live") -> None:
        super().__init__()
        self.lines = lines
        self.words = words
        self.mode = mode
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        words = self.words
        yield mode_banner(self.mode, words)
        yield BigText(words.say("console.recall.title", "RECALL"), id="recall-title", max_scale=1)
        with VerticalScroll(id="recall-scroll"):
            body = "\n".join(self.lines) or words.say("console.recall.none", "No round yet.")
            yield Static(Text(body), id="recall-body")
        yield Static(words.say("console.recall.keys", "Esc = back to the table"), id="recall-keys")
        yield Footer()

    def action_back(self) -> None:
        self.dismiss(None)


RECALL_ROUNDS = 10
"""The rounds the recall screen shows (R1: the latest and the nine before it)."""


def mode_banner(mode: Mode, words: Catalogue) -> BigText:
    """SIMULATION or TRAINING in large type, docked at the top of every screen of a console that is not showing
    live play (hidden on a live table's)."""
    banner = BigText("" if mode == "live" else words.text(MODE_WORDS[mode]), id="mode-banner", max_scale=1)
    banner.display = mode != "live"
    return banner


MODE_BANNER_CSS: Final = "#mode-banner { height: auto; background: magenta; color: white; padding: 0 1; }"
"""The mode banner's place and colours (every screen that shows it)."""


RESPONSIBLE_GAMING_TEXT: Final = f"{RESPONSIBLE_GAMING_LINE}  ·  {RESPONSIBLE_GAMING_LINE_KO}"
RESPONSIBLE_GAMING_ROW: Final = 200
"""A width that holds the responsible-gaming lines on one row (the console fits them to its width once shown)."""


def responsible_gaming_text(width: int, words: Catalogue = ENGLISH) -> str:
    """The responsible-gaming line in the table's language (in English: the English and Korean lines, on one
    row when ``width`` holds them, else each whole on its own row)."""
    lines = [text for _, text in responsible_gaming_lines([words])]
    one_row = "  ·  ".join(lines)
    return one_row if Text(one_row).cell_len <= width else "\n".join(lines)


def manual_place(view: TableView, words: Catalogue = ENGLISH) -> str:
    """Where a card entered by hand goes, as the read-back names it: the slot the core prompted or the halt
    names, "the burn", or "the due slot" only when the events do not say."""
    place = str(view.prompt.get("slot")) if view.prompt is not None else view.halt_place
    if place == BURN_PLACE:
        return words.say("undo.the_burn", "the burn")
    return place or words.say("console.ask.manual.due_slot", "the due slot")


def next_reveal_side(slots: dict[str, str]) -> str:
    """The side the next reveal turns up: the player's hand, the banker's, then each third card as dealt."""
    for side, wanted in (("player", ("P1", "P2")), ("banker", ("B1", "B2")), ("player", ("P3",)),
                         ("banker", ("B3",))):
        if any(slots.get(slot) == FACE_DOWN for slot in wanted):
            return side
    return "player"


ACTION_INPUTS: Final = {"dealer": "", "void": "void", "close_shoe": "close", "new_shoe": "shoe",
                        "manual": "manual", "ack": "ack", "undo": "undo", "reveal": "reveal",
                        "count_confirm": "count", "count_type": "count"}
"""The screen's actions that give a dealer input (``dealer`` names its input as its parameter)."""


class DealerConsole(App[None]):
    """The dealer console.

    ``on_input`` is called (on the console's thread) with each
    :class:`controller.core.inputs.Input` the dealer gives. Feed table events with
    :meth:`apply`; ``view`` is the :class:`TableView` they build. ``resumed`` says the
    events so far were replayed from a journal (the console then says at which round). ``words`` is the
    catalogue of the table's language (``[table] language``): the console's own words and the events' texts
    are shown in it (docs/languages.md). ``table``: the table's own view after those events
    (:meth:`apply_batch` gives the later ones), which the console shows over what the events told.
    """

    TITLE = "Croupier: dealer console"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),  # shown in the footer: the dealer's way out
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]
    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks English only, and a dealer needs none
    CSS = """
    #top-bar { dock: top; height: auto; background: $primary-background; text-style: bold; padding: 0 1; }
    #alert-box { display: none; height: auto; background: red; color: white; padding: 0 1; }
    #alert-box.open { display: block; }
    #alert-text { text-style: bold; }
    #banner-box { display: none; height: auto; background: yellow; color: black; padding: 0 1; }
    #banner-box.open { display: block; }
    #action-box { height: auto; border: heavy $accent; padding: 0 1; }
    #action-box.misdeal { border: heavy $error; }
    #misdeal { display: none; height: auto; background: $error; color: $text; padding: 0 1; text-style: bold; }
    #misdeal.open { display: block; }
    #next-action-text { text-style: bold; }
    #hands { height: auto; }
    .hand { width: 1fr; height: auto; border: round $primary; padding: 0 1; }
    #result { height: auto; text-style: bold; padding: 0 1; }
    #status-bar { height: auto; }
    #reader { width: auto; padding: 0 1; }
    #reader.offline { background: $error; text-style: bold; }
    #shoe { width: 1fr; padding: 0 1; }
    #sent { height: auto; padding: 0 1; color: $text-muted; }
    #roads { border: round $primary; padding: 0 1; height: 1fr; min-height: 0; }
    #responsible-gaming { text-align: center; color: $text-muted; padding: 0 1; }
    .compact #action-box { border: none; }
    .compact .hand { border: none; }
    .compact #roads { border: none; }
    .compact #reader { display: none; }
    .compact #status-bar.empty { display: none; }
    .compact #result { display: none; }
    .compact #sent { display: none; }
    .compact #sent.refused { display: block; }
    .compact.halted #roads { display: none; }
    """ + MODE_BANNER_CSS + fitting.CSS

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal, its keyboard read so that a byte that is not UTF-8 is no crash."""
        return keyboard_driver(super().get_driver_class())

    def __init__(self, on_input: InputCallback | None = None,
                 events: Iterable[ViewEvent] = (), resumed: bool = False,
                 on_hold: Callable[[bool], None] | None = None, on_quit: Callable[[], None] | None = None,
                 words: Catalogue = ENGLISH, reveal_total: bool = False, table: View | None = None,
                 mode: Mode = "live") -> None:
        super().__init__()
        self.words = words
        self.mode = mode
        """Not ``live``: the console says SIMULATION or TRAINING in large type for its whole life (D1, D2)."""
        self._localiser = Localiser(words, shown=card_params)
        word_bindings(self, words)
        self.reveal_total = reveal_total
        """``[table] reveal_confirm = "total"``: the reveal key asks the total the dealer sees first."""
        self.on_input = on_input
        self.on_hold = on_hold
        """Called with True while the console asks whether to quit mid-round (no card should be read), then False."""
        self.on_quit = on_quit
        """Called the moment the dealer quits, before the console closes (the table stops there)."""
        self.view = TableView()
        self.recalled: list[tuple[dict[str, object], str]] = []
        """The events game recall reads, as they came (:mod:`controller.core.recall`)."""
        self.sent: list[DealerInput] = []
        self._ui_thread: int | None = None
        self._lock = threading.Lock()
        for event in events:
            self._keep_for_recall(event)
            self.view.apply(self._worded(event))
        if table is not None:
            self.view.show(table)
        self.resumed_at: int | None = (self.view.round or 0) if resumed else None
        """The round the console resumed at from a journal, until the table moves on."""
        self._events_at_start = self.view.events_seen
        self._fitting = fitting.Fitting()
        self._fit_pending = False
        self._top_bar_drawn: Text | None = None

    def on_mount(self) -> None:
        self._ui_thread = threading.get_ident()
        self.push_screen(TableScreen(self.words, self.mode))

    # ------------------------------------------------------------------ events in

    def apply(self, event: ViewEvent) -> None:
        """Show one table event. Safe from any thread; before the app runs it is just recorded."""
        self.apply_batch([event])

    def apply_batch(self, events: Sequence[ViewEvent], table: View | None = None) -> None:
        """Show the events of one input together (one redraw, so no filled slot still says it is next), then the
        table's own ``table`` view when given (:meth:`TableView.show`). Safe from any thread; before the app runs
        it is just recorded."""
        worded = [self._worded(event) for event in events]
        if self._ui_thread is not None and threading.get_ident() != self._ui_thread:
            if not self.is_running:  # closed (Ctrl+C, a stop signal) while the table dealt on: kept, not drawn
                self._apply_batch(worded, table)
                return
            try:
                self.call_from_thread(self._apply_batch, worded, table)
            except RuntimeError:
                if self.is_running:
                    raise
                self._apply_batch(worded, table)  # it closed meanwhile
        else:
            self._apply_batch(worded, table)

    def _keep_for_recall(self, event: ViewEvent) -> None:
        if event["event"] in RECALL_EVENTS:
            self.recalled.append((to_builtins(event), ""))

    def recall_lines(self) -> list[str]:
        """The last :data:`RECALL_ROUNDS` rounds as the recall screen shows them, in the console's language."""
        with self._lock:
            rounds = recalled_rounds(list(self.recalled))[-RECALL_ROUNDS:]
        return recall_text(rounds, self.words)

    def _worded(self, event: ViewEvent) -> ViewEvent:
        """A copy of ``event`` with its texts in the console's language (machine fields unchanged)."""
        return cast(ViewEvent, self._localiser.event(cast(Event, event.copy())))

    def _apply_batch(self, events: Sequence[ViewEvent], table: View | None) -> None:
        changed = False
        for event in events:
            changed = self._fold(event) or changed
        if table is not None:
            with self._lock:
                self.view.show(table)
            changed = True
        if changed and self._ui_thread is not None and self.is_running:  # a closed console draws nothing
            self.refresh_view()

    def _fold(self, event: ViewEvent) -> bool:
        try:
            with self._lock:
                self._keep_for_recall(event)
                changed = self.view.apply(event)
        except (CroupierError, ValueError, TypeError, AttributeError) as error:
            # A display must never stop the table: show the problem and go on.
            self.log.warning(f"console: skipped event {event!r}: {error}")
            self.view.rejected = self.words.say("console.bad_event", "event not understood: {error}",
                                                error=str(error))
            changed = True
        if event["event"] in ("card", "round", "result", "burn"):
            self.resumed_at = None
        return changed

    # ------------------------------------------------------------------ inputs out

    def applies(self, kind: str) -> bool:
        """Does the dealer input ``kind`` (an :class:`InputKind` value) apply now? The table's own view says
        (:attr:`~controller.core.published.View.accepts`); before the table showed one, none does."""
        return bool(self.view.accepts(kind))

    def refuse_key(self, answer: str) -> None:
        """Say on the status line why a key pressed gave no input (until the table moves on or a key is taken)."""
        self.view.rejected = answer
        self.refresh_view()

    def action_help_quit(self) -> None:
        """Ctrl+C does not quit (a dealer's reflex must not stop the table): say which key does, in the table's
        language (Textual's own notice is English)."""
        self.notify(self.words.say("console.key.ctrl_c", "Ctrl+C does not quit: press Ctrl+Q to quit the console."))

    def send_input(self, dealer_input: DealerInput) -> None:
        """Hand one dealer input to ``on_input`` and note it on the status bar."""
        self.sent.append(dealer_input)
        self.view.rejected = None
        self._set_text("#sent", sent_words(dealer_input, self.words))
        if self.on_input is not None:
            self.on_input(dealer_input)

    def in_round(self) -> bool:
        """A round is being dealt (or halted on a misdeal): quitting now asks first."""
        view = self.view
        return view.misdeal is not None or (view.prompt is not None and view.result is None)

    async def action_quit(self) -> None:
        """Ctrl+Q: quit; while a round is being dealt, only once the dealer confirms."""
        if not self.in_round():
            self._quit()
            return
        if self.on_hold is not None:
            self.on_hold(True)

        def answered(yes: bool | None) -> None:
            if yes:
                self._quit()
            elif self.on_hold is not None:
                self.on_hold(False)

        words = self.words
        question = (words.say("console.ask.quit_halted_before", "The table is halted on a misdeal before its first "
                              "round. Quit the console anyway? The table stays halted until it is resolved.")
                    if self.view.misdeal is not None and self.view.round is None else
                    words.say("console.ask.quit_halted", "Round {round} is halted on a misdeal. Quit the console "
                              "anyway? The table stays halted until it is resolved.", round=str(self.view.round))
                    if self.view.misdeal is not None else
                    words.say("console.ask.quit", "Round {round} is being dealt. Quit the console anyway?",
                              round=str(self.view.round)))
        self.push_screen(ConfirmScreen(question,
                                       words.say("console.ask.quit.yes", "quit"), words), answered)

    def _quit(self) -> None:
        if self.on_quit is not None:
            self.on_quit()
        self.exit()

    # ------------------------------------------------------------------ drawing

    def _screen(self) -> TableScreen | None:
        """The table's screen once its widgets are all there (None before: it draws the view when it mounts)."""
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                return screen if screen.composed else None
        return None

    def _set_text(self, selector: str, content: str | Text) -> None:
        screen = self._screen()
        if screen is None:
            return
        screen.query_one(selector, Static).update(content)

    def next_action(self) -> tuple[str, str]:
        """The (large, detail) texts of what the dealer does next."""
        moment = next_moment(self.view, self.words)
        return moment.big, moment.detail

    def _hand(self, side: str, slots: tuple[str, ...], compact: bool = False) -> Text:
        """A hand's title, total and slots (:func:`controller.ui.hands.hand_text`) from :attr:`view`."""
        view = self.view
        prompt = view.prompt
        return hand_text(side, slots, view.slots, view.total(side), self.words,
                         due=prompt.get("slot") if prompt is not None else None, manual=view.manual_slots,
                         compact=compact)

    def _show_moment(self, box: str, big: str, text: str, moment: Moment | None) -> None:
        screen = self._screen()
        if screen is None:
            return
        screen.query_one(box, Widget).set_class(moment is not None, "open")
        screen.query_one(big, BigText).update(moment.big if moment else "", moment.style if moment else "bold")
        self._set_text(text, moment.detail if moment else "")

    def top_bar(self) -> Text:
        """Shoe, round, dealer, cards left and the reader: always in view. On a small terminal the cards burned and set
        aside too, unless the moments on screen need the row they may take (:mod:`controller.ui.fitting`)."""
        screen = self._screen()
        counts = screen is not None and screen.has_class("compact") and fitting.level_of(screen) == 0
        return top_bar(self.view, self.words, max(self.size.width - 2, 1) if self.size.width else None,  # padding
                       counts=counts)

    def refresh_view(self) -> None:
        """Redraw every widget from :attr:`view`."""
        screen = self._screen()
        if screen is None:
            return
        view = self.view
        self._draw_top_bar()
        words = self.words
        self._show_moment("#alert-box", "#alert-big", "#alert-text", alert_moment(view, words))
        news = shoe_banner(view, words)
        stopped = view.core is not None and view.core.stopped_by is not None
        if self.resumed_at is not None and (view.misdeal is not None or stopped):
            news = Moment(words.say("console.resumed.halted", "STILL HALTED AFTER THE RESTART"),
                          words.say("console.resumed.halted.detail", "The table was halted before the restart at "
                                    "round {round} and still is: resolve it as shown.", round=self.resumed_at),
                          "bold white on red")
        elif self.resumed_at is not None:
            news = Moment(words.say("console.resumed", "RESUMED AT ROUND {round}", round=self.resumed_at),
                          words.say("console.resumed.detail", "Resumed from the journal at round {round}: carry on "
                                    "as shown.", round=self.resumed_at), "bold black on yellow")
        self._show_moment("#banner-box", "#banner-big", "#banner-text", news)
        moment = next_moment(view, words)
        screen.query_one("#next-action", BigText).update(moment.big, moment.style)
        self._set_text("#next-action-text", moment.detail)
        screen.query_one("#action-box", Widget).set_class(view.misdeal is not None, "misdeal")
        screen.set_class(view.misdeal is not None, "halted")
        misdeal = screen.query_one("#misdeal", Static)
        misdeal.update("\n".join(misdeal_lines(view.misdeal, words)[1:]) if view.misdeal is not None else "")
        misdeal.set_class(view.misdeal is not None, "open")

        compact = screen.has_class("compact")
        self._set_text("#player-hand", self._hand("player", PLAYER_SLOTS, compact))
        self._set_text("#banker-hand", self._hand("banker", BANKER_SLOTS, compact))
        self._set_text("#result", result_line(view, words))

        reader = screen.query_one("#reader", Static)
        reader.update(words.say("console.reader", "Reader: {status}", status=reader_word(view.reader, words)))
        reader.set_class(view.reader == "offline", "offline")
        parts = status_parts(view, words, compact)
        self._set_text("#shoe", "  ".join(parts))
        screen.query_one("#status-bar", Widget).set_class(not parts, "empty")
        if view.rejected:
            self._set_text("#sent", Text(view.rejected, style="bold reverse yellow"))
        screen.query_one("#sent", Static).set_class(bool(view.rejected), "refused")
        screen.query_one("#roads", RoadsView).show(view.roads())
        gaming = screen.query_one("#responsible-gaming", Static)
        gaming.update(responsible_gaming_text(self.size.width - 4, words))  # its padding and the scroll bar
        screen.refresh_bindings()
        self._fitting.shown(screen, (self.size, tuple(view.alerts), news, moment, view.misdeal is not None,
                                     bool(view.rejected)))
        self._fit_later()

    def laid_out(self) -> None:
        """The table's screen has just been laid out: check the fit on that layout (:mod:`controller.ui.fitting`)."""
        self._fitting.laid_out()
        self._fit_later()

    def _fit_later(self) -> None:
        """Check the fit after the screen's next refresh (one check pending at a time)."""
        if not self._fit_pending:
            self._fit_pending = True
            self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        self._fit_pending = False
        screen = self._screen()
        if screen is None:
            return
        self._fitting.step(screen)  # a level given up is laid out again, and that layout checks the fit again
        self._draw_top_bar()  # its counts go with the first level given up

    def _draw_top_bar(self) -> None:
        """Draw :meth:`top_bar` when it changed (drawing lays the screen out again, and each layout checks the
        fit)."""
        text = self.top_bar()
        if text != self._top_bar_drawn:
            self._top_bar_drawn = text
            self._set_text("#top-bar", text)


def main(argv: list[str] | None = None) -> int:
    """Run the console on JSON-lines events from a file (or none).

    The dealer's inputs are printed to standard output as script tokens, one a
    line (Textual draws on standard error), so ``> inputs.txt`` keeps them.
    """
    args = sys.argv[1:] if argv is None else argv
    events: list[ViewEvent] = []
    if args:
        with open(args[0], encoding="utf-8") as handle:
            events = [json.loads(line) for line in handle if line.strip()]

    def show(dealer_input: DealerInput) -> None:
        out = sys.__stdout__  # Textual captures sys.stdout while it runs
        if out is not None:
            out.write(dealer_input.token() + "\n")
            out.flush()

    DealerConsole(on_input=show, events=events).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
