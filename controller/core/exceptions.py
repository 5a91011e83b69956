"""Every error Croupier raises on purpose, in one hierarchy.

::

    CroupierError
     +-- ConfigError          a config file, environment variable or option is wrong
     +-- CardCodeError        a text is not a playing-card code
     +-- ScriptError          a shoe script or --cards token is wrong
     +-- DriverError          a card source cannot be opened or read
     |    +-- DriverURLError     a driver URL is malformed or names unknown options
     |    +-- ReaderOfflineError the reader went away (unplugged, daemon stopped)
     +-- FloorError           a floor URL is wrong, or its broker or database cannot be used
     |    +-- FeedError         a feed URL or the [feed] settings are wrong
     |    +-- ArchiveError      the archive's broker or database cannot be reached or used
     +-- SnapshotError        a table snapshot cannot be restored
     +-- JournalError         the journal cannot be written or read
     |    +-- JournalTamperedError  a record or the metadata was changed
     |    +-- JournalDamagedError   the file is damaged (SQLite finds it malformed)
     +-- AuthError            a badge or approval is refused
     +-- RoadsInputError      a result history for the roads cannot be understood
     +-- ScoreboardError      the web scoreboard cannot start

Each message names the input, what was expected and what to do.
"""

from __future__ import annotations

from typing import Any

from controller.i18n.message import Message, message


def install_hint(extra: str) -> Message:
    """How to install the optional ``extra`` (``floor``, ``plot`` ...) from a Croupier checkout: Croupier is not
    on a package index, so ``pip install 'croupier[...]'`` finds nothing."""
    return message("install.from_checkout", "install it with .ci/setup in the Croupier checkout (or "
                   ".venv/bin/pip install -e '.[{extra}]' there)", extra=extra)


class CroupierError(Exception):
    """Base class of every error Croupier raises on purpose.

    Raised with a :class:`~controller.i18n.message.Message` (``raise ConfigError(message("config.x", ...))``),
    its text is the English one and :attr:`message` keeps the id and parameters, so the command line can
    word it in the table's language (docs/languages.md)."""

    message: Message | None = None
    """The error's message before translation; None for an error raised with a plain English text."""

    def __init__(self, *args: Any) -> None:
        if args and isinstance(args[0], Message):
            self.message = args[0]
            args = (args[0].english(), *args[1:])
        super().__init__(*args)


class ConfigError(CroupierError):
    """A configuration value is missing, unknown, of the wrong type or out of range."""


class CardCodeError(CroupierError, ValueError):
    """A text that should be a card code (``AS``, ``10H``, ``kd``) is not one."""


class ScriptError(CroupierError):
    """A shoe script or a ``--cards`` token cannot be understood."""


class DriverError(CroupierError):
    """A card source cannot be opened or read."""


class DriverURLError(DriverError):
    """A driver URL has an unknown scheme, an unknown option or a bad value."""


class ReaderOfflineError(DriverError):
    """The reader is gone: unplugged, powered off, or its daemon stopped."""


class FloorError(CroupierError):
    """The casino floor: a broker or database URL is wrong, or the broker or database cannot be used."""


class FeedError(FloorError):
    """A feed URL, or the feed's settings, are wrong (``--feed``, ``[feed]``)."""


class ArchiveError(FloorError):
    """The archive's broker or database cannot be reached or used (``croupier archive``, ``--archive``)."""


class JournalError(CroupierError):
    """The journal cannot be written, read or verified."""


class JournalTamperedError(JournalError):
    """The journal was changed: a record edited, deleted, inserted or reordered, or its metadata."""

    def __init__(self, message: str | Message, seq: int = 0, problem: str = "") -> None:
        super().__init__(message)
        self.seq = seq
        self.problem = problem

    @classmethod
    def at(cls, path: str, seq: int, problem: Message) -> JournalTamperedError:
        """Record ``seq`` of ``path`` is wrong: ``problem`` (worded inside the error)."""
        return cls(message("journal.record_problem", "{path}: record {seq} {problem}", path=path, seq=seq,
                           problem=problem), seq, problem.english())


class JournalDamagedError(JournalError):
    """The journal's file is damaged: SQLite finds it malformed (its message says to keep it and start anew)."""


class IntegrityError(CroupierError):
    """The software's manifest or its key cannot be used (missing, unreadable, not one), or cannot be written."""


class AuthError(CroupierError):
    """A badge is unknown or lacks the role an approval needs."""


class RoadsInputError(CroupierError, ValueError):
    """A result history for the roads cannot be understood (a bad letter or event)."""


class ScoreboardError(CroupierError):
    """The scoreboard cannot start (address in use, bad host) or is used after close."""


class SnapshotError(CroupierError, ValueError):
    """A table snapshot (a journal checkpoint's state) is not a state the table can be restored to."""
