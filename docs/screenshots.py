"""Draw the README's pictures: the dealer console and the web scoreboard, from a seeded simulated table.

Run from the checkout once set up (needs Chromium, as .ci/setup --test installs it)::

    .venv/bin/python docs/screenshots.py

writes docs/screenshot-console.png (the console, exported by Textual as SVG, drawn by Chromium) and
docs/screenshot-scoreboard.png (the board in Chromium at 1280x720).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.core.events import Event, decode_event  # noqa: E402

DOCS = ROOT / "docs"
SEED = 42
ROUNDS = 23


def simulated(rounds: int) -> list[Event]:
    """The events of ``croupier simulate --seed 42 --rounds N --json``, then the first card of the next round."""
    done = subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", "--seed", str(SEED), "--rounds",
                           str(rounds + 1), "--json"], capture_output=True, text=True, cwd=ROOT, check=True,
                          timeout=300)
    events = [decode_event(json.loads(line)) for line in done.stdout.splitlines()]
    last_round = max(event["round"] for event in events if event["event"] == "result")
    cut = next(index for index, event in enumerate(events)
               if event["event"] == "card" and event["round"] == last_round and event["slot"] == "B1")
    return events[:cut + 2]  # the new round's P1 and B1 dealt, P2 prompted


def chromium(url: str, out: Path, width: int, height: int) -> None:
    binary = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                   if (found := shutil.which(name))), None)
    if binary is None:
        sys.exit("screenshots.py: Chromium is not installed (.ci/setup --test installs it)")
    with tempfile.TemporaryDirectory(prefix="croupier-shots-") as profile:
        subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--no-proxy-server", f"--user-data-dir={profile}", f"--window-size={width},{height}",
                        "--virtual-time-budget=4000", f"--screenshot={out}", url],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    print(f"wrote {out}")


def console_svg(events: list[Event], size: tuple[int, int]) -> str:
    from controller.ui.console import DealerConsole

    async def draw() -> str:
        app = DealerConsole(events=events)
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.5)
            return app.export_screenshot(title="croupier run")

    return asyncio.run(draw())


def main() -> int:
    events = simulated(ROUNDS)
    with tempfile.TemporaryDirectory(prefix="croupier-shots-") as work:
        svg = Path(work) / "console.svg"
        svg.write_text(console_svg(events, (110, 34)), encoding="utf-8")
        chromium(svg.as_uri(), DOCS / "screenshot-console.png", 1120, 760)
    from controller.ui.scoreboard import start_scoreboard

    board = start_scoreboard("127.0.0.1", 0, table_name="Baccarat 3", limits="Min 100 - Max 10,000")
    try:
        board.publish_many(events)
        chromium(board.url, DOCS / "screenshot-scoreboard.png", 1280, 720)
    finally:
        board.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
