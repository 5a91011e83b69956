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
