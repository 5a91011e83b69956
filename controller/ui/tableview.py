"""What the table looks like from its event stream: a pure view model.

:class:`TableView` folds table events (dicts with an ``"event"`` key, as the
table core emits them) into what the dealer console and the scoreboard show:
the round, the cards in each slot with the totals, the prompt, the result, a
misdeal, the reader's status, the shoe counters and the result history (from
which the roads are recomputed). No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal, NotRequired, TypedDict, cast

import msgspec

from controller.core.cards import hand_total, parse_card
from controller.core.events import (
    AlertEvent,
    AlertUpdatedEvent,
    CardEvent,
    Event,
    EventLike,
    InstructionEvent,
    MisdealEvent,
    PromptEvent,
    Readable,
    ResolvedEvent,
    ResultEvent,
    RevealedEvent,
    RoundVoidedEvent,
    SettlementEvent,
    ShoeClosedEvent,
    ShoeEvent,
    UndoneEvent,
)
from controller.core.exceptions import CardCodeError
from controller.core.published import MisdealView, View
from controller.ui.roads import (
    RESPONSIBLE_GAMING_LINE,
    RESPONSIBLE_GAMING_LINE_KO,
    Result,
    ResultHistory,
    Roads,
)

PLAYER_SLOTS: Final = ("P1", "P2", "P3")
BANKER_SLOTS: Final = ("B1", "B2", "B3")
SLOTS: Final = PLAYER_SLOTS + BANKER_SLOTS

WINNER_NAMES: Final = {"B": "BANKER", "P": "PLAYER", "T": "TIE"}

SHOE_DETAILS: Final = frozenset({"shoe", "decks", "status", "misdeals", "voided"})
"""Keys of ``shoe`` and ``shoe_closed`` events kept in :attr:`ShoeCounters.details`."""

FACE_DOWN: Final = "face_down"
"""What :attr:`TableView.slots` holds for a card dealt face down and not yet revealed (never its code)."""
BURN_PLACE: Final = "burn"
"""What :attr:`TableView.halt_place` holds when a card entered by hand would be the burn card."""
LAST_RESULTS: Final = 12
"""How many of the latest results the views list."""


class ShoeCountersEvent(TypedDict):
    """A ``shoe`` event from another producer that sets the counters exactly (docs/scoreboard.md)."""

    event: Literal["shoe"]
    cards_left: NotRequired[int]
    cut_card_out: NotRequired[bool]


class NewShoeEvent(TypedDict):
    """``new_shoe`` / ``shoe_started``: another producer's name for a new shoe (docs/roads.md)."""

    event: Literal["new_shoe", "shoe_started"]
    decks: NotRequired[int]


ViewEvent = Event | ShoeCountersEvent | NewShoeEvent
"""What the views fold: the table's events, and the documented inputs of other producers.
The core never emits the last two."""


@dataclass
class ShoeCounters:
    """The shoe's counters: the table's view's (:meth:`TableView.show`), or, with none, as the events told them."""

    cards_left: int | None = None
    cut_card_out: bool = False
    closed: bool = False
    burned: int = 0
    set_aside: int | None = None
    """Cards the misdeals' resolutions set aside, as the table's view says (None: no view was shown)."""
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        counters = {"cards_left": self.cards_left, "cut_card_out": self.cut_card_out,
                    "closed": self.closed, "burned": self.burned, **self.details}
        if self.set_aside is not None:
            counters["set_aside"] = self.set_aside
        return counters


def advantage_text(alert: AlertEvent) -> str:
    """An ``advantage`` alert as the supervisor's status line names it: its bet and edge (``player +0.50%``)."""
    edge = Fraction(str(alert.get("edge", "0")))
    return f"{alert.get('bet', '?')} {float(edge) * 100:+.2f}%"


def _round_of(event: EventLike) -> int | None:
    value = event.get("round")
    return value if isinstance(value, int) else None


def result_summary(result: Result) -> dict[str, Any]:
    """One result as the scoreboard lists it."""
    return {"round": result.round, "winner": result.winner, "player_total": result.player_total,
            "banker_total": result.banker_total, "natural": result.natural,
            "player_pair": result.player_pair, "banker_pair": result.banker_pair}


