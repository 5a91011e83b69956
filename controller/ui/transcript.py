"""Event consumers for the terminal: the JSON stream and the human transcript."""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import TextIO

from controller.core.events import (
    AlertEvent,
    BurnEvent,
    CutCardEvent,
    Event,
    InstructionEvent,
    MisdealEvent,
    PromptEvent,
    ReaderEvent,
    RejectedEvent,
    ResolvedEvent,
    ResultEvent,
    RoundEvent,
    RoundVoidedEvent,
    SettlementEvent,
    ShoeClosedEvent,
    ShoeEvent,
    TableEvent,
)


class JsonLines:
    """One JSON object per line, flushed per batch."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def __call__(self, events: list[Event]) -> None:
        write = self.stream.write
        for event in events:
            write(json.dumps(event, separators=(", ", ": ")) + "\n")
        self.stream.flush()


BET_NAMES = {"player": "player", "banker": "banker", "tie": "tie",
             "player_pair": "P pair", "banker_pair": "B pair"}


class Transcript:
    """A readable transcript: every instruction, card, result and settlement."""

    def __init__(self, stream: TextIO | None = None, show_next: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.pending_prompt: PromptEvent | None = None
        self.show_next = show_next

    def line(self, text: str) -> None:
        self.stream.write(text + "\n")

    def __call__(self, events: list[Event]) -> None:
        for event in events:
            self.render(event)
        self.stream.flush()

    def _flush_prompt(self) -> None:
        if self.pending_prompt is not None:
            prompt = self.pending_prompt
            self.line(f"  {prompt['say']:<16} {prompt['slot']}  ...")
            self.pending_prompt = None

    def render(self, event: Event) -> None:
        """Write the lines of one event (a prompt waits for its card, to share its line)."""
        match event["event"]:
            case "prompt":
                self._flush_prompt()
                self.pending_prompt = event
            case "card":
                prompt, self.pending_prompt = self.pending_prompt, None
                say = prompt["say"] if prompt else "Card"
                mark = "  (entered by hand)" if event.get("manual") else ""
                self.line(f"  {say:<16} {event['slot']}  {event['card']}{mark}")
            case _:
                self._flush_prompt()
                for text in self._lines(event):
                    self.line(text)

    def _lines(self, event: Event) -> list[str]:
        match event["event"]:
            case "table" | "shoe" | "burn" | "cut_card" | "shoe_closed" | "reader" | "alert":
                return [_shoe_line(event)]
            case "round" | "instruction" | "rejected":
                return self._dealer_lines(event)
            case "result" | "settlement" | "misdeal" | "resolved" | "round_voided":
                return _outcome_lines(event)
        return [f"  {event}"]

    def _dealer_lines(self, event: RoundEvent | InstructionEvent | RejectedEvent) -> list[str]:
        match event["event"]:
            case "round":
                return [f"\nRound {event['round']}"]
            case "instruction":
                action = event["action"]
                if action == "resolve" or (action in ("next_round", "confirm_shoe", "burn") and not self.show_next):
                    return []
                return [f"  {event['say']}"]
            case "rejected":
                return [f"  ?? {event['say']}"]


def _shoe_line(event: TableEvent | ShoeEvent | BurnEvent | CutCardEvent | ShoeClosedEvent | ReaderEvent
               | AlertEvent) -> str:
    """The line of an event about the table, the shoe or the reader."""
    match event["event"]:
        case "table":
            mode = "simulated table" if event["mode"] == "simulation" else "live table"
            return (f"Croupier {mode}: {event['decks']} decks, {event['variant']} variant, "
                    f"driver {event['driver']}")
        case "shoe":
            if event["status"] == "new":
                return f"\nShoe {event['shoe']} ({event.get('decks')} decks): shuffled and cut."
            return f"Shoe {event['shoe']} confirmed by the dealer."
        case "burn":
            if event.get("turned"):
                return f"  Burn: turned {event['card']}, burn {event.get('burn')} more"
            return f"  Burn: {event['card']}"
        case "cut_card":
            return f"  {event['detail']}"
        case "shoe_closed":
            results = event["results"]
            return (f"Shoe {event['shoe']} closed after {event['rounds']} rounds "
                    f"(banker {results['banker']}, player {results['player']}, tie {results['tie']}); "
                    f"cards seen {event['cards_seen']}, remaining {event['cards_remaining']}, "
                    f"burned {event['burned']}, misdeals {event['misdeals']}.")
        case "reader":
            return f"  Reader {event['status']}"
        case "alert":
            return f"  !! ALERT {event['kind']}: {event['detail']}"


def _outcome_lines(event: ResultEvent | SettlementEvent | MisdealEvent | ResolvedEvent
                   | RoundVoidedEvent) -> list[str]:
    """The lines of a round's result, pays, misdeal, resolution or void."""
    match event["event"]:
        case "result":
            player, banker = event["player"], event["banker"]
            tags = [tag for tag, shown in (("natural", event["natural"]), ("player_pair", event["player_pair"]),
                                           ("banker_pair", event["banker_pair"])) if shown]
            return [f"  => {event['say'].upper()}   player {' '.join(player['cards'])} = {player['total']}, "
                    f"banker {' '.join(banker['cards'])} = {banker['total']}"
                    + (f"  [{', '.join(t.replace('_', ' ') for t in tags)}]" if tags else "")]
        case "settlement":
            bets = ", ".join(f"{BET_NAMES[bet]} {outcome['net']}" for bet, outcome in event["bets"].items())
            return [f"     Pays per unit: {bets}"]
        case "misdeal":
            return [f"  !! MISDEAL {event['kind']}" + (f" ({event['card']})" if event["card"] else "")
                    + f": {event['detail']}", f"     {event['instruction']}"]
        case "resolved":
            cards = f" [{' '.join(event['cards'])}]" if event["cards"] else ""
            return [f"  Resolved {event['kind']}: {event['resolution']}{cards}"]
        case "round_voided":
            return [f"  Round {event['round']} VOID: bets returned"]


