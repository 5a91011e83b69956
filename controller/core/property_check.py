"""The property check: this shoe compared with the shoes of the other tables at the property.

The table's own shoes are compared in the core (:mod:`controller.core.sequence_check`). The
property's other shoes live in the floor archive, which the core cannot read: the app layer loads
them, compares each card with them through the same pure :class:`SequenceMonitor`, and when a run
becomes implausible gives the table a ``PROPERTY_REPEAT`` input holding the finding
(:meth:`PropertyRepeat.to_text`). The input is journaled like every other, so a replay raises the
same alert without the database. This module is the pure part: the earlier shoes, their archive,
the finding and its alert.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import msgspec

from controller.core.alerts import severity_of
from controller.core.events import AlertEvent, Event
from controller.core.sequence_check import (
    Reference,
    SequenceArchive,
    SequenceMonitor,
    SequenceRepeat,
    false_alarm_budgets,
)
from controller.i18n.message import Message, message

FindingKey = tuple[str, str, int, int, int]
"""A finding's identity in its shoe: the earlier shoe (site, table, number), where the run starts in this shoe
and where in the earlier one. The table keeps the keys of the findings it was given this shoe
(``ShoeLedger.property_findings``) and refuses one it holds, so a finding opens one alert at most."""


class FindingError(ValueError):
    """A ``PROPERTY_REPEAT`` input's text that is no finding; :attr:`reason` says why, as a message."""

    def __init__(self, reason: Message) -> None:
        super().__init__(reason.english())
        self.reason = reason


class PropertyShoe(msgspec.Struct, frozen=True, gc=False):
    """One earlier shoe of another table at the property: where it was dealt and its dealt order."""

    site: str
    table: str
    shoe: int
    cards: tuple[str, ...]


class PropertyArchive:
    """The property's earlier shoes as references (no factory order: the table compares with that)."""

    def __init__(self, decks: int, shoes: list[PropertyShoe]) -> None:
        self.archive = SequenceArchive(decks, factory=False)
        self._shoes: dict[int, PropertyShoe] = {}
        for shoe in shoes:
            reference = Reference(shoe.shoe, "dealt", shoe.cards)
            self.archive.add_reference(reference)
            self._shoes[id(reference)] = shoe

    @property
    def shoes(self) -> int:
        """How many earlier shoes are compared with."""
        return len(self._shoes)

    def monitor(self, decks: int) -> SequenceMonitor:
        """A monitor comparing one new shoe with every shoe of the property (its share of the false-alarm bound
        over all alignments)."""
        return SequenceMonitor(self.archive, decks, false_alarm_budgets(True)[1])

    def finding(self, repeat: SequenceRepeat) -> PropertyRepeat:
        """The finding for ``repeat``, a run found by :meth:`monitor`, naming the earlier shoe's table."""
        shoe = self._shoes[id(repeat.reference)]
        return PropertyRepeat(shoe.site, shoe.table, shoe.shoe, repeat.start, repeat.earlier_start,
                              repeat.length, repeat.probability, repeat.threshold)


