"""The dealer console: a Textual app for the dealer's screen.

It shows the next action in large type, each slot's card and the totals, the
result, a misdeal banner with its instruction, the reader's status, the shoe
counters and the roads, and turns the dealer's keys into inputs for the core:

====  ==========================================  ======================
key   what                                        input
====  ==========================================  ======================
n     next round                                  ``@next``
b     burn the offending card(s) and continue     ``@burn``
v     void the round (bets returned)              ``@void``
e     the last card read was exposed in error     ``@exposed``
u     use the exposed card where it was dealt     ``@use``
m     enter a card by hand (asks for the code)    ``@manual XX``
s     new shoe loaded (asks to confirm)           ``@shoe``
====  ==========================================  ======================

Feed it table events with :meth:`DealerConsole.apply` (from any thread); it
calls ``on_input(Input)`` for each dealer input. ``python -m controller.ui.console
EVENTS.jsonl`` shows a recorded event stream and prints the dealer's inputs to
standard output.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import ClassVar, Final

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Label, Static

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError, CroupierError
from controller.core.inputs import Input as DealerInput
from controller.core.inputs import InputKind
from controller.ui.bigtext import big_width, can_render, render_big
from controller.ui.keyboard import KEYS, MANUAL_WORDS
from controller.ui.roads import (
    DERIVED_ROADS,
    RED,
    RESPONSIBLE_GAMING_LINE,
    RESPONSIBLE_GAMING_LINE_KO,
    ROWS,
    Roads,
    layout_derived,
)
from controller.ui.tableview import BANKER_SLOTS, PLAYER_SLOTS, WINNER_NAMES, TableView, ViewEvent

InputCallback = Callable[[DealerInput], None]

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RESOLUTION_KEYS: Final = {
    **{kind.value: key for key, kind in KEYS.items() if len(key) == 1},
    **{"manual": MANUAL_WORDS[0]},
}
"""The key for each dealer input, as the typed commands have it (controller.ui.keyboard)."""
ACTION_LABELS: Final = {"next_round": "NEXT ROUND: n", "confirm_shoe": "NEW SHOE: s",
                        "approval": "SUPERVISOR", "sign_in": "SIGN IN",
                        "new_shoe": "SHOE CLOSED", "resolve": "MISDEAL"}
"""Large-type labels of the core's instruction actions (the full sentence is shown below them)."""
WINNER_STYLES: Final = {"B": "bold red", "P": "bold dodger_blue1", "T": "bold green"}


def card_text(code: str | None) -> Text:
    """A card as the dealer reads it: ``10♥`` in red, ``A♠`` in white; ``··`` for an empty slot."""
    if code is None:
        return Text("··", style="dim")
    try:
        card = parse_card(code)
    except CardCodeError:
        return Text(code, style="bold yellow")
    rank = "10" if card.rank == "T" else card.rank
    style = "bold red" if card.suit in "HD" else "bold"
    return Text(rank + SUIT_SYMBOLS[card.suit], style=style)


class BigText(Widget):
    """Text in large block letters, as large as the width allows (plain bold if it cannot fit)."""

    DEFAULT_CSS = "BigText { height: auto; width: 100%; }"

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = text

    @property
    def text(self) -> str:
        return self._text

    def update(self, text: str) -> None:
        """Show ``text``."""
        if text != self._text:
            self._text = text
            self.refresh(layout=True)

    def render(self) -> Text:
        width = self.size.width or 80
        if can_render(self._text):
            for scale in (2, 1):
                if big_width(self._text, scale) <= width:
                    return Text("\n".join(render_big(self._text, scale)), style="bold")
        return Text(self._text.upper(), style="bold")


