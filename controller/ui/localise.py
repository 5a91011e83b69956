"""The table's language on the way out: events re-worded from their ``say_id`` and ``say_params``.

The core emits English texts with their message ids (``controller/i18n/message.py``); the journal keeps
them so. What a person reads (the transcript, the JSON stream's ``say``/``detail``/``instruction``, the
console) passes through :class:`Localiser` first. Machine fields are never changed; a machine word a text
names (a misdeal's or an alert's ``kind``) is worded, in the source language too (:mod:`controller.i18n.kinds`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from config.schema import Settings
from controller.core.events import UNSET, Event, MisdealEvent, SayParams
from controller.core.exceptions import ConfigError
from controller.core.misdeals import HALT, WHILE_HALTED, instruction
from controller.i18n.catalogue import Catalogue, CatalogueError
from controller.i18n.kinds import worded_params
from controller.i18n.message import Message

Sink = Callable[[list[Event]], None]
SAY_FIELD = {"cut_card": "detail", "alert": "detail", "alert_updated": "detail", "alert_cleared": "reason",
             "misdeal": "detail"}
"""Events whose ``say_id`` words a field other than ``say``."""


def table_catalogue(settings: Settings, language: str | None = None) -> Catalogue:
    """The catalogue of ``language`` (``--lang``) or ``[table] language``, with ``[table] messages_dir``'s
    overrides; a bad language or house file is a :class:`ConfigError` naming it."""
    try:
        return Catalogue(language or settings.table.language, settings.table.messages_dir or None)
    except CatalogueError as error:
        raise ConfigError(error.message or str(error)) from None


class Localiser:
    """Events with their human texts in one catalogue's language."""

    def __init__(self, catalogue: Catalogue,
                 shown: Callable[[dict[str, str | int]], dict[str, str | int]] | None = None) -> None:
        self.catalogue = catalogue
        self.shown = shown
        """How a screen shows the parameters (the console: a ``card`` as J♥); None: as the core gave them."""

    def text(self, msg_id: str, params: dict[str, str | int], fallback: str) -> str:
        """The message ``msg_id`` in this language; ``fallback`` (the event's own text) for an unknown id."""
        english = self.catalogue.english_text(msg_id)
        if english is None:
            return fallback
        if msg_id == HALT.id:
            return instruction(str(params.get("resolutions", "")).split(), self.catalogue.text)
        params = worded_params(params, self.catalogue)  # a new dict, the event's own left as it is
        return self.catalogue.text(Message(msg_id, english, self.shown(params) if self.shown else params))

    def event(self, event: Event) -> Event:
        """``event`` with ``say`` (or ``detail``) and a misdeal's ``instruction`` in this language (a new event;
        ``event`` stays as the core gave it)."""
        msg_id = getattr(event, "say_id", UNSET)
        if not isinstance(msg_id, str):
            return event
        field = SAY_FIELD.get(event.event, "say")
        params: SayParams = getattr(event, "say_params", None) or {}
        reason_id = getattr(event, "reason_id", UNSET)
        if isinstance(reason_id, str):
            params = {**params, "reason": self.text(reason_id, getattr(event, "reason_params", None) or {},
                                                    event["reason"])}
        said = getattr(event, field, UNSET)
        changes: dict[str, Any] = {field: self.text(msg_id, params, "" if said is UNSET else said)}
        if isinstance(event, MisdealEvent):
            if event.while_halted:
                changes[field] = self.catalogue.text(Message(WHILE_HALTED.id, WHILE_HALTED.text,
                                                             {"detail": changes[field]}))
            changes["instruction"] = instruction(event.resolutions, self.catalogue.text)
        return msgspec.structs.replace(event, **changes)

    def wrap(self, sink: Sink) -> Sink:
        """``sink``, fed the events in this language (``sink`` itself in the source language with no house words:
        the core's texts are already that)."""
        if self.catalogue.is_source and self.shown is None:
            def kinds_worded(events: list[Event]) -> None:
                if any(map(_names_a_kind, events)):
                    sink([self.event(event) if _names_a_kind(event) else event for event in events])
                else:
                    sink(events)  # most batches: no text names a kind, so the batch goes on as it came
            return kinds_worded

        def worded(events: list[Event]) -> None:
            sink([self.event(event) for event in events])
        return worded


PARAMS_FIELDS = ("say_params", "reason_params")
"""The fields that hold the parameters of an event's texts."""
_params_fields: dict[type, tuple[str, ...]] = {}
"""Each event type seen and those of :data:`PARAMS_FIELDS` it declares (most types declare none)."""


def _names_a_kind(event: Event) -> bool:
    """Does ``event``'s text name a misdeal's or an alert's kind (a machine word the source language words too)?"""
    fields = _params_fields.get(type(event))
    if fields is None:
        fields = _params_fields[type(event)] = tuple(name for name in PARAMS_FIELDS
                                                     if name in type(event).__struct_fields__)
    for name in fields:
        params = getattr(event, name)
        if isinstance(params, dict) and "kind" in params:
            return True
    return False
