"""A table's state as plain data, and back: the pure function pair behind the journal's checkpoints.

:func:`snapshot` gives everything a :class:`~controller.core.table.Table` holds between two inputs
as JSON-ready data (lists, dicts, strings, numbers); :func:`restore` builds, from the same settings,
a table that continues exactly as the original would: the same inputs give the same events. Nothing
here reads a clock, a file or the environment. The settings are not part of the snapshot (the journal
header keeps them); the approval gate's clock always reads 0 in the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

import msgspec

from config.schema import Badge, Settings
from controller.core.alerts import AlertBook
from controller.core.approvals import GateState, Pending
from controller.core.auth import Sign
from controller.core.cards import Card, parse_card
from controller.core.chain import Chain
from controller.core.editions import CURRENT, Edition
from controller.core.events import AlertEvent, Event, EventShapeError, ResultEvent, decode_event, to_builtins
from controller.core.exceptions import CardCodeError, SnapshotError
from controller.core.gram_index import CARD_NUMBERS
from controller.core.inputs import Input
from controller.core.ledger import ShoeLedger, Stats, as_mapping
from controller.core.machine import RoundState, State
from controller.core.misdeals import Misdeal
from controller.core.property_check import FindingKey
from controller.core.sequence_check import SequenceArchive, SequenceState
from controller.core.shuffle_check import ShuffleScore
from controller.core.state import Context, TableState
from controller.core.table import Table
from controller.core.undo import UndoBook, UndoPoint, stored_refusal
from controller.i18n.message import Message
from controller.terms import MISDEAL_KINDS, RESOLUTIONS

FORMAT = 2
"""The snapshot's own format number (kept in it, checked on restore). 2: alerts, reveals, the sequence
archive and monitor, the cards shown; since then also the undo book (``undo``; a snapshot without one has
nothing to undo) and the property check's findings given this shoe (``property_findings``, each
``[site, table, shoe, start, earlier_start, alert id]``; a snapshot without them has none: a resume from
one learns them from its shoe's journaled alerts); the advantage alert that follows each bet whose
advantage lasts (``advantages``, bet -> alert id; a snapshot without them follows none: it was written under
the earlier edition, which follows no advantage); with ``[procedures] count_every``, the rounds over since the
stub was last counted (``round.uncounted``, written only when not 0: a snapshot without it has none); and the badge
gate's refusals and lock (``auth.refused``, ``auth.locked``; none in a snapshot from before them)."""

def snapshot(table: Table) -> dict[str, Any]:
    """The state of ``table`` between two inputs, as JSON-ready data."""
    return state_data(table.value)


