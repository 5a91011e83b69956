"""What simulate and run show besides the event stream: the web scoreboard and the dealer console."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from controller.runner import Runner
from controller.table import Event
from drivers.merged import MergedSource

Sink = Callable[[list[Event]], None]


def start_scoreboard_sink(address: str) -> tuple[Sink, Callable[[], None], str]:
    """Start the web scoreboard at ``HOST:PORT``; returns (sink, close, url)."""
    from controller.scoreboard import parse_address, start_scoreboard

    host, port = parse_address(address)
    board = start_scoreboard(host, port)
    return board.publish_many, board.close, board.url


def run_with_console(runner: Runner, source: MergedSource, history: list[Event]) -> int:
    """Run ``runner`` in a thread while the Textual dealer console owns the terminal.

    The console shows every event; its key bindings send dealer inputs to
    ``source``. The run ends when the dealer quits the console (Ctrl+Q); the
    console stays up after the last round so the dealer can read it. Returns
    the runner's exit status.
    """
    try:
        from controller.console import DealerConsole
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        from controller.exceptions import CroupierError

        raise CroupierError(f"the dealer console needs Textual ({error}); pip install 'croupier[console]'") from None
    console = DealerConsole(on_input=source.put, events=history)
    previous_sink = runner.sink

    def sink(events: list[Event]) -> None:
        previous_sink(events)
        for event in events:
            console.apply(event)

    runner.sink = sink
    source.keep_open = True
    runner.poll = 0.1
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["status"] = runner.run()
        except BaseException as error:  # reported after the console closes
            outcome["error"] = error
            if console.is_running:
                console.call_from_thread(console.exit)

    thread = threading.Thread(target=work, name="croupier-runner", daemon=True)
    thread.start()
    console.run()
    runner.stopped = True
    source.keep_open = False
    thread.join(timeout=5)
    if "error" in outcome:
        raise outcome["error"]
    status: int = outcome.get("status", runner.exit_status())
    return status


def start_badge_feed(auth_section: Any, source: MergedSource,
                     complain: Callable[[str], None]) -> Callable[[], None]:
    """Watch the ``[auth]`` badge reader and send its badges to the table as inputs.

    A presented badge becomes a BADGE input, a removed one BADGE_REMOVED; an
    unreadable badge or a reader outage is reported (an outage also counts as
    the badge being removed, so nobody stays signed in on a dead reader).
    Returns the function that stops watching.
    """
    from controller.auth import settings_from_dict
    from controller.inputs import Input, InputKind
    from drivers.badges import BadgeReader

    settings = settings_from_dict(auth_section)
    reader = BadgeReader.from_settings(settings)

    def pump() -> None:
        for event in reader.events():
            if event.kind == "presented":
                source.put(Input(InputKind.BADGE, event.uid))
            elif event.kind == "removed":
                source.put(Input(InputKind.BADGE_REMOVED, event.uid))
            elif event.kind == "offline":
                complain(event.message or f"badge reader {event.reader} offline")
                source.put(Input(InputKind.BADGE_REMOVED, event.uid))
            else:
                complain(event.message or f"badge reader {event.reader}: {event.kind}")

    threading.Thread(target=pump, name="croupier-badges", daemon=True).start()
    return reader.close
