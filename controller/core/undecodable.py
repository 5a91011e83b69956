"""Text that came in as bytes that are not UTF-8 (a command line's word, an environment variable), shown legibly.

Python holds each such byte as a lone surrogate (``surrogateescape``): it cannot be printed as UTF-8, encoded for
a client library, or kept in a journal. A refusal shows the bytes as ``\\xNN`` instead. Pure text, no I/O.
"""

from __future__ import annotations


def undecodable(text: str) -> str | None:
    """``text`` with each character UTF-8 cannot encode shown as ``\\xNN`` (the byte it escapes) or ``\\udNNN``;
    None when ``text`` is UTF-8 text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(f"\\x{ord(character) - 0xDC00:02x}" if "\udc80" <= character <= "\udcff"
                       else character.encode("utf-8", "backslashreplace").decode("utf-8") for character in text)
    return None


__all__ = ["undecodable"]
