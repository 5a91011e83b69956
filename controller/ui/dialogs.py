"""The console's dialogs: a card typed by hand, a hand's total keyed at a reveal, the stub's count typed, and a yes/no
confirmation for anything irreversible, worded in the table's language (the keys stay y, n and Esc)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.console_words import word_bindings


def wrapped_labels(box: str) -> str:
    """CSS for the labels of the dialog box ``box`` (an id) to wrap within it, however long their text in the
    table's language."""
    return f"#{box} Label {{ width: 100%; height: auto; }}"


class ManualEntryScreen(ModalScreen[str | None]):
    """Asks for a card code typed by hand; returns the normalised code, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ManualEntryScreen { align: center middle; }
    #manual-box { width: 60; max-width: 100%; height: auto; border: thick $accent; padding: 1 2;
                  background: $surface; }
    #manual-error { color: $error; }
    """ + wrapped_labels("manual-box")

    def __init__(self, words: Catalogue = ENGLISH) -> None:
        super().__init__()
        self.words = words
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        words = self.words
        with Vertical(id="manual-box"):
            yield Label(words.say("console.manual.ask", "Manual entry: type the card (e.g. 7H, 10S, KD) and press "
                                  "Enter. Esc cancels."))
            yield Input(placeholder=words.say("console.manual.placeholder", "card code"), id="manual-code",
                        max_length=4)
            yield Label("", id="manual-error")

    def on_mount(self) -> None:
        self.query_one("#manual-code", Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        try:
            card = parse_card(message.value)
        except CardCodeError as error:
            self.query_one("#manual-error", Label).update(self.words.say(
                "console.manual.refused", "{code}: {error}; type it again", code=repr(message.value),
                error=self.words.text(error.message) if error.message is not None else str(error)))
            return
        self.dismiss(card.code)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RevealTotalScreen(ModalScreen[int | None]):
    """Asks for the total the dealer sees on the hand being revealed (``[table] reveal_confirm = "total"``);
    returns it (0-9), or None when cancelled (Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    RevealTotalScreen { align: center middle; }
    #reveal-box { width: 60; max-width: 100%; height: auto; border: thick $accent; padding: 1 2;
                  background: $surface; }
    #reveal-error { color: $error; }
    """ + wrapped_labels("reveal-box")

    def __init__(self, side: str, words: Catalogue = ENGLISH) -> None:
        super().__init__()
        self.side = side
        self.words = words
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        words = self.words
        side = (words.say("side.player", "PLAYER") if self.side == "player" else words.say("side.banker", "BANKER"))
        with Vertical(id="reveal-box"):
            yield Label(words.say("console.reveal_total", "Total you see on {side}'s hand (0-9)?", side=side),
                        id="reveal-question")
            yield Label(words.say("console.reveal_total_keys", "Type the total and press Enter. Esc cancels."))
            yield Input(placeholder="0-9", id="reveal-total", max_length=2)
            yield Label("", id="reveal-error")

    def on_mount(self) -> None:
        self.query_one("#reveal-total", Input).focus()

    def on_input_submitted(self, submitted: Input.Submitted) -> None:
        text = submitted.value.strip()
        if len(text) != 1 or text not in "0123456789":
            error = self.words.say("console.reveal_total_bad", "{typed} is not a total: type one digit from 0 to 9, "
                                   "the total the hand shows on the layout", typed=repr(submitted.value))
            self.query_one("#reveal-error", Label).update(error)
            self.query_one("#reveal-total", Input).value = ""
            return
        self.dismiss(int(text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class StubCountScreen(ModalScreen[int | None]):
    """Asks for the number of cards the dealer counts in the stub (``[procedures] count_every``); returns it, or None
    when cancelled (Esc). ``expected``: the count the table expects, shown with the question (None: not known)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    StubCountScreen { align: center middle; }
    #count-box { width: 60; max-width: 100%; height: auto; border: thick $accent; padding: 1 2;
                 background: $surface; }
    #count-error { color: $error; }
    """ + wrapped_labels("count-box")

    def __init__(self, expected: int | None, words: Catalogue = ENGLISH) -> None:
        super().__init__()
        self.expected = expected
        self.words = words
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        words = self.words
        with Vertical(id="count-box"):
            yield Label(words.say("console.count_ask", "How many cards are left in the shoe? (the table expects "
                                  "{expected})", expected="?" if self.expected is None else str(self.expected)),
                        id="count-question")
            yield Label(words.say("console.count_keys", "Type the number you count and press Enter. Esc cancels."))
            yield Input(placeholder="312", id="count-number", max_length=4)
            yield Label("", id="count-error")

    def on_mount(self) -> None:
        self.query_one("#count-number", Input).focus()

    def on_input_submitted(self, submitted: Input.Submitted) -> None:
        text = submitted.value.strip()
        if not text.isdecimal():  # not isdigit(): '²' is a digit to it, and no number to int()
            error = self.words.say("console.count_bad", "{typed} is not a count: type the number of cards left in "
                                   "the shoe, e.g. 312", typed=repr(submitted.value))
            self.query_one("#count-error", Label).update(error)
            self.query_one("#count-number", Input).value = ""
            return
        self.dismiss(int(text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """Asks the dealer a yes/no question (``y`` yes; ``n`` or Esc no) before an irreversible input."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    #confirm-box { width: 64; max-width: 100%; height: auto; border: thick $warning; padding: 1 2;
                   background: $surface; }
    #confirm-text { text-style: bold; }
    """ + wrapped_labels("confirm-box")

    def __init__(self, question: str, yes: str, words: Catalogue = ENGLISH) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.words = words
        word_bindings(self, words)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, id="confirm-text")
            yield Label(self.words.say("console.confirm.keys", "y = yes, {yes}    n / Esc = no", yes=self.yes),
                        id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
