"""The dealer console's words at the moments a tester found wrong (issue 28 item 6): the reader-offline line, the
status line's record of the last key, cards as J♥ everywhere, the approval prompt, the quit dialog while halted
and Ctrl+Q in the footer."""

from __future__ import annotations

from typing import Any

import pytest

from controller.core.events import decode_event
from controller.core.inputs import Input
from controller.i18n.catalogue import Catalogue
from controller.ui.console import DealerConsole
from tests.consoles import shown
from tests.controller.ui.test_console import HALTED_ON_EXPOSED, rendered, run
from tests.pilot_wait import press, settle, shown_footer
from tests.typed_events import untyped_event

READER_OFFLINE = untyped_event({"event": "misdeal", "round": 2, "kind": "reader_offline", "card": None,
                                "detail": "the card reader went offline", "instruction": "",
                                "resolutions": ["online", "void"], "supervisor": []})


def test_the_reader_offline_lines_are_sentences_the_dealer_can_follow() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(decode_event({"event": "prompt", "round": 2, "slot": "B1", "to": "banker", "say": "Card to BANKER"}))
        app.apply(READER_OFFLINE)
        await pilot.pause()
        lines = rendered(app, "#misdeal").splitlines()
        assert lines[0] == "Reconnect the card reader: the table carries on by itself once it is back.", lines
        assert lines[1].startswith("To void the round") and lines[1].endswith("press V."), lines
        assert not any(line.endswith(": Reconnect.") for line in lines), lines

    run(scenario)


def test_the_status_line_names_the_last_key_in_the_dealers_words_not_a_script_token() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await settle(pilot)
        await press(pilot, "b")
        await settle(pilot)
        assert inputs and rendered(app, "#sent") == "Sent: Burn"

    run(scenario, shown("3S 4D @exposed"))


def test_a_misdeal_names_its_card_as_the_slots_do() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(untyped_event({"event": "misdeal", "round": 3, "kind": "extra_card", "card": "JH",
                                 "detail": "JH was not due", "instruction": "", "resolutions": ["burn", "void"],
                                 "supervisor": []}))
        await pilot.pause()
        detail = rendered(app, "#next-action-text")
        assert "J♥" in detail and "JH" not in detail, detail

    run(scenario)


def test_the_approval_prompt_shows_the_card_as_the_slots_do() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(untyped_event({"event": "approval_required", "round": 1, "action": "manual", "input": "@manual QH",
                                 "say": "@manual QH needs a supervisor: present a supervisor badge"}))
        app.apply(decode_event({"event": "instruction", "round": 1, "action": "approval",
                                "say": "Supervisor: present your badge to approve QH, entered by hand, for P1",
                                "say_id": "approval.present.manual", "say_params": {"card": "QH", "slot": "P1"}}))
        await pilot.pause()
        detail = rendered(app, "#next-action-text")
        assert detail == "Supervisor: present your badge to approve Q♥, entered by hand, for P1", detail
        assert "manual" not in rendered(app, "#shoe"), rendered(app, "#shoe")

    run(scenario)


def test_quitting_while_halted_does_not_say_the_round_is_being_dealt() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(decode_event({"event": "card", "round": 1, "slot": "B1", "card": "4D"}))
        app.apply(HALTED_ON_EXPOSED)
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        question = rendered(app, "#confirm-text")
        assert "being dealt" not in question and "halted" in question, question

    run(scenario)


@pytest.mark.parametrize("language", ["en", "es", "ko"])
def test_the_footer_shows_how_to_quit(language: str) -> None:
    words = Catalogue(language)

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        footer = await shown_footer(pilot, app)
        assert words.say("console.key.quit", "Quit") in footer, footer

    import asyncio

    async def main() -> None:
        app = DealerConsole(words=words)
        async with app.run_test(size=(120, 50)) as pilot:
            await pilot.pause()
            await scenario(app, pilot, [])

    asyncio.run(main())
