"""Event consumers for the terminal: the JSON stream and the human transcript."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TextIO

import msgspec

from controller.core.bets.names import bet_name as side_bet_name
from controller.core.events import (
    AlertAcknowledgedEvent,
    AlertClearedEvent,
    AlertEvent,
    AlertUpdatedEvent,
    ApprovalCancelledEvent,
    ApprovalEvent,
    ApprovalRefusedEvent,
    ApprovalRequiredEvent,
    BurnEvent,
    CardEvent,
    ClockEvent,
    CutCardEvent,
    DealerSignedInEvent,
    DealerSignedOutEvent,
    EdgeEvent,
    Event,
    InstructionEvent,
    MisdealEvent,
    PromptEvent,
    ReaderEvent,
    RejectedEvent,
    ResolvedEvent,
    ResultEvent,
    RevealedEvent,
    RoundEvent,
    RoundVoidedEvent,
    SettlementEvent,
    ShoeClosedEvent,
    ShoeClosingEvent,
    ShoeEvent,
    SignInRefusedEvent,
    StubCountEvent,
    TableEvent,
    UndoneEvent,
    encode_lines,
)
from controller.core.misdeals import SAY_RESOLUTION
from controller.core.published import Totals
from controller.core.tally import count_events
from controller.i18n import counts as counted
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.kinds import action_name, kind_name, role_name, severity_name
from controller.i18n.numbers import format_fixed, format_net
from controller.i18n.variants import variant_name
from controller.ui.bigtext import cells, pad_cells, wrap_cells
from controller.ui.terminalwidth import terminal_columns


class JsonLines:
    """One JSON object per line, flushed per batch."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def __call__(self, events: list[Event]) -> None:
        self.stream.write(encode_lines(events))
        self.stream.flush()


