"""The languages Croupier has a catalogue for (``controller/i18n/locales/<code>.po``; a test keeps the two equal)."""

from __future__ import annotations

SOURCE_LANGUAGE = "en"
"""The language of the message texts in the code (the catalogues' msgids)."""

LANGUAGES: tuple[str, ...] = ("en", "ko", "zh_Hant", "zh_Hans", "ja", "es")
"""Every language code accepted by ``[table] language``, ``--lang`` and ``[scoreboard] languages``."""


def language_problem(code: str) -> str | None:
    """Why ``code`` is not a language of the catalogues, or None when it is."""
    if code in LANGUAGES:
        return None
    return f"unknown language {code!r}; expected one of {', '.join(LANGUAGES)}"
