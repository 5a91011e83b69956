"""The console's moments in large type and its readable roads, from real table events."""

from __future__ import annotations

import asyncio

import pytest

from controller.core.cards import full_deck
from controller.core.events import decode_event
from controller.core.inputs import Input, InputKind
from controller.core.misdeals import POLICIES
from controller.core.table import Table
from controller.ui.bigtext import big_width, render_big
from controller.ui.console import BigText, DealerConsole, TableScreen
from controller.ui.dealer_words import RESOLUTION_WORDS, WHAT_HAPPENED
from controller.ui.moments import next_moment, score_text, shoe_banner
from controller.ui.roadsview import pair_mark
from controller.ui.tableview import TableView
from tests.consoles import console_dealt, show_more
from tests.controller.ui.test_console import rendered
from tests.pilot_wait import press, settle
from tests.tokens import NO_BURN, dealt, feed, one_by_one, table_of


def view_of(tokens: str, table: Table | None = None) -> TableView:
    """The console's model after ``table``'s events from its start and ``tokens`` (:func:`tests.tokens.dealt`) and
    the table's own view, as ``croupier run`` shows them."""
    table = table if table is not None else table_of(shoe=NO_BURN)
    view = TableView()
    for event in dealt(tokens, table):
        view.apply(event)
    view.show(table.view)
    return view


def test_every_misdeal_kind_and_resolution_has_dealer_words() -> None:
    assert set(WHAT_HAPPENED) == set(POLICIES)
    assert {r for policy in POLICIES.values() for r in policy.resolutions} <= set(RESOLUTION_WORDS)


def test_the_result_is_the_score_in_the_winners_colour() -> None:
    moment = next_moment(view_of("3S KD 5H 9C"))  # player 3+5 = 8, banker 0+9 = 9
    assert moment.big == "BANKER 9 : 8"
    assert moment.style == "bold red"
    player = next_moment(view_of("9S KD 9H 2C"))
    assert (player.big, player.style) == ("PLAYER 8 : 2", "bold dodger_blue1")
    assert score_text({"winner": "tie", "player": {"total": 6}, "banker": {"total": 6}}) == "TIE 6 : 6"


def test_a_third_card_is_called_with_its_rule() -> None:
    player = next_moment(view_of("3S 9C AH 4D"))  # player 4, banker 3: player draws
    assert player.big == "THIRD CARD TO PLAYER"
    assert player.detail == "Third card to PLAYER: player draws on 4"
    banker = next_moment(view_of("3S 9C AH 4D 4C"))  # banker 3 against a 4: draws
    assert banker.big == "THIRD CARD TO BANKER"
    assert banker.detail == "Third card to BANKER: banker draws on 3 against the player's third card 4"
    stood = next_moment(view_of("3S 2C 4H 2D"))  # player 7 stands, banker 4 draws
    assert stood.detail == "Third card to BANKER: banker draws on 4: the player stood"


def test_cut_card_out_then_last_round_then_the_shoe_closed_with_the_report() -> None:
    banner = shoe_banner(view_of("3S KD 5H 9C @cut"))
    assert banner is not None and banner.big == "CUT CARD OUT"
    assert banner.detail == "Cut card out: round 3 is the last of this shoe."  # finish round 2, one more
    last = shoe_banner(view_of("3S KD 5H 9C @cut @next 9S 8H KD 2C @next 9D"))
    assert last is not None and last.big == "LAST ROUND"
    view = view_of("3S KD 5H 9C @cut @next 9S 8H KD 2C @next 9D KH 9C 2H")
    closed = shoe_banner(view)
    assert closed is not None and closed.big == "SHOE CLOSED"
    assert closed.detail.startswith("Shoe 1 closed after 3 rounds: banker 1, player 2, tie 0;")
    result = next_moment(view)
    assert result.big == "PLAYER 8 : 2", "the last hand's winner stays in large type"
    assert "load a new shoe" in result.detail


def test_pair_marks_say_which_side() -> None:
    assert [pair_mark(True, False), pair_mark(False, True), pair_mark(True, True), pair_mark(False, False)] == [
        "b", "p", "2", ""]