def state_data(value: TableState, with_undo: bool = True) -> dict[str, Any]:
    """A table's state as JSON-ready data (``with_undo``: with its undo book)."""
    round_state = value.round
    ledger = value.ledger
    data: dict[str, Any] = {
        "format": FORMAT,
        "state": value.state.name,
        "shoe_number": value.shoe_number,
        "manual_slots": sorted(state.name for state in value.manual_slots),
        "slots_dealt": [state.name for state in value.slots_dealt],
        "cut_out": value.cut_out,
        "reader_online": value.reader_online,
        "rounds_dealt": value.rounds_dealt,
        "rounds_voided": value.rounds_voided,
        "misdeal": _misdeal(value.misdeal),
        "round": {
            "player": [card.code for card in round_state.player],
            "banker": [card.code for card in round_state.banker],
            "burn_remaining": round_state.burn_remaining,
            "round_number": round_state.number,
            "last_round": round_state.last_round,
            "resume_state": round_state.state.name if value.misdeal is not None else None,
            **({"uncounted": round_state.uncounted} if round_state.uncounted else {}),
        },
        "ledger": _ledger(ledger),
        "alerts": {"raised": value.alerts.raised, "open": to_builtins(list(value.alerts.open)),
                   "closed": sorted(value.alerts.closed)},
        "reveal": {"revealed": value.revealed, "result_due": value.result_due},
        "earlier_shoes": [[reference.shoe, "".join(reference.cards)] for reference in value.archive.references
                          if reference.order == "dealt"],
        "property_findings": [[*key, alert_id] for key, alert_id in sorted(ledger.property_findings.items())],
        "earlier": _stats(value.earlier),
        "advantages": dict(sorted(value.alerts.advantages.items())),
    }
    if value.closed_early:
        data["closed_early"] = True
    if with_undo:
        data["undo"] = _undo(value.undo)
    gate = value.gate
    if gate is not None:
        sign, pending = gate.sign, gate.pending
        dealer = sign.dealer
        data["auth"] = {
            "dealer": None if dealer is None else {"uid": dealer.uid, "name": dealer.name, "role": dealer.role},
            "signed_in_at": sign.signed_in_at,
            "last_activity": sign.last_activity,
            "refused": list(gate.refused),
            "locked": gate.locked,
            "pending": None if pending is None else {
                "input": pending.input.to_dict(), "needed": pending.action,
                # the gate holds the table's own misdeal (it lapses when that one is no longer pending)
                "misdeal": "pending" if pending.misdeal is not None and value.misdeal is not None
                and pending.misdeal.serial == value.misdeal.serial else _misdeal(pending.misdeal)},
        }
    return data


def restore(settings: Settings, data: Mapping[str, Any], edition: Edition = CURRENT) -> Table:
    """A table with ``settings`` (dealing under ``edition``) in the state ``data`` (from :func:`snapshot`) describes.

    Raises :class:`SnapshotError` when ``data`` is not such a state.
    """
    table = Table(settings, edition)
    restore_into(table, data)
    return table


def restore_into(table: Table, data: Mapping[str, Any]) -> None:
    """Put ``table`` (fresh, with the snapshot's settings) in the state ``data`` describes; the pure
    in-place form of :func:`restore`, for a table others already hold. Raises :class:`SnapshotError`."""
    try:
        table.value = state_from(table.context, data)
    except (KeyError, TypeError, ValueError, AttributeError, CardCodeError, EventShapeError) as error:
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


def state_from(context: Context, data: Mapping[str, Any], undo: bool = True) -> TableState:
    """The state ``data`` describes, for a table with ``context``."""
    if data.get("format") != FORMAT:
        raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
    misdeal = _misdeal_from(data["misdeal"], 1)
    round_data = data["round"]
    phase = State[data["state"]]
    if phase is State.HALTED:
        resume = round_data["resume_state"]
        if resume is None or misdeal is None:
            raise ValueError("a halted state without its misdeal and the state it resumes to")
        phase = State[resume]
    elif misdeal is not None:
        raise ValueError(f"a pending misdeal in state {phase.name}, which is not halted")
    round_state = RoundState(phase, _int(round_data["round_number"]), tuple(_cards(round_data["player"])),
                             tuple(_cards(round_data["banker"])), _int(round_data["burn_remaining"]),
                             None if round_data["last_round"] is None else _int(round_data["last_round"]),
                             _int(round_data.get("uncounted", 0)))
    archive = SequenceArchive(context.decks)
    for shoe, cards in data["earlier_shoes"]:
        archive.add_shoe(_int(shoe), earlier_codes(cards))
    findings = _findings_from(data.get("property_findings", []))
    ledger = _ledger_from(context.new_ledger(archive), data["ledger"], findings)
    alerts = data["alerts"]
    book = AlertBook(_int(alerts["raised"]), tuple(_event(alert, AlertEvent) for alert in alerts["open"]),
                     frozenset(str(alert_id) for alert_id in alerts["closed"]),
                     {str(bet): str(alert_id) for bet, alert_id in data.get("advantages", {}).items()})
    value = TableState(
        round_state, ledger, archive, _int(data["shoe_number"]), misdeal, 1 if misdeal is not None else 0,
        tuple(State[name] for name in data["slots_dealt"]), frozenset(State[name] for name in data["manual_slots"]),
        _bool(data["cut_out"]), _bool(data["reader_online"]), _int(data["rounds_dealt"]),
        _int(data["rounds_voided"]), _int(data["reveal"]["revealed"]), _bool(data["reveal"]["result_due"]),
        book, _gate_from(context, data.get("auth"), misdeal))
    if undo:
        value = msgspec.structs.replace(value, undo=_undo_from(context, data.get("undo")))
    if "earlier" in data:
        value = msgspec.structs.replace(value, earlier=_stats_from(data["earlier"]))
    if data.get("closed_early"):
        value = msgspec.structs.replace(value, closed_early=True)
    return value


