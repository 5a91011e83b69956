"""A message for a person: a stable id, its English text and its parameters, built without translating.

The core builds :class:`Message` values with :func:`message`; text for people is made from them where it is
shown (:mod:`controller.i18n.catalogue`). ``pybabel extract`` finds every ``message("id", "text")`` call
(the id is the gettext context, the English text the msgid; see ``babel.cfg``).
"""

from __future__ import annotations

from typing import TypeAlias, cast

import msgspec

Param: TypeAlias = str | int
"""A parameter's value: a number or a machine word (a card code, a slot); never a sentence in English."""


class Message(msgspec.Struct, frozen=True):
    """What to tell a person, before translation."""

    id: str
    """The stable id (``say_id`` in the event stream)."""
    text: str
    """The English text, with ``{name}`` placeholders for :attr:`params`."""
    params: dict[str, Param] = msgspec.field(default_factory=dict)
    parts: dict[str, Message] = msgspec.field(default_factory=dict)
    """Placeholders filled with other messages, worded in the same language (a reason inside the error that
    frames it); not in the event stream's ``say_params``."""

    def english(self) -> str:
        """The message in the source language."""
        parts = self.parts
        if not parts:
            return self.text.format(**self.params)
        return self.text.format(**self.params, **{name: part.english() for name, part in parts.items()})


def message(msg_id: str, text: str, /, **params: Param | Message) -> Message:
    """The message ``msg_id`` (English ``text``, ``{name}`` placeholders filled from ``params``; a parameter that
    is a message is worded in the language of the one it is in)."""
    for value in params.values():
        if isinstance(value, Message):
            break
    else:
        return Message(msg_id, text, cast("dict[str, Param]", params))
    return Message(msg_id, text, {name: value for name, value in params.items() if not isinstance(value, Message)},
                   {name: value for name, value in params.items() if isinstance(value, Message)})