def terminal_width(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to (:func:`~controller.ui.terminalwidth.terminal_columns`: a
    terminal that reports 0 columns is taken as 80); None when ``stream`` is no terminal."""
    try:
        if not stream.isatty():
            return None
        descriptor = stream.fileno()
    except (ValueError, OSError):  # closed, or no descriptor
        return None
    return terminal_columns(descriptor)


def wrapped(line: str, width: int) -> list[str]:
    """``line`` in lines of at most ``width`` cells, broken between words; the lines it continues on are indented
    a little more than it is."""
    if cells(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    more = " " * min(indent + 4, width // 3)
    first, *rest = wrap_cells(line.strip(), width - len(more))
    return [" " * indent + first, *(more + part for part in rest)]


def fitted(text: str, stream: TextIO | None = None) -> str:
    """``text`` as the transcript writes it to ``stream`` (default stdout): on a terminal, lines wider than it
    wrap between words."""
    width = terminal_width(stream or sys.stdout)
    if not width:
        return text
    return "\n".join(part for line in text.split("\n") for part in wrapped(line, width))


FACE_DOWN_TEXT = "▒▒"
"""A card dealt face down, as the transcript shows it until its hand is revealed (as the dealer console does): the
transcript is the dealer's display of ``croupier run --console plain``; the event stream keeps the code."""


def bet_name(bet: str, words: Catalogue) -> str:
    """A bet's short name in the transcript's language."""
    names = {"player": words.say("bet.player", "player"), "banker": words.say("bet.banker", "banker"),
             "tie": words.say("bet.tie", "tie"), "player_pair": words.say("bet.player_pair", "P pair"),
             "banker_pair": words.say("bet.banker_pair", "B pair")}
    return names.get(bet) or words.text(side_bet_name(bet))


def say_column_width(words: Catalogue) -> int:
    """Cells of a card line's first column: 16, or the widest prompt in ``words``' language and a space, so
    the slots line up (a full-width character takes two cells)."""
    says = (words.say("prompt.player", "Card to PLAYER"), words.say("prompt.banker", "Card to BANKER"),
            words.say("transcript.card", "Card"))
    return max(16, max(cells(say) for say in says) + 1)


def net_text(net: str, words: Catalogue) -> str:
    """A settlement's net per unit for people: the machine form in English, the locale's elsewhere."""
    return net if words.language == "en" else format_net(net, words.language)


class Transcript:
    """A readable transcript: every instruction, card, result and settlement, in ``words``' language
    (the events' own texts are worded by :class:`~controller.ui.localise.Localiser` before they come here)."""

    def __init__(self, stream: TextIO | None = None, show_next: bool = False, words: Catalogue = ENGLISH,
                 width: int | None = None) -> None:
        self.stream = stream or sys.stdout
        self.pending_prompt: PromptEvent | None = None
        self.show_next = show_next
        self.words = words
        self.say_width = say_column_width(words)
        self.width = width if width is not None else terminal_width(self.stream)
        """Lines wider than this wrap between words (None: a pipe or a file, where nothing wraps)."""
        self.last_line: str | None = None
        """The line written last (an instruction the dealer was just told is not written again)."""

    def line(self, text: str, wrap: bool = True) -> None:
        """Write ``text``; on a terminal its lines wider than the terminal wrap between words (``wrap``)."""
        self.last_line = text
        if wrap and self.width:
            text = "\n".join(part for line in text.split("\n") for part in wrapped(line, self.width))
        self.stream.write(text + "\n")

    def __call__(self, events: list[Event]) -> None:
        for event in events:
            self.render(event)
        self.stream.flush()

    def _flush_prompt(self) -> None:
        if self.pending_prompt is not None:
            prompt = self.pending_prompt
            self.line(f"  {pad_cells(prompt['say'], self.say_width)} {prompt['slot']}  ...")
            self.pending_prompt = None

    def render(self, event: Event) -> None:
        """Write the lines of one event (a prompt waits for its card, to share its line)."""
        match event:
            case PromptEvent():
                self._flush_prompt()
                self.pending_prompt = event
            case CardEvent():
                prompt, self.pending_prompt = self.pending_prompt, None
                say = prompt["say"] if prompt else self.words.say("transcript.card", "Card")
                mark = self.words.say("transcript.manual", "  (entered by hand)") if event.get("manual") else ""
                card = FACE_DOWN_TEXT if event.get("face_down") else event["card"]
                self.line(f"  {pad_cells(say, self.say_width)} {event['slot']}  {card}{mark}")
            case _:
                self._flush_prompt()
                for text in self._lines(event):
                    self.line(text)

    def _lines(self, event: Event) -> list[str]:
        match event:
            case AlertEvent(kind="advantage") | AlertUpdatedEvent() | AlertClearedEvent() | EdgeEvent():
                return []  # advantage play is for the supervisor and surveillance, not the dealer's transcript
            case ClockEvent():
                return []  # the clock's readings are for the journal; a clock that is off raises an alert, shown
            case StubCountEvent():
                return [_stub_count_line(event, self.words)]
            case TableEvent() | ShoeEvent() | BurnEvent() | CutCardEvent() | ShoeClosedEvent() | ReaderEvent() \
                    | AlertEvent():
                return [_shoe_line(event, self.words)]
            case AlertAcknowledgedEvent():
                by = self.words.say("transcript.ack_by", " by {by}", by=event["by"]) if event["by"] else ""
                return [self.words.say("transcript.alert_acknowledged", "  Alert {id} ({kind}) acknowledged{by}",
                                       id=event["id"], kind=kind_name(event["kind"], self.words), by=by)]
            case RoundEvent() | InstructionEvent() | RejectedEvent():
                return self._dealer_lines(event)
            case UndoneEvent():
                return [f"  << @undo: {event['say']}"]
            case ResultEvent() | SettlementEvent() | MisdealEvent() | ResolvedEvent() | RoundVoidedEvent():
                return _outcome_lines(event, self.words)
            case RevealedEvent():
                return [self.words.say("transcript.revealed", "  Revealed {side} {slots}: {cards} (total {total})",
                                       side=self.words.say(f"side.{event['side']}", event["side"].upper()),
                                       slots=" ".join(event["slots"]), cards=" ".join(event["cards"]),
                                       total=event["total"])]
        return _staff_lines(event, self.words)

    def _dealer_lines(self, event: RoundEvent | InstructionEvent | RejectedEvent) -> list[str]:
        match event:
            case RoundEvent():
                return ["\n" + self.words.say("transcript.round", "Round {round}", round=event.round)]
            case InstructionEvent():
                action = event.action
                if action == "resolve" or (action in ("next_round", "confirm_shoe", "burn") and not self.show_next):
                    return []
                said = f"  {event.say}"
                return [] if said == self.last_line else [said]  # an input that changed nothing the dealer sees
        return [f"  ?? {event.say}"]


def _stub_count_line(event: StubCountEvent, words: Catalogue) -> str:
    """The dealer's count of the stub, beside the table's (a count that differs is followed by its misdeal)."""
    if event.counted == event.expected:
        return words.say("transcript.stub_counted", "  Stub counted: {counted} cards, as the table expects",
                         counted=event.counted)
    return words.say("transcript.stub_counted_other", "  Stub counted: {counted} cards; the table expects {expected}",
                     counted=event.counted, expected=event.expected)


def _staff_lines(event: Event, words: Catalogue) -> list[str]:
    """The lines of a badge, an approval or an early close: sentences (an event with no words of its own is
    named, never printed as a structure)."""
    say = words.say
    match event:
        case DealerSignedInEvent():
            return [say("transcript.signed_in", "  {name} signed in as {role}", name=event.name,
                        role=role_name(event.role, words))]
        case DealerSignedOutEvent():
            return [say("transcript.signed_out", "  {name} signed out", name=event.name)]
        case SignInRefusedEvent():
            return [say("transcript.badge_refused", "  Badge refused: {reason}",
                        reason=event.say if isinstance(event.say, str) else event.reason)]
        case ApprovalRequiredEvent():
            return [f"  {event.say}"]
        case ApprovalEvent():
            return [say("transcript.approved", "  {by} ({role}) approved: {action}", by=event.by,
                        role=role_name(event.role, words), action=action_name(event.action, words, SAY_RESOLUTION))]
        case ApprovalRefusedEvent():
            return [say("transcript.approval_refused", "  Approval refused: {reason}",
                        reason=event.say if isinstance(event.say, str) else event.reason)]
        case ApprovalCancelledEvent():
            return [say("transcript.approval_cancelled", "  Approval no longer asked: {reason}",
                        reason=event.say if isinstance(event.say, str) else event.reason)]
        case ShoeClosingEvent():
            by = (say("transcript.approved_by", " (approved by {by})", by=event.approved_by)
                  if isinstance(event.approved_by, str) else "")
            return [say("transcript.shoe_closing", "  The shoe closes early{by}", by=by)]
    return [f"  {event.event}"]


def _shoe_line(event: TableEvent | ShoeEvent | BurnEvent | CutCardEvent | ShoeClosedEvent | ReaderEvent
               | AlertEvent, words: Catalogue) -> str:
    """The line of an event about the table, the shoe or the reader."""
    say = words.say
    match event:
        case TableEvent():
            variant = variant_name(event["variant"], words)
            if event["mode"] == "simulation":
                return say("transcript.table_simulated", "Croupier simulated table: {decks}, {variant} variant, "
                           "driver {driver}", decks=counted.decks(event["decks"]), variant=variant,
                           driver=event["driver"])
            return say("transcript.table_live", "Croupier live table: {decks}, {variant} variant, driver {driver}",
                       decks=counted.decks(event["decks"]), variant=variant, driver=event["driver"])
        case ShoeEvent():
            if event["status"] == "new":
                decks = event.get("decks")
                return "\n" + say("transcript.shoe_new", "Shoe {shoe} ({decks}): shuffled and cut.",
                                  shoe=event["shoe"], decks=counted.decks(decks) if isinstance(decks, int)
                                  else counted.decks(0, "?"))
            return say("transcript.shoe_ready", "Shoe {shoe} confirmed by the dealer.", shoe=event["shoe"])
        case BurnEvent():
            if event.get("turned"):
                return say("transcript.burn_turned", "  Burn: turned {card}, burn {more} more",
                           card=str(event["card"]), more=str(event.get("burn")))
            # a burn card the reader could not identify is burned all the same: shown as what the reader sent
            card = event["card"] if event["card"] is not None else event.get("read") or "??"
            return say("transcript.burn", "  Burn: {card}", card=card)
        case CutCardEvent():
            return f"  {event['detail']}"
        case ShoeClosedEvent():
            results = event["results"]
            return say("transcript.shoe_closed", "Shoe {shoe} closed after {rounds} (banker {banker}, "
                       "player {player}, tie {tie}); cards seen {seen}, remaining {remaining}, burned {burned}, "
                       "misdeals {misdeals}.", shoe=event["shoe"], rounds=counted.rounds(event["rounds"]),
                       banker=results["banker"], player=results["player"], tie=results["tie"],
                       seen=event["cards_seen"], remaining=event["cards_remaining"], burned=event["burned"],
                       misdeals=event["misdeals"])
        case ReaderEvent():
            if event["status"] == "online":
                return say("transcript.reader_online", "  Reader online")
            return say("transcript.reader_offline", "  Reader offline")
    return say("transcript.alert_worded", "  !! ALERT {id}, {severity}: {kind}. {detail} [@ack {id} when dealt with]",
               id=event["id"], kind=kind_name(event["kind"], words), severity=severity_name(event["severity"], words),
               detail=event["detail"])


def _result_line(event: ResultEvent, words: Catalogue) -> str:
    player, banker = event["player"], event["banker"]
    tags = [words.say("transcript.tag_natural", "natural") if event["natural"] else "",
            words.say("transcript.tag_player_pair", "player pair") if event["player_pair"] else "",
            words.say("transcript.tag_banker_pair", "banker pair") if event["banker_pair"] else ""]
    shown = [tag for tag in tags if tag]
    line = words.say("transcript.result", "  => {say}   player {player_cards} = {player}, banker {banker_cards} = "
                     "{banker}", say=event["say"].upper(), player_cards=" ".join(player["cards"]),
                     player=player["total"], banker_cards=" ".join(banker["cards"]), banker=banker["total"])
    return line + (f"  [{', '.join(shown)}]" if shown else "")


def _outcome_lines(event: ResultEvent | SettlementEvent | MisdealEvent | ResolvedEvent
                   | RoundVoidedEvent, words: Catalogue) -> list[str]:
    """The lines of a round's result, pays, misdeal, resolution or void."""
    say = words.say
    match event:
        case ResultEvent():
            return [_result_line(event, words)]
        case SettlementEvent():
            bets = ", ".join(f"{bet_name(bet, words)} {net_text(outcome['net'], words)}"
                             for bet, outcome in event["bets"].items())
            return [say("transcript.pays", "     Pays per unit: {bets}", bets=bets)]
        case MisdealEvent():
            card = f" ({event['card']})" if event["card"] else ""
            return [say("transcript.misdeal", "  !! MISDEAL {kind}{card}: {detail}",
                        kind=kind_name(event["kind"], words), card=card, detail=event["detail"]),
                    f"     {event['instruction']}"]
        case ResolvedEvent():
            unread = say("transcript.unread_card", "unread card")
            cards = (f" [{', '.join(unread if card == '??' else card for card in event['cards'])}]"
                     if event["cards"] else "")
            return [say("transcript.resolved", "  Resolved {kind}: {resolution}{cards}",
                        kind=kind_name(event["kind"], words),
                        resolution=action_name(event["resolution"], words, SAY_RESOLUTION), cards=cards)]
    return [say("transcript.voided", "  Round {round} VOID: bets returned", round=event["round"])]


class Summary:
    """Counts for the final summary: results, naturals, pairs, misdeals."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, events: list[Event]) -> None:
        count_events(self.counts, events)

    def take(self, totals: Totals) -> None:
        """Count what the table itself says of the whole game (:attr:`~controller.core.published.View.totals`)
        instead of what the events it was given added up to."""
        self.counts.update({key: count - self.counts[key] for key, count in msgspec.structs.asdict(totals).items()})

    def text(self, words: Catalogue = ENGLISH) -> str:
        """The summary in ``words``' language."""
        counts = self.counts
        rounds = counts["rounds"]

        def share(key: str) -> str:
            return (f"{counts[key]} ({format_fixed(100 * counts[key] / rounds, 2, words.language)}%)" if rounds
                    else str(counts[key]))

        say = words.say
        return "\n".join([
            say("summary.rounds", "Summary: {rounds} over {shoes}", rounds=counted.rounds(rounds),
                shoes=counted.shoes(counts["shoes"])),
            say("summary.results", "  banker {banker}   player {player}   tie {tie}", banker=share("banker"),
                player=share("player"), tie=share("tie")),
            say("summary.extras", "  naturals {naturals}   player pairs {player_pairs}   banker pairs {banker_pairs}",
                naturals=share("natural"), player_pairs=share("player_pair"), banker_pairs=share("banker_pair")),
            say("summary.misdeals", "  misdeals {misdeals}   voided rounds {voided}", misdeals=counts["misdeal"],
                voided=counts["voided"]),
        ])


class Progress:
    """A progress bar on a terminal stream (nothing when it is not a terminal)."""

    def __init__(self, total: int, stream: TextIO | None = None, unit: str = "rounds") -> None:
        self.total = total
        self.unit = unit
        self.stream = stream or sys.stderr
        self.done = 0
        self.enabled = total > 0 and self.stream.isatty()
        self.step = max(1, total // 100)
        self.drawn = -1
        """The percentage last drawn: the bar is redrawn at most a hundred times, however often it is told."""

    def __call__(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, (ResultEvent, RoundVoidedEvent)):
                self.done += 1
                if self.done % self.step == 0 or self.done == self.total:
                    self.show(self.done)

    def show(self, done: int) -> None:
        """Draw the bar at ``done`` rounds of the total (when the percentage changed, and at the end)."""
        self.done = done
        percent = 100 * done // self.total if self.total else 100
        if self.enabled and (percent != self.drawn or done == self.total):
            self.drawn = percent
            filled = 40 * done // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (40 - filled)}] {done}/{self.total} {self.unit}")
            self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