class TableView:
    """The table as the events describe it; feed it with :meth:`apply`.

    Attributes are plain data for the views to read: ``round``, ``slots``
    (slot → card code, or :data:`FACE_DOWN` for a card dealt face down and not yet revealed),
    ``prompt`` (the last prompt event of this round),
    ``result`` (this round's result event), ``settlement``, ``misdeal`` (the
    open misdeal event, cleared when resolved), ``instruction`` (what the dealer
    is told to do now), ``reader`` (``"online"``/``"offline"``/``"unknown"``),
    ``shoe`` (:class:`ShoeCounters`), ``voided`` (the last voided round),
    ``rejected`` (why the last input was refused, until the table moves on) and
    ``history`` (:class:`ResultHistory`).

    The shoe's counters, the layout, the misdeal's place, the alerts and the keys
    that apply are the table's own (:meth:`show`, after each input's events).
    Fed events alone by another producer, ``shoe.cards_left`` is counted from
    them as docs/scoreboard.md says: 52 x ``decks`` when a ``shoe`` event with
    ``"status": "new"`` starts a shoe, less one for each ``card`` and ``burn`` and
    for each card a ``resolved`` sets aside that no ``card`` showed;
    a ``shoe`` event's ``cards_left`` or a ``shoe_closed``'s
    ``cards_remaining`` sets it exactly.
    """

    def __init__(self) -> None:
        self.round: int | None = None
        self.slots: dict[str, str] = {}
        self.prompt: PromptEvent | None = None
        self.result: ResultEvent | None = None
        self.settlement: SettlementEvent | None = None
        self.misdeal: MisdealEvent | None = None
        self.instruction: str | None = None
        self.instruction_action: str | None = None
        self.instruction_id: str | None = None
        """The message id (``say_id``) of the last ``instruction`` event, so a view can word it itself."""
        self.instruction_params: dict[str, object] = {}
        """Its ``say_params``."""
        self.rejected: str | None = None
        self.reader: str = "unknown"
        self.dealer: str | None = None
        """The signed-in dealer's name, when badges are on."""
        self.approval: str | None = None
        """The action waiting for a supervisor's badge, if any."""
        self.last_round: int | None = None
        """The last round of this shoe, once the cut card is out."""
        self.manual_slots: set[str] = set()
        """The slots of this round whose card was entered by hand."""
        self._dealt_order: list[str] = []
        self._not_from_the_shoe = False
        self._foreign: list[str] = []
        """Foreign cards of the misdeals not yet resolved: not the shoe's, so not counted out of it when set aside."""
        self.undo: str | None = None
        """The input ``@undo`` would take back now (the last ``prompt``/``instruction``'s ``undo``)."""
        self.halt_place: str | None = None
        """Where a card entered by hand goes while halted: the slot the misdeal names or the core prompted
        last, :data:`BURN_PLACE` for the burn card, None when the events do not say."""
        self._before_manual: MisdealEvent | None = None
        self._halt_events: list[MisdealEvent] = []
        """The misdeal events since the table last had no misdeal pending: a card out while halted is a misdeal
        event of its own (``while_halted``), the table staying halted on the first (:meth:`show` picks it)."""
        self._taken_back: tuple[str, str, bool] | None = None
        self.alerts: dict[str, AlertEvent] = {}
        """The open alerts by id, oldest first, until an ``alert_acknowledged`` closes each (an ``advantage``
        alert only when badges are on: it is for the supervisor)."""
        self.badges_on = False
        """The table runs with dealers and supervisors signed in: as its view says (:meth:`show`), or, with no view
        shown, a badge event was seen."""
        self.advantage: list[str] = []
        """This round's ``advantage`` alerts (bet and edge), for the supervisor; kept only when badges are
        on, and never part of the scoreboard's state."""
        self.shoe = ShoeCounters()
        self.voided: int | None = None
        self.history = ResultHistory()
        self.events_seen = 0
        self.core: View | None = None
        """The table's own view (:meth:`show`), when the table runs in this process: what it says of the shoe,
        the layout, a misdeal, the alerts, the dealer and the keys that apply wins over what the events told."""

    # ------------------------------------------------------------------ folding

    def _clear_round(self, round_number: int | None) -> None:
        self.round = round_number
        self.slots = {}
        self._dealt_order = []
        self.manual_slots = set()
        self.prompt = None
        self.result = None
        self.settlement = None
        self.misdeal = None
        self.voided = None
        self.advantage = []

    def _start_round(self, round_number: int | None) -> None:
        if round_number is not None and round_number != self.round:
            self._clear_round(round_number)

    def _new_shoe(self) -> None:
        self.shoe = ShoeCounters()
        self.last_round = None
        self._clear_round(None)

    def apply(self, event: ViewEvent) -> bool:
        """Fold one event in; True when anything a view shows may have changed."""
        self.events_seen += 1
        if self._opens_new_shoe(event):
            self._new_shoe()
            self.history.clear()
            decks = event.get("decks")
            if isinstance(decks, int):
                self.shoe.cards_left = 52 * decks
        history_changed = self.history.apply(event)
        if event["event"] in ("card", "burn") and self.reader == "unknown":
            self.reader = "online"  # a card was just read: the reader works
        if event["event"] in ("rejected", "sign_in_refused", "approval_refused"):
            say = event.get("say") or event.get("reason")
            self.rejected = str(say) if say else "input not accepted"
            return True
        if event["event"] not in ("prompt", "instruction"):
            self.rejected = None
        return self._fold_round(event) or self._fold_dealer(event) or self._fold_shoe(event) or history_changed

    def _opens_new_shoe(self, event: ViewEvent) -> bool:
        """A new shoe's first event, or the first of a round after the shoe closed."""
        return event["event"] in ("new_shoe", "shoe_started") or (
            event["event"] == "shoe" and event.get("status") == "new") or (
            event["event"] in ("shoe", "result", "prompt", "round") and self.shoe.closed)

    def _fold_round(self, event: ViewEvent) -> bool:
        """The round's events: its prompts, cards, result and settlement, misdeals and voids."""
        match event["event"]:
            case "prompt":
                self._on_prompt(cast(PromptEvent, event))
            case "round":
                self._start_round(_round_of(event))
            case "card":
                self._on_card(cast(CardEvent, event))
            case "revealed":
                self._on_revealed(cast(RevealedEvent, event))
            case "result":
                self._on_result(cast(ResultEvent, event))
            case "settlement":
                self.settlement = cast(SettlementEvent, event).copy()
            case "misdeal":
                self._on_misdeal(cast(MisdealEvent, event))
            case "resolved":
                self._on_resolved(cast(ResolvedEvent, event))
            case "round_voided":
                self._on_round_voided(cast(RoundVoidedEvent, event))
            case "undone":
                self._on_undone(cast(UndoneEvent, event))
            case _:
                return False
        return True

    def _fold_dealer(self, event: ViewEvent) -> bool:
        """What the dealer is told, the reader's status, sign-in and approvals."""
        match event["event"]:
            case "instruction":
                self._on_instruction(cast(InstructionEvent, event))
            case "reader":
                self.reader = str(event.get("status", "unknown"))
            case "dealer_signed_in":
                self.dealer = str(event.get("name", "?"))
                self.badges_on = True
            case "alert" if event.get("kind") == "advantage":
                if not self.badges_on:
                    return False
                self.advantage.append(advantage_text(cast(AlertEvent, event)))
                self.alerts[str(event.get("id"))] = cast(AlertEvent, event).copy()
            case "dealer_signed_out":
                self.dealer = None
            case "approval_required":
                self.approval = str(event.get("action", "?"))
            case "approval" | "shoe_closing":
                self.approval = None
            case "alert":
                self.alerts[str(event.get("id"))] = cast(AlertEvent, event).copy()
            case "alert_updated":
                self._on_alert_updated(cast(AlertUpdatedEvent, event))
            case "alert_acknowledged" | "alert_cleared":
                self.alerts.pop(str(event.get("id")), None)
            case _:
                return False
        return True

    def _on_alert_updated(self, event: AlertUpdatedEvent) -> None:
        """An open advantage alert follows its bet's edge: it says now what ``event`` says."""
        alert = self.alerts.get(str(event.get("id")))
        if isinstance(alert, AlertEvent) and isinstance(event, AlertUpdatedEvent):
            self.alerts[alert.id] = msgspec.structs.replace(
                alert, round=event.round, bet=event.bet, edge=event.edge, detail=event.detail, say_id=event.say_id,
                say_params=event.say_params)

    def _fold_shoe(self, event: ViewEvent) -> bool:
        """The shoe's counters: burned cards, the cut card, its close and other producers' counts."""
        match event["event"]:
            case "burn":
                self.shoe.burned += 1
                self._count_card()
            case "cut_card":
                self.shoe.cut_card_out = True
                last = event.get("last_round")
                self.last_round = last if isinstance(last, int) else None
            case "shoe_closed":
                self._on_shoe_closed(cast(ShoeClosedEvent, event))
            case "shoe":
                self._on_shoe(cast(ShoeEvent | ShoeCountersEvent, event))
            case _:
                return False
        return True

    def _on_prompt(self, event: PromptEvent) -> None:
        self._start_round(_round_of(event))
        self.undo = event.get("undo")
        self.prompt = event.copy()
        say = event.get("say")
        self.instruction = str(say) if say else None
        self.instruction_action = "deal"

    def _on_card(self, event: CardEvent) -> None:
        self._start_round(_round_of(event))
        slot = event.get("slot")
        card = event.get("card")
        if isinstance(slot, str) and isinstance(card, str):
            self.slots[slot] = FACE_DOWN if event.get("face_down") else card
            self._dealt_order.append(slot)
            if event.get("manual"):
                self.manual_slots.add(slot)
        if self._not_from_the_shoe:
            self._not_from_the_shoe = False
        else:
            self._count_card()

    def _on_revealed(self, event: RevealedEvent) -> None:
        self._start_round(_round_of(event))
        slots, cards = event.get("slots"), event.get("cards")
        if isinstance(slots, list) and isinstance(cards, list):
            for slot, card in zip(slots, cards, strict=False):
                self.slots[str(slot)] = str(card)

    def _on_result(self, event: ResultEvent) -> None:
        self._start_round(_round_of(event))
        self.result = event.copy()
        self.prompt = None
        self.instruction = None  # the prompt's "Card to ..." is done; the core says what is next
        self.instruction_action = None
        self._take_hand_cards(event)

    def _on_misdeal(self, event: MisdealEvent) -> None:
        self._start_round(_round_of(event))
        if event.get("kind") == "foreign_card":
            self._foreign.append(str(event.get("card")))
        if event.get("kind") == "exposed_card" and self.misdeal is None:
            self._take_back(str(event.get("card")))
        self.halt_place = self._halt_place(event)
        self.misdeal = event.copy()
        self._halt_events.append(self.misdeal)
        instruction = event.get("instruction")
        if instruction:
            self.instruction = str(instruction)

    def _take_back(self, card: str) -> None:
        """An exposed card leaves its slot (and the total) while the misdeal is open."""
        for slot in reversed(self._dealt_order):
            if self.slots.get(slot) == card:
                self._taken_back = (slot, card, slot in self.manual_slots)
                del self.slots[slot]
                self._dealt_order.remove(slot)
                self.manual_slots.discard(slot)
                return

    def _halt_place(self, event: MisdealEvent) -> str | None:
        named = (event.get("say_params") or {}).get("slot")
        if isinstance(named, str):
            return named
        if self.prompt is not None:
            return str(self.prompt.get("slot"))
        if self.instruction_action == "burn":
            return BURN_PLACE
        return self.halt_place if self.misdeal is not None else None

    def _on_resolved(self, event: ResolvedEvent) -> None:
        misdeal, self.misdeal = self.misdeal, None
        resolution = event.get("resolution")
        set_aside = list(event.get("cards") or [])
        if resolution == "burn":
            self.shoe.burned += len(set_aside)
        elif resolution == "use" and misdeal is not None:
            self._not_from_the_shoe = True  # the exposed card is placed again: already counted out of the shoe
        if event.get("kind") != "exposed_card":  # an exposed card set aside was counted when it was dealt
            for card in set_aside:
                if card in self._foreign:
                    self._foreign.remove(card)  # another deck's card: it never was in the shoe
                else:
                    self._count_card()
        self._before_manual = misdeal if resolution == "manual" else None

    def _on_undone(self, event: UndoneEvent) -> None:
        """``@undo``: a hand-entered card leaves its slot and its halt is back; an exposed card is back."""
        slot = event.get("slot")
        if event.get("input") == "@exposed":
            if self._taken_back is not None:
                taken_slot, card, manual = self._taken_back
                self.slots[taken_slot] = card
                self._dealt_order.append(taken_slot)
                if manual:
                    self.manual_slots.add(taken_slot)
            self.misdeal = None
        else:
            if self.shoe.cards_left is not None:
                self.shoe.cards_left += 1  # the card out of the shoe is counted again when it is entered again
            if slot is None:
                self.shoe.burned -= 1
            elif slot in self.slots:
                del self.slots[slot]
                self._dealt_order.remove(slot)
                self.manual_slots.discard(slot)
            self.misdeal = self._before_manual
            self.halt_place = slot if slot is not None else BURN_PLACE
        self._taken_back = None
        self._before_manual = None

    def _on_round_voided(self, event: RoundVoidedEvent) -> None:
        round_number = _round_of(event)
        self.misdeal = None
        if round_number is None or round_number == self.round:
            self.slots = {}
            self.result = None
            self.settlement = None
            self.prompt = None
        self.voided = round_number

    def _on_instruction(self, event: InstructionEvent) -> None:
        self.undo = event.get("undo")
        say = event.get("say")
        self.instruction = str(say) if say else None
        action = event.get("action")
        self.instruction_action = str(action) if action else None
        say_id = event.get("say_id")
        self.instruction_id = str(say_id) if say_id else None
        params = event.get("say_params")
        self.instruction_params = dict(params) if isinstance(params, Mapping) else {}
        if action not in (None, "deal"):
            self.prompt = None

    def _on_shoe_closed(self, event: ShoeClosedEvent) -> None:
        self.shoe.closed = True
        self.prompt = None
        remaining = event.get("cards_remaining")
        if isinstance(remaining, int):
            self.shoe.cards_left = remaining
        self.shoe.details.update({key: value for key, value in event.items() if key in SHOE_DETAILS})

    def _on_shoe(self, event: ShoeEvent | ShoeCountersEvent) -> None:
        cards_left = event.get("cards_left")
        if isinstance(cards_left, int):
            self.shoe.cards_left = cards_left
        if event.get("cut_card_out"):
            self.shoe.cut_card_out = True
        self.shoe.details.update({key: value for key, value in event.items() if key in SHOE_DETAILS})

    def _count_card(self) -> None:
        if self.shoe.cards_left is not None and self.shoe.cards_left > 0:
            self.shoe.cards_left -= 1

    def _take_hand_cards(self, event: EventLike) -> None:
        for side, slots in (("player", PLAYER_SLOTS), ("banker", BANKER_SLOTS)):
            hand = event.get(side)
            if isinstance(hand, Mapping | Readable) and isinstance(hand.get("cards"), list):
                for slot, card in zip(slots, hand["cards"], strict=False):
                    self.slots[slot] = str(card)

    # ------------------------------------------------------------------ the table's own view

    def show(self, view: View) -> None:
        """Take what the table itself says (:class:`~controller.core.published.View`, after the events of the same
        input were applied): the round, the counters of the shoe, the cut card, the cards on the layout, whether a
        misdeal is pending and where a card by hand goes, the open alerts, the dealer, an approval, the reader, what
        ``@undo`` takes back and which keys apply. The events still give the words (in the view's language) and
        the results; nothing the table counts or decides is counted or decided here."""
        self.core = view
        self.badges_on = view.badges  # the table's to say: a resume replays no sign-in from an earlier shoe
        self.round = view.round or None  # a misdeal between rounds is the next round's in its event, not yet dealt
        shoe = self.shoe
        shoe.cards_left, shoe.cut_card_out, shoe.closed = view.cards_left, view.cut_card_out, view.closed
        shoe.burned, shoe.set_aside = view.burned, view.set_aside
        shoe.details.update(shoe=view.shoe, decks=view.decks)
        self.last_round = view.last_round
        self.slots = {card.slot: card.card if card.card is not None else FACE_DOWN for card in view.cards}
        self.manual_slots = {card.slot for card in view.cards if card.manual}
        self._dealt_order = [slot for slot in self._dealt_order if slot in self.slots] + [
            slot for slot in self.slots if slot not in self._dealt_order]
        if view.misdeal is None:
            self.misdeal = None
            self._halt_events = []
        else:
            self.halt_place = view.misdeal.place
            self.misdeal = self._pending(view.misdeal)
        self.alerts = {alert.id: self._alert_as_shown(alert) for alert in view.alerts
                       if alert.kind != "advantage" or self.badges_on}
        self.advantage = [advantage_text(alert) for alert in self.alerts.values() if alert.kind == "advantage"]
        self.dealer, self.approval, self.undo = view.dealer, view.approval, view.undo
        self.reader = "online" if view.reader_online else "offline"
        shown = self.result.get("round") if self.result is not None else None
        if view.result is None:
            self.result = None
        elif shown != view.result.round:  # the round's result stays until the next round starts
            self.result = view.result

    def _alert_as_shown(self, alert: AlertEvent) -> AlertEvent:
        """The open ``alert`` as its events worded it (in the view's language), or the table's own when the events
        said something else of it (none seen: a resume; another edge: an update missed)."""
        shown = self.alerts.get(alert.id)
        if shown is None or (shown.get("round"), shown.get("edge"), shown.get("say_params")) != (
                alert.round, alert.get("edge"), alert.get("say_params")):
            return alert
        return shown

    def _pending(self, pending: MisdealView) -> MisdealEvent:
        """The event of the misdeal the table is halted on (the latest one is a card out while halted, when the
        table says so), or, when none was seen, the misdeal as the table's view words it."""
        shown = self.misdeal
        if shown is not None and (shown.get("kind"), shown.get("card")) == (pending.kind, pending.card):
            return shown
        for event in reversed(self._halt_events):
            if (event.get("kind"), event.get("card"), event.get("round")) == (pending.kind, pending.card,
                                                                               pending.round):
                return event
        params = {name: value for name, value in pending.detail_params.items() if isinstance(value, str | int)}
        return MisdealEvent(round=pending.round, kind=pending.kind, card=pending.card, detail=pending.detail,
                            say_id=pending.detail_id, say_params=params, instruction=pending.instruction,
                            resolutions=list(pending.resolutions), supervisor=list(pending.supervisor))

    def accepts(self, kind: str) -> bool | None:
        """Whether the table takes the dealer's input ``kind`` now, as its own view says (None: no view shown)."""
        return None if self.core is None else kind in self.core.accepts

    # ------------------------------------------------------------------ reading

    def stub_count_expected(self) -> int | None:
        """The count of the stub the table expects while it asks for one or halts on a ``count_mismatch``: its own
        view's (``stub_count``, ``cards_left``), or, with no view shown, what its events said; None otherwise."""
        core = self.core
        if core is not None:
            if core.stub_count is not None:
                return core.stub_count
            mismatch = core.misdeal is not None and core.misdeal.kind == "count_mismatch"
            return core.cards_left if mismatch else None
        if self.instruction_action == "count_stub":
            expected = self.instruction_params.get("expected")
        elif self.misdeal is not None and self.misdeal.get("kind") == "count_mismatch":
            expected = (self.misdeal.get("say_params") or {}).get("expected")
        else:
            return None
        return expected if isinstance(expected, int) else None

    def undo_subject(self) -> tuple[str, str | None] | None:
        """What ``@undo`` would take back now: (card code, its slot; None for a burn card), or None."""
        if self.undo is None:
            return None
        if self.undo == "@exposed":
            if self._taken_back is None:
                return None
            slot, card, _ = self._taken_back
            return card, slot
        card = self.undo.split()[-1]
        last = self._dealt_order[-1] if self._dealt_order else None
        return card, last if last is not None and last in self.manual_slots else None

    def total(self, side: str) -> int | None:
        """The hand total of ``"player"`` or ``"banker"`` from the cards shown (None if none)."""
        slots = PLAYER_SLOTS if side == "player" else BANKER_SLOTS
        if self.result is not None:
            hand = self.result.get(side)
            if isinstance(hand, Mapping | Readable) and isinstance(hand.get("total"), int):
                return int(hand["total"])
        cards = []
        for slot in slots:
            code = self.slots.get(slot)
            if code is None:
                continue
            try:
                cards.append(parse_card(code))
            except CardCodeError:
                continue
        return hand_total(cards) if cards else None

    def roads(self) -> Roads:
        """The roads of the current shoe's history."""
        return self.history.roads()

    def last_results(self, count: int = LAST_RESULTS) -> list[Result]:
        """The latest ``count`` results, oldest first."""
        return list(self.history.results[-count:]) if count > 0 else []

    def result_text(self) -> str | None:
        """``"BANKER wins 7 to 5"`` / ``"TIE 6 to 6"`` for this round's result, or None."""
        if self.result is None:
            return None
        winner = str(self.result.get("winner", "")).upper()
        player, banker = self.total("player"), self.total("banker")
        natural = " (natural)" if self.result.get("natural") else ""
        if winner == "TIE":
            return f"TIE {player} to {banker}{natural}"
        if winner == "BANKER":
            return f"BANKER wins {banker} to {player}{natural}"
        return f"PLAYER wins {player} to {banker}{natural}"

    def scoreboard_state(self) -> dict[str, Any]:
        """The scoreboard's full state message (everything a page draws)."""
        roads = self.roads()
        return {
            "type": "state",
            "roads": roads.to_state(),
            "last_results": [result_summary(result) for result in self.last_results()],
            "statistics": roads.counts.to_dict(),
            "shoe": {**self.shoe.to_dict(), "round": self.round},
            "responsible_gaming": [RESPONSIBLE_GAMING_LINE, RESPONSIBLE_GAMING_LINE_KO],
        }