class PropertyRepeat(msgspec.Struct, frozen=True, gc=False):
    """A run of this shoe repeating a shoe dealt at another table, implausible under a random shuffle."""

    site: str
    table: str
    shoe: int
    """The earlier shoe's number at its table."""
    start: int
    """Where the run starts in this shoe (1 = its first identified card)."""
    earlier_start: int
    """Where it starts in the earlier shoe."""
    length: int
    probability: float
    threshold: float

    @property
    def key(self) -> FindingKey:
        """This finding's identity in its shoe (:data:`FindingKey`)."""
        return (self.site, self.table, self.shoe, self.start, self.earlier_start)

    def to_text(self) -> str:
        """The finding as the ``PROPERTY_REPEAT`` input's text (compact JSON, no spaces)."""
        return json.dumps(msgspec.structs.asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_text(cls, text: str) -> PropertyRepeat:
        """The finding :meth:`to_text` wrote; raises :class:`FindingError` (a :class:`ValueError`) for anything
        else."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError):
            raise FindingError(message("rejected.property.not_json", "not a property check finding (not JSON)")) \
                from None
        if not isinstance(data, dict) or set(data) != set(cls.__struct_fields__):
            raise FindingError(message("rejected.property.fields", "not a property check finding (expected the "
                                       "fields {fields})", fields=", ".join(cls.__struct_fields__)))
        for name in ("site", "table"):
            if not isinstance(data[name], str):
                raise FindingError(message("rejected.property.not_text", "not a property check finding ({field} is "
                                           "not text)", field=name))
        for name in ("shoe", "start", "earlier_start", "length"):
            if not isinstance(data[name], int) or isinstance(data[name], bool) or data[name] < 1:
                raise FindingError(message("rejected.property.not_positive", "not a property check finding ({field} "
                                           "is not a positive whole number)", field=name))
        for name in ("probability", "threshold"):
            if not isinstance(data[name], int | float) or isinstance(data[name], bool):
                raise FindingError(message("rejected.property.not_number", "not a property check finding ({field} "
                                           "is not a number)", field=name))
        return cls(**data)


def findings_in(events: Iterable[Event], shoe: int) -> dict[FindingKey, str]:
    """The findings the property check gave shoe ``shoe``, as the alerts among ``events`` name them, each with
    its alert's id (for a checkpoint written before the table kept them: its shoe's journaled events)."""
    found: dict[FindingKey, str] = {}
    for alert in events:
        if isinstance(alert, AlertEvent) and alert.kind == "sequence_repeat" and alert.shoe == shoe \
                and isinstance(alert.earlier_table, str) and isinstance(alert.earlier_site, str) \
                and isinstance(alert.earlier_shoe, int) and isinstance(alert.start, int) \
                and isinstance(alert.earlier_start, int):
            key = (alert.earlier_site, alert.earlier_table, alert.earlier_shoe, alert.start, alert.earlier_start)
            found.setdefault(key, alert.id)
    return found


def property_off_alert(reason: str, shoe: int, round_number: int, alert_id: str) -> AlertEvent:
    """The ``alert`` event ``alert_id`` (``kind: "property_check_off"``): the archive cannot be read (``reason``)."""
    detail = message("alert.property_check_off",
                     "The property check is off: the floor archive cannot be read ({reason}). This table's own "
                     "shoes are still compared; the other tables' shoes are not until the archive can be read "
                     "(tried again at the next shoe). Call the floor supervisor", reason=reason)
    return AlertEvent(id=alert_id, kind="property_check_off", severity=severity_of("property_check_off"), shoe=shoe,
                      round=round_number, detail=detail.english(), say_id=detail.id, say_params=detail.params)


def property_alert(repeat: PropertyRepeat, shoe: int, round_number: int, alert_id: str) -> AlertEvent:
    """The ``alert`` event ``alert_id`` (``kind: "sequence_repeat"``) for ``repeat``, found in ``shoe``."""
    detail = message("alert.sequence_repeat.property",
                     "{length} cards from card {start} of shoe {shoe} repeat, in the same order, the dealt order "
                     "of shoe {earlier_shoe} of table {earlier_table} at {earlier_site} from its card "
                     "{earlier_start}; a random shuffle gives this with probability {probability}. Stop and call "
                     "surveillance: the shoe may have been carried from that table and brought back",
                     length=repeat.length, start=repeat.start, shoe=shoe, earlier_shoe=repeat.shoe,
                     earlier_table=repeat.table, earlier_site=repeat.site, earlier_start=repeat.earlier_start,
                     probability=f"{repeat.probability:.1e}")
    return AlertEvent(
        id=alert_id, kind="sequence_repeat", severity=severity_of("sequence_repeat"), shoe=shoe, round=round_number,
        probability=repeat.probability, threshold=repeat.threshold, earlier_shoe=repeat.shoe,
        earlier_site=repeat.site, earlier_table=repeat.table, order="dealt", start=repeat.start,
        earlier_start=repeat.earlier_start, length=repeat.length, detail=detail.english(), say_id=detail.id,
        say_params=detail.params)