def test_big_type_grows_on_a_large_terminal() -> None:
    assert len(render_big("I", 3)) == 10 and render_big("I", 3)[0] == "█" * 9
    assert big_width("BANKER 7 : 5", 3) <= 220

    async def height(size: tuple[int, int]) -> int:
        app = console_dealt("3S KD 5H 9C")
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return app.screen.query_one("#next-action", BigText).outer_size.height

    assert asyncio.run(height((220, 60))) > asyncio.run(height((120, 30)))


UNSHUFFLED = " ".join(card.code for card in list(reversed(full_deck()))[:12])
"""Same-suit neighbours K Q J ...: the unshuffled-shoe alert alone (the factory order would also repeat)."""


def test_an_open_alert_is_on_screen_until_a_sends_its_ack() -> None:
    inputs: list[Input] = []
    table = table_of(shoe=NO_BURN)

    async def main() -> None:
        app = console_dealt(UNSHUFFLED, table, on_input=inputs.append)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.screen.query_one("#alert-box").display is True
            assert rendered(app, "#alert-big").splitlines()[0] == render_big("ALERT A1", 2)[0].strip()
            assert "CRITICAL unshuffled shoe" in rendered(app, "#alert-text")
            assert "1 ALERT OPEN" in rendered(app, "#top-bar")
            await press(pilot, "a")
            await settle(pilot)
            assert inputs == [], "a critical alert is released only once the dealer confirms"
            assert "Release critical alert A1 (unshuffled shoe)?" in rendered(app, "#confirm-text")
            await press(pilot, "y")
            await settle(pilot)
            assert inputs == [Input(InputKind.ACK, "A1")]
            assert app.screen.query_one("#alert-box").display is True, "open until the table says acknowledged"
            show_more(app, table, "@ack A1")
            await settle(pilot)
            assert app.screen.query_one("#alert-box").display is False
            assert "ALERT" not in rendered(app, "#top-bar")

    asyncio.run(main())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_shoe_and_dealer_always_in_view(size: tuple[int, int]) -> None:
    async def main() -> None:
        app = console_dealt("3S KD 5H 9C @next 9S 8H KD 2C")
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            top = rendered(app, "#top-bar")
            assert top.startswith("SHOE 1  ROUND 2  DEALER –")
            assert app.screen.query_one("#top-bar").region.y == 0

    asyncio.run(main())