def _stats(stats: Stats) -> dict[str, int]:
    return {name: count for name, count in sorted(msgspec.structs.asdict(stats).items()) if count}


def _stats_from(data: Mapping[str, Any]) -> Stats:
    return Stats(**{str(key): _int(count) for key, count in data.items()})


def _gate_from(context: Context, auth: Any, misdeal: Misdeal | None) -> GateState | None:
    if (auth is None) != (not context.auth):
        raise ValueError("the badge settings ([auth] enabled) differ from the snapshot's")
    if auth is None:
        return None
    dealer = auth["dealer"]
    badge = None if dealer is None else Badge(str(dealer["uid"]), str(dealer["name"]), dealer["role"])
    sign = Sign(badge, _float_or_none(auth["signed_in_at"]), _float_or_none(auth["last_activity"]))
    refused = tuple(float(moment) for moment in auth.get("refused", ()))  # none in a snapshot from before lockouts
    locked = auth.get("locked", False)
    if not isinstance(locked, bool):
        raise TypeError("locked is true or false")
    pending = auth["pending"]
    if pending is None:
        return GateState(sign, None, refused, locked)
    held = pending["misdeal"]
    return GateState(sign, Pending(Input.from_dict(pending["input"]), str(pending["needed"]),
                                   misdeal if held == "pending" else _misdeal_from(held, 0)), refused, locked)


def _undo(book: UndoBook | None) -> dict[str, Any]:
    book = book or UndoBook()
    refusal = book.refusal
    point = book.point
    return {"point": None if point is None else {"input": point.input, "round": point.round, "slot": point.slot,
                                                 "card": point.card, "state": state_data(point.state, False)},
            "why_not": refusal.english(),
            "why_not_say": {"id": refusal.id, "text": refusal.text, "params": dict(refusal.params)}}


def _undo_from(context: Context, data: Mapping[str, Any] | None) -> UndoBook:
    """The book :func:`_undo` gave (a snapshot without one: nothing to undo)."""
    if data is None:
        return UndoBook()
    point = data["point"]
    if point is None:
        return UndoBook(None, stored_refusal(data))
    slot, card = point["slot"], point["card"]
    if not isinstance(point["round"], int) or not isinstance(point["state"], dict):
        raise TypeError(f"{point!r} is not an undo point")
    return UndoBook(UndoPoint(str(point["input"]), point["round"], None if slot is None else str(slot),
                              None if card is None else str(card), state_from(context, point["state"], undo=False)),
                    stored_refusal(data))


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


def _misdeal_from(data: Mapping[str, Any] | None, serial: int) -> Misdeal | None:
    if data is None:
        return None
    exposed = data["exposed"]
    return Misdeal.of(
        _one_of(data["kind"], MISDEAL_KINDS), _int(data["round"]), data["card"], _message_from(data["detail"]),
        str(data["instruction"]), [_one_of(r, RESOLUTIONS) for r in data["resolutions"]],
        supervisor=[_one_of(r, RESOLUTIONS) for r in data["supervisor"]],
        held=[(str(read), str(what)) for read, what in data["held"]],
        replaces_due_card=_bool(data["replaces_due_card"]),
        exposed=None if exposed is None else parse_card(exposed),
        exposed_manual=_bool(data["exposed_manual"]), serial=serial,
    )


