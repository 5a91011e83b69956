"""The gettext catalogues: each language's ``.po`` file (read with Babel by ``python -m controller.cli.gendata``
into ``controller/i18n/builtin/<language>.json``, so that start-up parses no ``.po`` file and reads only its
own language's messages), and a house's own ``.po`` files over them (``[table] messages_dir``, read with Babel
when given; docs/languages.md).

A message is looked up by its id (the gettext context, ``msgctxt``); a language that lacks it, or has it
untranslated, falls back to the English text in the code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from controller.i18n.languages import LANGUAGES, SOURCE_LANGUAGE, language_problem
from controller.i18n.message import Message, Param, message

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

DOMAIN = "croupier"


class CatalogueError(ValueError):
    """A language or a house's ``.po`` file cannot be used; the message names it and says what to do.

    Raised with a :class:`Message`, its text is the English one and :attr:`message` keeps the message, so the
    command line can word it in the table's language."""

    message: Message | None = None

    def __init__(self, text: str | Message) -> None:
        if isinstance(text, Message):
            self.message = text
            text = text.english()
        super().__init__(text)


def builtin_po_path(language: str) -> Path:
    """The shipped catalogue of ``language`` (read by the generator and the tests, not at start-up)."""
    from importlib import resources

    return Path(str(resources.files("controller.i18n").joinpath("locales", f"{language}.po")))


def read_catalogue(path: Path, language: str) -> Catalog:
    """The ``.po`` file at ``path``, parsed; :class:`CatalogueError` when it cannot be read."""
    import io

    from babel.messages.pofile import PoFileError, read_po

    try:
        data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")  # a BOM an editor wrote is no keyword
        return read_po(io.BytesIO(data), locale=language, domain=DOMAIN, abort_invalid=True)
    except (OSError, PoFileError, ValueError) as error:
        raise CatalogueError(message("catalogue.unreadable", "cannot read the message catalogue {path}: {error}; "
                                     "fix the .po file (msgfmt --check FILE tells where)",
                                     path=str(path), error=str(error))) from None


def _placeholders(text: str) -> set[str]:
    import string  # only a house's or the generator's .po file is checked

    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _refuse_malformed(text: str, msg_id: str, source: str, path: Path) -> None:
    """A :class:`CatalogueError` unless each placeholder of the translation ``text`` is written ``{name}``, as the
    English texts write theirs: an empty or unclosed one, a lone brace, a conversion (``!r``) or a format spec
    (``:d``) would fail only when the message is shown (mid-play), or show something else."""
    import string

    try:
        bad = next((f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
                    for _, name, spec, conversion in string.Formatter().parse(text)
                    if name is not None and (not name or spec or conversion)), None)
    except ValueError as error:  # "Single '}' encountered", "expected '}' before end of string", ...
        bad = "}" if str(error).startswith("Single '}'") else "{"
    if bad is not None:
        named = ", ".join("{" + name + "}" for name in sorted(_placeholders(source)))
        allowed = named or message("catalogue.no_placeholders", "it takes no placeholders")
        raise CatalogueError(message("catalogue.malformed_placeholder", "{path}: message {id} has {bad}, not a "
                                     "placeholder as its English text {english} writes them ({allowed}); write each "
                                     "as {{name}}, and a brace shown as such doubled: {{{{ or }}}}",
                                     path=str(path), id=repr(msg_id), bad=repr(bad), english=repr(source),
                                     allowed=allowed))


def translations(catalog: Catalog, path: Path) -> dict[str, str]:
    """Each translated message of ``catalog`` by id; a translation whose ``{placeholders}`` are not its
    English text's is refused (it would fail when shown)."""
    found: dict[str, str] = {}
    for entry in catalog:
        if not entry.id or not entry.context or not isinstance(entry.string, str) or not entry.string:
            continue
        source = entry.id if isinstance(entry.id, str) else entry.id[0]
        _refuse_malformed(entry.string, entry.context, source, path)
        extra = _placeholders(entry.string) - _placeholders(source)
        if extra:
            allowed = ", ".join("{" + name + "}" for name in sorted(_placeholders(source)))
            advice = (message("catalogue.use_only", "use only {allowed}", allowed=allowed) if allowed
                      else message("catalogue.no_placeholders", "it takes no placeholders"))
            raise CatalogueError(message("catalogue.extra_placeholder", "{path}: message {id} uses {extra}, which its "
                                         "English text {english} does not have; {advice}", path=str(path),
                                         id=repr(entry.context), extra=", ".join("{" + name + "}" for name in
                                                                                 sorted(extra)),
                                         english=repr(source), advice=advice))
        found[entry.context] = entry.string
    return found


