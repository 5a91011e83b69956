"""The language of a command's errors and notices: ``--lang``, else ``[table] language`` (the environment's
``CROUPIER_TABLE_LANGUAGE``, then the ``--config`` file's), else English (docs/languages.md).

It is chosen from the words of the command line before argparse reads them, so that argparse's type errors
(:mod:`controller.cli.argtypes`) can be worded too. A language that cannot be known (a bad code, a config file
that cannot be read) leaves the errors in what is known: ``--lang``, else English.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from controller.core.exceptions import CroupierError
from controller.i18n.catalogue import ENGLISH, Catalogue, CatalogueError
from controller.i18n.languages import LANGUAGES
from controller.i18n.message import Message

_current: list[Catalogue] = [ENGLISH]
TABLE_VARIABLES = ("CROUPIER_TABLE_LANGUAGE", "CROUPIER_TABLE_MESSAGES_DIR")
"""The environment variables that can change the language or the words of the default config."""


def option_value(words: Sequence[str], option: str) -> str | None:
    """The value given to ``option`` in ``words`` (``--lang ko`` or ``--lang=ko``; the last one wins)."""
    found: str | None = None
    for index, word in enumerate(words):
        if word == option and index + 1 < len(words):
            found = words[index + 1]
        elif word.startswith(option + "="):
            found = word[len(option) + 1:]
    return found


def choose(words: Sequence[str]) -> Catalogue:
    """The catalogue the command ``words`` speaks, with the house's words of ``[table] messages_dir``."""
    from config.loader import load_config

    lang = option_value(words, "--lang")
    lang = lang if lang in LANGUAGES else None
    config = option_value(words, "--config")
    if config is None and not any(name in os.environ for name in TABLE_VARIABLES):
        return Catalogue(lang) if lang else ENGLISH  # the embedded default: English, no house words
    try:
        settings = load_config(config)
        return Catalogue(lang or settings.table.language, settings.table.messages_dir or None)
    except (CroupierError, CatalogueError):  # the config cannot be read: what is known of the language
        known = lang or os.environ.get("CROUPIER_TABLE_LANGUAGE")
        return Catalogue(known) if known in LANGUAGES else ENGLISH


def use(catalogue: Catalogue) -> None:
    """Make ``catalogue`` the one :func:`words` returns (the command line does, once it knows the language)."""
    _current[0] = catalogue


def reset() -> None:
    """Back to English (the command is done)."""
    _current[0] = ENGLISH


def words() -> Catalogue:
    """The catalogue of the running command's errors and notices (English until :func:`use`)."""
    return _current[0]


def text(worded: Message) -> str:
    """``worded`` in the running command's language."""
    return words().text(worded)


def error_text(error: BaseException) -> str:
    """An error's one line in the running command's language (its English text when it has no message id)."""
    worded = getattr(error, "message", None)
    return text(worded) if isinstance(worded, Message) else str(error)


def of_args(args: object) -> Catalogue:
    """The catalogue of a command's printed text: its ``--lang`` when given (the one :func:`choose` found when
    the command line was read), else the running command's."""
    lang = getattr(args, "lang", None)
    current = words()
    return current if lang is None or lang == current.language else Catalogue(lang)