class RoadsView(Widget):
    """The roads, compact: bead plate and big road, then the three derived roads; latest columns."""

    DEFAULT_CSS = "RoadsView { height: auto; width: 100%; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.roads: Roads | None = None

    def show(self, roads: Roads) -> None:
        self.roads = roads
        self.refresh(layout=True)

    @staticmethod
    def _block(cells: Mapping[tuple[int, int], Text], columns: int, cell_width: int) -> list[Text]:
        last = max((col for col, _ in cells), default=-1)
        first = max(0, last - columns + 1)
        rows = []
        for row in range(ROWS):
            line = Text()
            for col in range(first, first + columns):
                cell = cells.get((col, row))
                if cell is None:
                    line.append("·".ljust(cell_width), style="dim")
                else:
                    line.append_text(cell)
                    line.append(" " * max(0, cell_width - cell.cell_len))
            rows.append(line)
        return rows

    @staticmethod
    def _join(title_blocks: list[tuple[str, list[Text], int]]) -> list[Text]:
        header = Text()
        for index, (title, _, width) in enumerate(title_blocks):
            if index:
                header.append(" │ ")
            header.append(title[:width].ljust(width), style="bold underline")
        lines = [header]
        for row in range(ROWS):
            line = Text()
            for index, (_, block, _width) in enumerate(title_blocks):
                if index:
                    line.append(" │ ", style="dim")
                line.append_text(block[row])
            lines.append(line)
        return lines

    def render(self) -> Text:
        roads = self.roads
        if roads is None:
            return Text("No results yet.", style="dim")
        width = max(40, self.size.width or 100)
        bead_cols = max(4, (width - 3) // 3 // 2)
        big_cols = max(6, (width - 3 - bead_cols * 2) // 3)
        beads = {(bead.col, bead.row): Text(bead.winner + ("*" if bead.banker_pair or bead.player_pair
                                                           else ""), style=WINNER_STYLES[bead.winner])
                 for bead in roads.bead_plate}
        big: dict[tuple[int, int], Text] = {}
        for entry in roads.big_road:
            cell = Text(entry.winner, style=WINNER_STYLES[entry.winner])
            if entry.ties:
                cell.append(str(min(entry.ties, 9)), style="bold green")
            big[(entry.display_col, entry.display_row)] = cell
        band_one = self._join([
            ("Bead plate", self._block(beads, bead_cols, 2), bead_cols * 2),
            ("Big road", self._block(big, big_cols, 3), big_cols * 3),
        ])
        derived_cols = max(4, (width - 6) // 3 // 2)
        derived_blocks = []
        for name, _k in DERIVED_ROADS:
            colours = roads.derived(name)
            cells = {position: Text("●", style="red" if colour == RED else "dodger_blue1")
                     for colour, position in zip(colours, layout_derived(colours), strict=True)}
            derived_blocks.append((name.replace("_", " ").capitalize(),
                                   self._block(cells, derived_cols, 2), derived_cols * 2))
        band_two = self._join(derived_blocks)
        counts = roads.counts
        summary = Text(f"Banker {counts.banker}  Player {counts.player}  Tie {counts.tie}  "
                       f"Banker pairs {counts.banker_pair}  Player pairs {counts.player_pair}  "
                       f"Naturals {counts.natural}")
        return Text("\n").join([*band_one, Text(""), *band_two, summary])


class ManualEntryScreen(ModalScreen[str | None]):
    """Asks for a card code typed by hand; returns the normalised code, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ManualEntryScreen { align: center middle; }
    #manual-box { width: 60; height: auto; border: thick $accent; padding: 1 2; background: $surface; }
    #manual-error { color: $error; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="manual-box"):
            yield Label("Manual entry: type the card (e.g. 7H, 10S, KD) and press Enter. Esc cancels.")
            yield Input(placeholder="card code", id="manual-code", max_length=4)
            yield Label("", id="manual-error")

    def on_mount(self) -> None:
        self.query_one("#manual-code", Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        try:
            card = parse_card(message.value)
        except CardCodeError as error:
            self.query_one("#manual-error", Label).update(str(error))
            return
        self.dismiss(card.code)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmNewShoeScreen(ModalScreen[bool]):
    """Asks the dealer to confirm the new shoe is shuffled, cut and loaded."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes, new shoe"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    DEFAULT_CSS = """
    ConfirmNewShoeScreen { align: center middle; }
    #confirm-box { width: 60; height: auto; border: thick $warning; padding: 1 2; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label("New shoe: is it shuffled, cut and loaded?\n"
                        "y = yes, start the new shoe    n / Esc = no", id="confirm-text")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TableScreen(Screen[None]):
    """The console's main screen; its key bindings are the dealer's inputs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "dealer('next')", "Next round"),
        Binding("b", "dealer('burn')", "Burn"),
        Binding("v", "dealer('void')", "Void"),
        Binding("e", "dealer('exposed')", "Exposed"),
        Binding("u", "dealer('use')", "Use"),
        Binding("m", "manual", "Manual entry"),
        Binding("s", "new_shoe", "New shoe"),
        Binding("c", "dealer('close')", "Close shoe"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="main"):
            with Vertical(id="action-box"):
                yield BigText("WAITING", id="next-action")
                yield Static("Waiting for the table.", id="next-action-text")
            yield Static("", id="misdeal")
            with Horizontal(id="hands"):
                yield Static("", id="player-hand", classes="hand")
                yield Static("", id="banker-hand", classes="hand")
            yield Static("", id="result")
            with Horizontal(id="status-bar"):
                yield Static("", id="reader")
                yield Static("", id="shoe")
            yield Static("", id="sent")
            yield RoadsView(id="roads")
            yield Static(f"{RESPONSIBLE_GAMING_LINE}  ·  {RESPONSIBLE_GAMING_LINE_KO}",
                         id="responsible-gaming")
        yield Footer()

    def on_mount(self) -> None:
        app = self.app
        if isinstance(app, DealerConsole):
            app.refresh_view()

    def action_dealer(self, kind: str) -> None:
        app = self.app
        if isinstance(app, DealerConsole):
            app.send_input(DealerInput(InputKind(kind)))

    def action_manual(self) -> None:
        def entered(code: str | None) -> None:
            app = self.app
            if code is not None and isinstance(app, DealerConsole):
                app.send_input(DealerInput(InputKind.MANUAL, code))

        self.app.push_screen(ManualEntryScreen(), entered)

    def action_new_shoe(self) -> None:
        def answered(yes: bool | None) -> None:
            app = self.app
            if yes and isinstance(app, DealerConsole):
                app.send_input(DealerInput(InputKind.SHOE))

        self.app.push_screen(ConfirmNewShoeScreen(), answered)


class DealerConsole(App[None]):
    """The dealer console.

    ``on_input`` is called (on the console's thread) with each
    :class:`controller.core.inputs.Input` the dealer gives. Feed table events with
    :meth:`apply`; ``view`` is the :class:`TableView` they build.
    """

    TITLE = "Croupier: dealer console"
    CSS = """
    #action-box { height: auto; border: heavy $accent; padding: 0 1; }
    #next-action { color: $text; }
    #next-action-text { text-style: bold; }
    #misdeal { display: none; height: auto; background: $error; color: $text; padding: 0 1;
               text-style: bold; margin: 1 0 0 0; }
    #misdeal.open { display: block; }
    #hands { height: auto; margin: 1 0 0 0; }
    .hand { width: 1fr; height: auto; border: round $primary; padding: 0 1; }
    #result { height: auto; text-style: bold; padding: 0 1; }
    #status-bar { height: auto; }
    #reader { width: auto; padding: 0 1; }
    #reader.offline { background: $error; text-style: bold; }
    #shoe { width: 1fr; padding: 0 1; }
    #sent { height: auto; padding: 0 1; color: $text-muted; }
    #roads { border: round $primary; padding: 0 1; }
    #responsible-gaming { text-align: center; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, on_input: InputCallback | None = None,
                 events: Iterable[ViewEvent] = ()) -> None:
        super().__init__()
        self.on_input = on_input
        self.view = TableView()
        self.sent: list[DealerInput] = []
        self._ui_thread: int | None = None
        self._lock = threading.Lock()
        for event in events:
            self.view.apply(event)

    def on_mount(self) -> None:
        self._ui_thread = threading.get_ident()
        self.push_screen(TableScreen())

    # ------------------------------------------------------------------ events in

    def apply(self, event: ViewEvent) -> None:
        """Show one table event. Safe from any thread; before the app runs it is just recorded."""
        if self._ui_thread is not None and threading.get_ident() != self._ui_thread:
            self.call_from_thread(self._apply, event.copy())
        else:
            self._apply(event.copy())

    def _apply(self, event: ViewEvent) -> None:
        try:
            with self._lock:
                changed = self.view.apply(event)
        except (CroupierError, ValueError, TypeError, AttributeError) as error:
            # A display must never stop the table: show the problem and go on.
            self.log.warning(f"console: skipped event {event!r}: {error}")
            self.view.rejected = f"event not understood: {error}"
            changed = True
        if changed and self._ui_thread is not None:
            self.refresh_view()

    # ------------------------------------------------------------------ inputs out

    def send_input(self, dealer_input: DealerInput) -> None:
        """Hand one dealer input to ``on_input`` and note it on the status bar."""
        self.sent.append(dealer_input)
        self.view.rejected = None
        self._set_text("#sent", f"sent {dealer_input.token()}")
        if self.on_input is not None:
            self.on_input(dealer_input)

    # ------------------------------------------------------------------ drawing

    def _screen(self) -> TableScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                return screen
        return None

    def _set_text(self, selector: str, content: str | Text) -> None:
        screen = self._screen()
        if screen is None:
            return
        screen.query_one(selector, Static).update(content)

    def next_action(self) -> tuple[str, str]:
        """The (large, detail) texts of what the dealer does next."""
        view = self.view
        if view.approval is not None and view.instruction:
            return "SUPERVISOR", view.instruction
        if view.misdeal is not None:
            instruction = str(view.misdeal.get("instruction") or "Stop: misdeal")
            return "MISDEAL", instruction
        if view.shoe.closed and view.instruction is None:
            return "SHOE CLOSED", "Shoe closed: load a new shoe, then press s."
        if view.result is not None and view.instruction_action in (None, "next_round"):
            winner = WINNER_NAMES.get(str(view.result.get("winner", "")).upper()[:1], "")
            big = f"{winner} WINS" if winner in ("BANKER", "PLAYER") else winner
            return big, f"{view.result_text()}. Press n for the next round."
        if view.instruction:
            label = ACTION_LABELS.get(view.instruction_action or "")
            return label or view.instruction, view.instruction
        if view.voided is not None:
            return "VOID", f"Round {view.voided} voided: bets returned. Press n for the next round."
        return "WAITING", "Waiting for the table."

    def _hand(self, side: str, slots: tuple[str, ...]) -> Text:
        view = self.view
        total = view.total(side)
        title = Text(f"{side.upper()}", style=WINNER_STYLES["P" if side == "player" else "B"])
        title.append(f"   total {total if total is not None else '–'}", style="bold")
        line = Text()
        for slot in slots:
            line.append(f"{slot} ", style="dim")
            line.append_text(card_text(view.slots.get(slot)))
            line.append("   ")
        prompt = view.prompt
        if prompt is not None and prompt.get("slot") in slots:
            line.append(f"← next: {prompt.get('slot')}", style="reverse bold")
        return Text("\n").join([title, line])

    def refresh_view(self) -> None:
        """Redraw every widget from :attr:`view`."""
        screen = self._screen()
        if screen is None:
            return
        view = self.view
        big, detail = self.next_action()
        screen.query_one("#next-action", BigText).update(big)
        self._set_text("#next-action-text", detail)

        misdeal = screen.query_one("#misdeal", Static)
        if view.misdeal is not None:
            event = view.misdeal
            keys = ", ".join(f"{name} ({RESOLUTION_KEYS.get(str(name), '?')})"
                             for name in event.get("resolutions") or [])
            lines = [f"MISDEAL: {event.get('kind', 'misdeal')}"
                     + (f" — card {event['card']}" if event.get("card") else "")]
            if event.get("detail"):
                lines.append(str(event["detail"]))
            lines.append(f"Do: {event.get('instruction') or 'call the supervisor'}")
            if keys:
                lines.append(f"Resolve with: {keys}")
            misdeal.update("\n".join(lines))
            misdeal.add_class("open")
        else:
            misdeal.update("")
            misdeal.remove_class("open")

        self._set_text("#player-hand", self._hand("player", PLAYER_SLOTS))
        self._set_text("#banker-hand", self._hand("banker", BANKER_SLOTS))
        result = view.result_text()
        round_text = f"Round {view.round}" if view.round is not None else "No round yet"
        if result is not None:
            winner = str(view.result.get("winner", "")).upper()[:1] if view.result else ""
            line = Text(f"{round_text}: ")
            line.append(result, style=WINNER_STYLES.get(winner, "bold"))
            flags = [name for name, key in (("banker pair", "banker_pair"), ("player pair", "player_pair"))
                     if view.result and view.result.get(key)]
            if flags:
                line.append("  (" + ", ".join(flags) + ")")
            self._set_text("#result", line)
        elif view.voided is not None:
            self._set_text("#result", f"Round {view.voided}: VOID — bets returned")
        else:
            self._set_text("#result", round_text)

        reader = screen.query_one("#reader", Static)
        reader.update(f"Reader: {view.reader.upper()}")
        reader.set_class(view.reader == "offline", "offline")
        self._set_text("#shoe", "  ".join(status_parts(view)))
        if view.rejected:
            self._set_text("#sent", Text(view.rejected, style="bold reverse yellow"))
        screen.query_one("#roads", RoadsView).show(view.roads())


def status_parts(view: TableView) -> list[str]:
    """The status line: dealer, shoe counters, round, cut card, approvals and, with badges, the supervisor's
    advantage alerts."""
    shoe = view.shoe
    parts = [f"Cards left: {shoe.cards_left if shoe.cards_left is not None else '–'}",
             f"Round: {view.round if view.round is not None else '–'}",
             f"Cut card: {'OUT' if shoe.cut_card_out else 'not yet'}",
             f"Burned: {shoe.burned}"]
    if shoe.closed:
        parts.append("SHOE CLOSED")
    if view.dealer is not None:
        parts.insert(0, f"Dealer: {view.dealer}")
    if view.approval is not None:
        parts.append(f"Awaiting supervisor: {view.approval}")
    if view.advantage:
        parts.append(f"Supervisor, player advantage: {', '.join(view.advantage)}")
    return parts


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