def test_resumed_from_a_journal_says_at_which_round() -> None:
    async def main() -> None:
        app = console_dealt("3S KD 5H 9C @next 9S 8H KD 2C @next", resumed=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert "Resumed from the journal at round 3" in rendered(app, "#banner-text")
            app.apply(decode_event({"event": "card", "round": 3, "slot": "P1", "card": "4S"}))
            await settle(pilot)
            assert app.screen.query_one("#banner-box").display is False

    asyncio.run(main())


@pytest.mark.parametrize("tokens", [
    "3S KD 5H 9C 7H @burn",                 # an extra card between rounds, burned
    "3S KD @double @void",                  # two cards together
    "3S KD 5H @exposed @burn 6H 9C",        # an exposed card burned
    "3S KD 5H @exposed @use 9C",            # an exposed card taken back, then used
    "3S ?? @manual 4D 5H 9C",               # an unreadable card entered by hand
    "3S ZZ @burn KD 5H 9C",                 # an unknown code burned
])
def test_counters_are_right_after_every_kind_of_misdeal(tokens: str) -> None:
    table = table_of(shoe=NO_BURN)
    view = view_of("", table)
    for item, view_events in one_by_one(table, tokens):
        for event in view_events:
            view.apply(event)
        view.show(table.view)
        assert view.shoe.cards_left == table.cards_left, f"after {item.token()}"
    assert (view.shoe.burned, view.shoe.set_aside) == (len(table.burned), len(table.discarded))


def test_an_exposed_card_leaves_its_slot_and_the_total_while_taken_back() -> None:
    view = view_of("3S KD 5H @exposed")
    assert "P2" not in view.slots and view.total("player") == 3
    view = view_of("3S KD 5H @exposed @burn")
    assert (view.shoe.burned, view.shoe.set_aside) == (0, 1), "the burned exposed card is set aside, not burned"
    view = view_of("3S KD 5H @exposed @use")
    assert view.slots["P2"] == "5H" and view.total("player") == 8


@pytest.mark.parametrize(("tokens", "colour"), [("9S 8H KD 2C", "#0087ff"), ("3S KD 5H 9C", "#f4005f")])
def test_the_big_result_is_drawn_in_the_winners_colour(tokens: str, colour: str) -> None:
    from textual.geometry import Region

    async def main() -> str:
        app = console_dealt(tokens)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            widget = app.screen.query_one("#next-action", BigText)
            first = widget.render_lines(Region(0, 0, widget.size.width, 1))[0]
            ink = next(segment for segment in first if "█" in segment.text)
            assert ink.style is not None and ink.style.color is not None
            return str(ink.style.color.name)

    assert asyncio.run(main()) == colour  # the theme's blue and red, as the hands' titles


PAIRS_AND_DERIVED = " @next ".join(["3S KD 5H 9C", "9S 8H KD 2C", "4D 5D 4C 5C", "7H 7D KH JD", "4S 3H 4H 3D"] * 4)


def test_at_80x24_the_derived_roads_and_the_footer_are_on_screen() -> None:
    async def main() -> None:
        app = console_dealt(PAIRS_AND_DERIVED)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            roads = app.screen.query_one("#roads")
            assert roads.region.bottom <= 23, f"the roads end at row {roads.region.bottom}, below the footer"
            footer = app.screen.query_one("Footer")
            assert footer.region.y == 23 and footer.region.height == 1
            text = rendered(app, "#roads")
            assert "Cockroach pig" in text and "Naturals" in text
            assert "○" in text and "●" in text, "red and blue are told apart by shape"
            assert "P2" in text, "a bead with both pairs says so"
            assert "B*" not in text and "P*" not in text

    asyncio.run(main())


def test_keys_that_cannot_apply_mid_shoe_do_nothing() -> None:
    inputs: list[Input] = []

    async def main() -> None:
        app = DealerConsole(on_input=inputs.append, events=dealt("3S KD 5H 9C @next 9S"))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "s", "c", "n", "v", "m", "b", "u", "a")
            await settle(pilot)
            assert inputs == []
            assert isinstance(app.screen, TableScreen), "s mid-shoe asks nothing (it would be refused)"

    asyncio.run(main())


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
def test_a_voided_round_and_a_misdeal_name_themselves_at_every_size(size: tuple[int, int]) -> None:
    """At 80x24 nothing once said the round was voided (the large type went straight to NEXT ROUND), and a misdeal
    showed only its keys."""
    async def main() -> None:
        table = table_of(shoe=NO_BURN)
        app = console_dealt("3S KD @double", table)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert rendered(app, "#next-action-text").startswith("MISDEAL: ")
            app.apply_batch(feed(table, "@void"), table.view)
            await settle(pilot)
            big = app.screen.query_one("#next-action", BigText)
            assert big.text == "VOID: RETURN ALL BETS" and big.region.height >= 3
            assert big.region.bottom <= size[1]
            assert "Round 1 voided: bets returned" in rendered(app, "#next-action-text")

    asyncio.run(main())


def test_the_events_of_one_card_are_drawn_at_once() -> None:
    """A card's events (the card, then the next prompt) come as one batch and are drawn once: the slot just filled
    never still carries "next" while the large type points at it."""
    drawn: list[tuple[str, str]] = []

    class Watched(DealerConsole):
        def refresh_view(self) -> None:
            super().refresh_view()
            drawn.append((str(self.view.prompt.get("slot")) if self.view.prompt else "", ",".join(self.view.slots)))

    async def main() -> None:
        table = table_of(shoe=NO_BURN)
        app = Watched(events=dealt("3S", table))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            drawn.clear()
            app.apply_batch(feed(table, "KD"), table.view)
            await settle(pilot)
            assert drawn and all(shown == ("P2", "P1,B1") for shown in drawn), drawn

    asyncio.run(main())


