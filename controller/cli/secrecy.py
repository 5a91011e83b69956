"""No command prints a password: the secrets a command was given are masked in anything it says of an error.

:func:`collect` gathers the passwords of the URLs on the command line and in the environment (the MQTT and
PostgreSQL ones), :func:`scrub` masks them in a text, and :func:`guard` makes every traceback (the main
thread's and any other thread's) go through :func:`scrub` before it is printed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading
    from types import TracebackType

SECRET_VARIABLES = ("CROUPIER_MQTT_PASSWORD", "PGPASSWORD", "CROUPIER_FLOOR_WEB_PASSWORD")
"""Environment variables that are a password themselves."""
URL_VARIABLES = ("CROUPIER_FEED_URL", "CROUPIER_PROTECTION_ARCHIVE")
"""Environment variables that hold a URL, maybe with a password."""
MASK = "***"

_secrets: list[str] = []


def collect(words: Iterable[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    """The passwords among ``words`` (a command line) and ``environ``, longest first (the URL parser is imported
    only for a word that may hold one)."""
    found: list[str] = []
    for word in [*words, *(environ.get(name, "") for name in URL_VARIABLES)]:
        if "@" in word or "password=" in word.lower():
            from controller.floor.urls import secrets_in

            found += secrets_in(word)
    found += [environ[name] for name in SECRET_VARIABLES if len(environ.get(name, "")) >= 3]
    return sorted(set(found), key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (:func:`collect`'s, or ``secrets``) masked."""
    for secret in _secrets if secrets is None else secrets:
        text = text.replace(secret, MASK)
    return text


def guard(words: Iterable[str]) -> None:
    """Keep the passwords of ``words`` and the environment out of every traceback from now on."""
    _secrets[:] = collect(words)
    if not _secrets:
        return
    import threading
    import traceback

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        sys.stderr.write(scrub("".join(traceback.format_exception(kind, error, trace))))

    def thread_hook(arguments: threading.ExceptHookArgs) -> None:
        if arguments.exc_value is not None:
            hook(arguments.exc_type, arguments.exc_value, arguments.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook
