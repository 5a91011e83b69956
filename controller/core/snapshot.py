"""A table's state as plain data, and back: the pure function pair behind the journal's checkpoints.

:func:`snapshot` gives everything a :class:`~controller.core.table.Table` holds between two inputs
as JSON-ready data (lists, dicts, strings, numbers); :func:`restore` builds, from the same settings,
a table that continues exactly as the original would: the same inputs give the same events. Nothing
here reads a clock, a file or the environment. The settings are not part of the snapshot (the journal
header keeps them); the approval gate's clock always reads 0 in the core.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from config.schema import Badge, Settings
from controller.core.cards import Card, parse_card
from controller.core.events import AlertEvent, ResultEvent
from controller.core.exceptions import CardCodeError, SnapshotError
from controller.core.inputs import Input
from controller.core.ledger import ShoeLedger
from controller.core.machine import State
from controller.core.misdeals import Misdeal
from controller.core.property_check import FindingKey
from controller.core.table import Table
from controller.core.undo import UndoBook
from controller.i18n.message import Message

FORMAT = 2
"""The snapshot's own format number (kept in it, checked on restore). 2: alerts, reveals, the sequence
archive and monitor, the cards shown; since then also the undo book (``undo``; a snapshot without one has
nothing to undo) and the property check's findings given this shoe (``property_findings``, each
``[site, table, shoe, start, earlier_start, alert id]``; a snapshot without them has none: a resume from
one learns them from its shoe's journaled alerts)."""

TABLE_FIELDS = frozenset({"_events", "alerts", "archive", "authority", "cut_out", "decks", "face_down", "gate",
                          "known_edges", "ledger", "machine", "manual_slots", "misdeal", "model", "reader_online",
                          "result_due", "revealed", "rounds_dealt", "rounds_voided", "settings", "settler",
                          "shoe_number", "slots_dealt", "undo", "variant"})
"""Every attribute a table has; a test fails when one is added that the snapshot does not know. The
settings decide ``face_down`` and ``settler``; ``known_edges`` is a resume's hint, not state; the others are
in the snapshot."""


def snapshot(table: Table) -> dict[str, Any]:
    """The state of ``table`` between two inputs, as JSON-ready data."""
    model = table.model
    data: dict[str, Any] = {
        "format": FORMAT,
        "state": model.state.name,
        "shoe_number": table.shoe_number,
        "manual_slots": sorted(state.name for state in table.manual_slots),
        "slots_dealt": [state.name for state in table.slots_dealt],
        "cut_out": table.cut_out,
        "reader_online": table.reader_online,
        "rounds_dealt": table.rounds_dealt,
        "rounds_voided": table.rounds_voided,
        "misdeal": _misdeal(table.misdeal),
        "round": {
            "player": [card.code for card in model.player],
            "banker": [card.code for card in model.banker],
            "burn_remaining": model.burn_remaining,
            "round_number": model.round_number,
            "last_round": model.last_round,
            "resume_state": model.resume_state.name if model.resume_state is not None else None,
        },
        "ledger": _ledger(table.ledger),
        "alerts": {"raised": table.alerts.raised, "open": [dict(alert) for alert in table.alerts.open_alerts],
                   "closed": sorted(table.alerts._closed)},
        "reveal": {"revealed": table.revealed, "result_due": table.result_due},
        "earlier_shoes": [[reference.shoe, "".join(reference.cards)] for reference in table.archive.references
                          if reference.order == "dealt"],
        "undo": table.undo.to_data(),
        "property_findings": [[*key, alert_id] for key, alert_id in sorted(
            table.ledger.property_findings.items())],
    }
    if table.gate is not None:
        authority = table.gate.authority
        dealer = authority.dealer
        pending = table.gate.pending
        data["auth"] = {
            "dealer": None if dealer is None else {"uid": dealer.uid, "name": dealer.name, "role": dealer.role},
            "signed_in_at": authority.signed_in_at,
            "last_activity": authority._last_activity,
            "pending": None if pending is None else {
                "input": pending[0].to_dict(), "needed": pending[1],
                # the gate holds the table's own misdeal (it lapses when that one is no longer pending)
                "misdeal": "pending" if pending[2] is not None and pending[2] is table.misdeal
                else _misdeal(pending[2])},
        }
    return data


def restore(settings: Settings, data: Mapping[str, Any]) -> Table:
    """A table with ``settings`` in the state ``data`` (from :func:`snapshot`) describes.

    Raises :class:`SnapshotError` when ``data`` is not such a state.
    """
    table = Table(settings)
    restore_into(table, data)
    return table


def restore_into(table: Table, data: Mapping[str, Any]) -> None:
    """Put ``table`` (fresh, with the snapshot's settings) in the state ``data`` describes; the pure
    in-place form of :func:`restore`, for a table others already hold. Raises :class:`SnapshotError`."""
    try:
        _restore_into(table, data)
    except (KeyError, TypeError, ValueError, AttributeError, CardCodeError) as error:
        raise SnapshotError(f"not a table state ({type(error).__name__}: {error})") from None


def earlier_codes(cards: object) -> list[str]:
    """An earlier shoe's dealt order as kept: its codes in one string (``ASKDTH``), or, in a checkpoint written
    before that, a list of codes."""
    if isinstance(cards, str):
        if len(cards) % 2:
            raise ValueError(f"an earlier shoe's cards {cards[:12]!r}... are not two characters each")
        return [cards[index:index + 2] for index in range(0, len(cards), 2)]
    if isinstance(cards, list):
        return [str(code) for code in cards]
    raise TypeError(f"an earlier shoe's cards are {type(cards).__name__}, expected text")


def _restore_into(table: Table, data: Mapping[str, Any]) -> None:
    if data.get("format") != FORMAT:
        raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
    table.shoe_number = _int(data["shoe_number"])
    table.manual_slots = {State[name] for name in data["manual_slots"]}
    table.slots_dealt = [State[name] for name in data["slots_dealt"]]
    table.cut_out = _bool(data["cut_out"])
    table.reader_online = _bool(data["reader_online"])
    table.rounds_dealt = _int(data["rounds_dealt"])
    table.rounds_voided = _int(data["rounds_voided"])
    table.misdeal = _misdeal_from(data["misdeal"])
    round_data = data["round"]
    model = table.model
    model.player = _cards(round_data["player"])
    model.banker = _cards(round_data["banker"])
    model.burn_remaining = _int(round_data["burn_remaining"])
    model.round_number = _int(round_data["round_number"])
    model.last_round = None if round_data["last_round"] is None else _int(round_data["last_round"])
    resume = round_data["resume_state"]
    model.resume_state = None if resume is None else State[resume]
    for shoe, cards in data["earlier_shoes"]:
        table.archive.add_shoe(_int(shoe), earlier_codes(cards))
    table.ledger = _ledger_from(table.new_ledger(), data["ledger"])
    table.ledger.property_findings = _findings_from(data.get("property_findings", []))
    alerts = data["alerts"]
    table.alerts.raised = _int(alerts["raised"])
    for alert in alerts["open"]:
        table.alerts._open[str(alert["id"])] = cast(AlertEvent, dict(alert))
    table.alerts._closed = {str(alert_id) for alert_id in alerts["closed"]}
    table.revealed = _int(data["reveal"]["revealed"])
    table.result_due = _bool(data["reveal"]["result_due"])
    table.machine.set_state(State[data["state"]])
    table.undo = UndoBook.from_data(data.get("undo"))
    auth = data.get("auth")
    if (auth is None) != (table.gate is None):
        raise ValueError("the badge settings ([auth] enabled) differ from the snapshot's")
    if auth is not None and table.gate is not None:
        authority = table.gate.authority
        dealer = auth["dealer"]
        authority._dealer = None if dealer is None else Badge(str(dealer["uid"]), str(dealer["name"]),
                                                              dealer["role"])
        authority._signed_in_at = _float_or_none(auth["signed_in_at"])
        authority._last_activity = _float_or_none(auth["last_activity"])
        pending = auth["pending"]
        if pending is None:
            table.gate.pending = None
        else:
            held = pending["misdeal"]
            table.gate.pending = (Input.from_dict(pending["input"]), str(pending["needed"]),
                                  table.misdeal if held == "pending" else _misdeal_from(held))


def _misdeal(misdeal: Misdeal | None) -> dict[str, Any] | None:
    if misdeal is None:
        return None
    return {
        "kind": misdeal.kind, "round": misdeal.round, "card": misdeal.card,
        "detail": {"id": misdeal.detail.id, "text": misdeal.detail.text, "params": dict(misdeal.detail.params)},
        "instruction": misdeal.instruction, "resolutions": list(misdeal.resolutions),
        "supervisor": list(misdeal.supervisor), "held": [list(held) for held in misdeal.held],
        "replaces_due_card": misdeal.replaces_due_card,
        "exposed": misdeal.exposed.code if misdeal.exposed is not None else None,
        "exposed_manual": misdeal.exposed_manual,
    }