def test_a_stopped_table_offers_only_the_keys_the_table_takes() -> None:
    """Stopped on a critical alert, the console once offered the misdeal keys b, v and m: the table refuses them."""
    async def main() -> None:
        table = table_of(shoe=NO_BURN, table={"decks": 1}, protection={"sequence_check": True})
        order = " ".join(card.code for card in full_deck())
        app = console_dealt(order[:3 * 8], table)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert table.view.stopped_by is not None
            offered = {kind for kind in ("burn", "void", "manual", "next", "exposed", "ack", "close")
                       if app.applies(kind)}
            assert offered == {kind for kind in ("burn", "void", "manual", "next", "exposed", "ack", "close")
                               if kind in table.view.accepts}
            assert "ack" in offered and not offered & {"burn", "void", "manual", "next", "exposed"}

    asyncio.run(main())


def test_a_halt_restored_after_a_restart_says_so() -> None:
    """E3: resumed while halted, the console says the halt is from before the restart, not just where it resumed."""
    async def main() -> None:
        table = table_of(shoe=NO_BURN)
        app = console_dealt("3S KD 5H ZZ", table, resumed=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.screen.query_one("#banner-big", BigText).text == "STILL HALTED AFTER THE RESTART"
            assert "halted before the restart at round 1 and still is" in rendered(app, "#banner-text")

    asyncio.run(main())


@pytest.mark.parametrize(("tokens", "decks", "burn"), [
    ("@shoe AS AS @burn", 1, "first_card"),  # a foreign card during the burn, burned: the burn resumes
    ("@shoe AS AH 5S 5H AS", 1, "none"),  # a card read between rounds
    ("@shoe 3S KD 5H 9C 7H", 8, "none"),  # an extra card between rounds
])
def test_the_round_shown_is_the_tables_after_a_misdeal_between_rounds(tokens: str, decks: int, burn: str) -> None:
    table = table_of(table={"decks": decks}, shoe={"burn": burn})
    view = TableView()
    for event in dealt(tokens, table, confirm=False):
        view.apply(event)
    view.show(table.view)
    assert view.round == (table.view.round or None)
    assert view.scoreboard_state()["shoe"]["round"] == view.round


def test_quitting_while_halted_before_the_first_round_names_no_round() -> None:
    async def main() -> str:
        table = table_of(table={"decks": 1}, shoe={"burn": "first_card"})
        app = console_dealt("@shoe AS AS", table, confirm=False)
        assert table.misdeal is not None and table.view.round == 0
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "ctrl+q")
            await settle(pilot)
            return rendered(app, "#confirm-text")

    question = asyncio.run(main())
    assert question.startswith("The table is halted on a misdeal before its first round."), question
    assert "None" not in question


def test_a_card_out_while_halted_leaves_the_halt_the_table_is_on_in_large_type() -> None:
    """A second copy of AH in a one-deck shoe is a foreign card; the next card read while halted is an extra card of
    its own, but the table stays halted on the foreign card (and the pit's tile says so): the console said only
    'A card came out that was not due.' and the foreign card was gone from the dealer's screen."""
    table = table_of(shoe=NO_BURN, table={"decks": 1})
    view = view_of("AH 2S AH", table)
    assert table.view.misdeal is not None and table.view.misdeal.kind == "foreign_card"
    for _, events in one_by_one(table, "KC"):
        for event in events:
            view.apply(event)
        view.show(table.view)
    assert [event["kind"] for event in events if event["event"] == "misdeal"] == ["extra_card"]
    moment = next_moment(view)
    assert WHAT_HAPPENED["foreign_card"].text in moment.detail, moment.detail
    assert "AH" in str(view.misdeal and view.misdeal.get("card"))


def test_the_result_stays_after_a_card_out_between_rounds_is_burned() -> None:
    """A card read between rounds halts the table (a misdeal of the next round's, not yet dealt); once it is burned
    the table shows the last round's result again, and so does the console (its result had gone: 'Round 1' with no
    score)."""
    table = table_of(shoe=NO_BURN, table={"decks": 1})
    view = view_of("6S AS 2S AH", table)
    assert table.view.result is not None and table.view.result.round == 1
    for _, events in one_by_one(table, "AS @burn"):
        for event in events:
            view.apply(event)
        view.show(table.view)
    assert table.view.result is not None and table.view.result.round == 1
    assert view.result is not None and view.result.get("round") == 1
    assert score_text(view.result) == "PLAYER 8 : 2"
