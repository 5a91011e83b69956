"""A message for a person: a stable id, its English text and its parameters, built without translating.

The core builds :class:`Message` values with :func:`message`; text for people is made from them where it is
shown (:mod:`controller.i18n.catalogue`). ``pybabel extract`` finds every ``message("id", "text")`` call
(the id is the gettext context, the English text the msgid; see ``babel.cfg``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

Param: TypeAlias = "str | int | Message"
"""A parameter's value: a number, a machine word (a card code, a slot) or a message worded in the same language
(a reason inside the error that frames it); never a sentence in English."""


@dataclass(frozen=True, slots=True)
class Message:
    """What to tell a person, before translation."""

    id: str
    """The stable id (``say_id`` in the event stream)."""
    text: str
    """The English text, with ``{name}`` placeholders for :attr:`params`."""
    params: dict[str, Param] = field(default_factory=dict)

    def english(self) -> str:
        """The message in the source language."""
        return self.text.format(**{name: value.english() if isinstance(value, Message) else value
                                   for name, value in self.params.items()})


def message(msg_id: str, text: str, /, **params: Param) -> Message:
    """The message ``msg_id`` (English ``text``, ``{name}`` placeholders filled from ``params``)."""
    return Message(msg_id, text, dict(params))