def _misdeal_from(data: Mapping[str, Any] | None) -> Misdeal | None:
    if data is None:
        return None
    exposed = data["exposed"]
    return Misdeal(
        kind=str(data["kind"]), round=_int(data["round"]), card=data["card"], detail=_message_from(data["detail"]),
        instruction=str(data["instruction"]), resolutions=[str(r) for r in data["resolutions"]],
        supervisor=[str(r) for r in data["supervisor"]],
        held=[(str(read), str(what)) for read, what in data["held"]],
        replaces_due_card=_bool(data["replaces_due_card"]),
        exposed=None if exposed is None else parse_card(exposed),
        exposed_manual=_bool(data["exposed_manual"]),
    )


def _ledger(ledger: ShoeLedger) -> dict[str, Any]:
    monitor = ledger.monitor
    return {
        "inventory": dict(sorted(ledger.inventory.items())),
        "seen_total": ledger.seen_total,
        "burned": list(ledger.burned),
        "discarded": list(ledger.discarded),
        "dealt": ledger.dealt,
        "unidentified": ledger.unidentified,
        "foreign": list(ledger.foreign),
        "results": [dict(result) for result in ledger.results],
        "stats": dict(sorted(ledger.stats.items())),
        "shown": dict(sorted(ledger.shown.items())),
        "sequence": {
            "cards": list(ledger.sequence.cards),
            "previous_log_probabilities": list(ledger.sequence.previous_log_probabilities),
            "runs": [[at, start, log_probability] for at, (start, log_probability) in ledger.sequence.runs.items()],
            "alerted": sorted(ledger.sequence.alerted),
        },
        "monitor": {
            "previous": monitor.previous.code if monitor.previous is not None else None,
            "probabilities": list(monitor.probabilities),
            "expected": monitor.expected,
            "hits": monitor.hits,
            "score": monitor.score,
            "lowest": monitor.lowest,
            "alerted": monitor.alerted,
        },
    }


def _ledger_from(ledger: ShoeLedger, data: Mapping[str, Any]) -> ShoeLedger:
    ledger.inventory = Counter({str(code): _int(count) for code, count in data["inventory"].items()})
    ledger.seen_total = _int(data["seen_total"])
    ledger.burned = [str(code) for code in data["burned"]]
    ledger.discarded = [str(code) for code in data["discarded"]]
    ledger.dealt = _int(data["dealt"])
    ledger.unidentified = _int(data["unidentified"])
    ledger.foreign = [str(code) for code in data["foreign"]]
    ledger.results = [cast(ResultEvent, dict(result)) for result in data["results"]]
    ledger.stats = Counter({str(key): _int(count) for key, count in data["stats"].items()})
    ledger.shown = Counter({str(code): _int(count) for code, count in data["shown"].items()})
    sequence, sequence_data = ledger.sequence, data["sequence"]
    sequence.cards = [str(code) for code in sequence_data["cards"]]
    earlier, last = sequence_data["previous_log_probabilities"]
    sequence.previous_log_probabilities = (float(earlier), float(last))
    sequence.runs = {_int(at): (_int(start), float(log_probability))
                     for at, start, log_probability in sequence_data["runs"]}
    sequence.alerted = {_int(number) for number in sequence_data["alerted"]}
    monitor_data = data["monitor"]
    monitor = ledger.monitor
    previous = monitor_data["previous"]
    monitor.previous = None if previous is None else parse_card(previous)
    monitor.probabilities = [float(p) for p in monitor_data["probabilities"]]
    monitor.expected = float(monitor_data["expected"])
    monitor.hits = _int(monitor_data["hits"])
    monitor.score = float(monitor_data["score"])
    monitor.lowest = float(monitor_data["lowest"])
    monitor.alerted = _bool(monitor_data["alerted"])
    return ledger


def _findings_from(data: list[Any]) -> dict[FindingKey, str]:
    """The property findings given this shoe (a snapshot written before the table kept them has none)."""
    findings: dict[FindingKey, str] = {}
    for site, table, shoe, start, earlier_start, alert_id in data:
        findings[(str(site), str(table), _int(shoe), _int(start), _int(earlier_start))] = str(alert_id)
    return findings


def _message_from(data: Mapping[str, Any]) -> Message:
    params = data["params"]
    if not isinstance(params, dict) or not all(isinstance(value, int | str) for value in params.values()):
        raise TypeError(f"{params!r} are not a message's parameters")
    return Message(str(data["id"]), str(data["text"]), {str(key): value for key, value in params.items()})


def _cards(codes: list[str]) -> list[Card]:
    return [parse_card(code) for code in codes]


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


def _float_or_none(value: Any) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a number")
    return float(value)