def _ledger(ledger: ShoeLedger) -> dict[str, Any]:
    shuffle = ledger.shuffle
    sequence = ledger.sequence
    return {
        "inventory": dict(sorted(as_mapping(ledger.inventory_counts).items())),
        "seen_total": ledger.seen_total,
        "burned": list(ledger.burned),
        "discarded": list(ledger.discarded),
        "dealt": ledger.dealt,
        "unidentified": ledger.unidentified,
        "foreign": list(ledger.foreign),
        "results": to_builtins(list(ledger.results)),
        "stats": _stats(ledger.stats),
        "shown": dict(sorted(as_mapping(ledger.shown_counts).items())),
        "sequence": {
            "cards": list(sequence.cards),
            "previous_log_probabilities": list(sequence.previous_log_probabilities),
            "runs": [[at, start, log_probability] for at, (start, log_probability) in sequence.runs.items()],
            "alerted": sorted(sequence.alerted),
        },
        "monitor": {
            "previous": shuffle.previous.code if shuffle.previous is not None else None,
            "probabilities": list(shuffle.probabilities),
            "expected": shuffle.expected,
            "hits": shuffle.hits,
            "score": shuffle.score,
            "lowest": shuffle.lowest,
            "alerted": shuffle.alerted,
        },
    }


def _counts(data: Mapping[str, Any]) -> tuple[int, ...]:
    counts = [0] * 52
    for code, count in data.items():
        counts[CARD_NUMBERS[str(code)]] += _int(count)
    return tuple(counts)


def _ledger_from(ledger: ShoeLedger, data: Mapping[str, Any], findings: dict[FindingKey, str]) -> ShoeLedger:
    sequence_data = data["sequence"]
    earlier, last = sequence_data["previous_log_probabilities"]
    sequence = SequenceState.of([str(code) for code in sequence_data["cards"]], (float(earlier), float(last)),
                                {_int(at): (_int(start), float(log_probability))
                                 for at, start, log_probability in sequence_data["runs"]},
                                frozenset(_int(number) for number in sequence_data["alerted"]))
    monitor = data["monitor"]
    previous = monitor["previous"]
    shuffle = ShuffleScore(None if previous is None else parse_card(previous),
                           Chain(float(p) for p in monitor["probabilities"]), float(monitor["expected"]),
                           _int(monitor["hits"]), float(monitor["score"]), float(monitor["lowest"]),
                           _bool(monitor["alerted"]))
    stats = {str(key): _int(count) for key, count in data["stats"].items()}
    return msgspec.structs.replace(
        ledger, inventory_counts=_counts(data["inventory"]), seen_total=_int(data["seen_total"]), shuffle=shuffle,
        sequence=sequence, burned=Chain(str(code) for code in data["burned"]),
        discarded=Chain(str(code) for code in data["discarded"]), dealt=_int(data["dealt"]),
        unidentified=_int(data["unidentified"]), foreign=Chain(str(code) for code in data["foreign"]),
        results=Chain(_event(result, ResultEvent) for result in data["results"]), stats=Stats(**stats),
        property_findings=findings, shown_counts=_counts(data["shown"]))


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


Word = TypeVar("Word", bound=str)
Kind = TypeVar("Kind", bound=Event)


def _event(raw: Any, kind: type[Kind]) -> Kind:
    event = decode_event(raw)
    if not isinstance(event, kind):
        raise TypeError(f"{raw!r:.80} is not a {kind.__name__}")
    return event


def _one_of(value: Any, words: tuple[Word, ...]) -> Word:
    if value not in words:
        raise ValueError(f"{value!r} is not one of {', '.join(words)}")
    return cast(Word, value)


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