def po_translations(language: str) -> dict[str, str]:
    """The translated messages of ``language``'s shipped ``.po`` file, read now (:func:`translations`)."""
    path = builtin_po_path(language)
    return translations(read_catalogue(path, language), path)


def po_source_texts() -> dict[str, str]:
    """Every message id of the shipped English ``.po`` file and its English text (the msgid), read now."""
    path = builtin_po_path(SOURCE_LANGUAGE)
    return {entry.context: entry.id for entry in read_catalogue(path, SOURCE_LANGUAGE)
            if entry.context and isinstance(entry.id, str)}


BUILTIN_DIR = "builtin"
"""The package directory of the shipped catalogues' messages, one JSON object (id -> text) a file: each
language's translations (``<language>.json``) and the English texts of every id (:data:`SOURCE_FILE`)."""
SOURCE_FILE = "source.json"


@cache
def shipped_messages(name: str) -> Mapping[str, str]:
    """The messages of the shipped file ``name`` of :data:`BUILTIN_DIR`, read once."""
    import json
    import pkgutil

    data = pkgutil.get_data(__package__ or "controller.i18n", f"{BUILTIN_DIR}/{name}")
    if data is None:
        raise CatalogueError(f"{BUILTIN_DIR}/{name} is missing from the package; reinstall croupier")
    found: dict[str, str] = json.loads(data)
    return found


def _builtin(language: str) -> Mapping[str, str]:
    return shipped_messages(f"{language}.json")


def source_texts() -> Mapping[str, str]:
    """Every message id of the shipped catalogues and its English text (the msgid)."""
    return shipped_messages(SOURCE_FILE)


def _refuse_unknown(catalog: Catalog, path: Path) -> None:
    """A house entry that would replace no message (no ``msgctxt``, or one that is no message's id) is refused,
    not ignored."""
    known = source_texts()
    for entry in catalog:
        if not entry.id:
            continue  # the header
        if not entry.context:
            source = entry.id if isinstance(entry.id, str) else entry.id[0]
            raise CatalogueError(message("catalogue.no_context", "{path}: the entry {english} has no msgctxt; give "
                                         "it the message's id (the ids are in controller/i18n/croupier.pot)",
                                         path=str(path), english=repr(source)))
        if entry.context not in known:
            raise CatalogueError(message("catalogue.unknown_id", "{path}: {id} is not a message id; use an id of "
                                         "controller/i18n/croupier.pot (a say_id)", path=str(path),
                                         id=repr(entry.context)))


def not_a_directory(directory: str | Path) -> Message:
    """``[table] messages_dir``'s ``directory`` is not one (the config names the layer that gave it before it)."""
    return message("catalogue.not_a_directory", "[table] messages_dir {directory} is not a directory; give a "
                   "directory of <language>.po files ({languages})", directory=repr(str(directory)),
                   languages=", ".join(LANGUAGES))


class Catalogue:
    """One language's messages: the shipped catalogue, with a house's overrides over it."""

    def __init__(self, language: str = SOURCE_LANGUAGE, messages_dir: str | Path | None = None) -> None:
        problem = language_problem(language)
        if problem is not None:
            raise CatalogueError(problem)
        self.language = language
        self.texts: dict[str, str] = dict(_builtin(language))
        house = self._house(Path(messages_dir), language) if messages_dir else {}
        self.texts.update(house)
        self.is_source = language == SOURCE_LANGUAGE and not house
        """The source language with no house words: a message's text is its English text."""

    @staticmethod
    def _house(directory: Path, language: str) -> dict[str, str]:
        if not directory.is_dir():
            raise CatalogueError(not_a_directory(directory))
        path = directory / f"{language}.po"
        if not os.path.lexists(path):  # a directory, a dangling link or a loop by that name is refused, not skipped
            return {}
        catalog = read_catalogue(path, language)
        _refuse_unknown(catalog, path)
        return translations(catalog, path)

    def english_text(self, msg_id: str) -> str | None:
        """The English text (with its ``{placeholders}``) of the message ``msg_id``; None if there is none."""
        return source_texts().get(msg_id)

    def text(self, message: Message) -> str:
        """``message`` in this language."""
        template = self.texts.get(message.id) or message.text
        return template.format(**message.params, **{name: self.text(part) for name, part in message.parts.items()})

    def say(self, msg_id: str, english: str, /, **params: Param | Message) -> str:
        """The message ``msg_id`` (English ``english``) in this language: ``message(...)`` and :meth:`text` in one."""
        return self.text(message(msg_id, english, **params))


ENGLISH = Catalogue()
"""The source language, with no house overrides."""