class Summary:
    """Counts for the final summary: results, naturals, pairs, misdeals."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, events: list[Event]) -> None:
        counts = self.counts
        for event in events:
            if event["event"] == "result":
                counts["rounds"] += 1
                counts[event["winner"]] += 1
                counts["natural"] += event["natural"]
                counts["player_pair"] += event["player_pair"]
                counts["banker_pair"] += event["banker_pair"]
            elif event["event"] == "misdeal":
                counts["misdeal"] += 1
            elif event["event"] == "round_voided":
                counts["voided"] += 1
            elif event["event"] == "shoe" and event["status"] == "new":
                counts["shoes"] += 1

    def text(self) -> str:
        counts = self.counts
        rounds = counts["rounds"]

        def share(key: str) -> str:
            return f"{counts[key]} ({100 * counts[key] / rounds:.2f}%)" if rounds else str(counts[key])

        return "\n".join([
            f"Summary: {rounds} rounds over {counts['shoes']} shoe(s)",
            f"  banker {share('banker')}   player {share('player')}   tie {share('tie')}",
            f"  naturals {share('natural')}   player pairs {share('player_pair')}   "
            f"banker pairs {share('banker_pair')}",
            f"  misdeals {counts['misdeal']}   voided rounds {counts['voided']}",
        ])


class Progress:
    """A progress bar on a terminal stream (nothing when it is not a terminal)."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.done = 0
        self.enabled = total > 0 and self.stream.isatty()
        self.step = max(1, total // 100)

    def __call__(self, events: list[Event]) -> None:
        for event in events:
            if event["event"] in ("result", "round_voided"):
                self.done += 1
                if self.done % self.step == 0 or self.done == self.total:
                    self.show(self.done)

    def show(self, done: int) -> None:
        """Draw the bar at ``done`` rounds of the total."""
        self.done = done
        if self.enabled:
            filled = 40 * done // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (40 - filled)}] {done}/{self.total} rounds")
            self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
