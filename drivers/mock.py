"""The mock shoe: a seeded shuffled N-deck shoe, or a script of reader events.

``mock://?seed=42&decks=8`` deals seeded shoes, the cut card ``cut`` cards
from the bottom; on ``indicate("new_shoe")`` the next seeded shoe is loaded,
so one seed gives the same sequence of shoes every time.
``mock://?script=FILE`` delivers a token file (see ``docs/scripts.md``)
exactly as written, then is exhausted; dealt by hand (``simulate --interactive``,
``run`` without ``--auto-next``) its cards wait for the table like a seeded shoe's,
while its dealer inputs (``@shoe``, ``@burn`` ...) are delivered as they come. It is a driver users run, not a stub.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlencode, urlsplit

from config.loader import read_text_at_most
from config.schema import DEFAULT_CUT_FROM_END, MIN_CUT_FROM_END, max_cut_from_end
from controller.core.exceptions import DriverURLError, ScriptError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.shoe import shoe_with_cut_card
from controller.i18n.message import message
from drivers.base import Delivery, Indication, Option, Resumable

DEFAULT_SEED = 0
CUT = Input(InputKind.CUT)


SHUFFLE_OPTIONS = ("seed", "decks", "cut", "shoe")
"""The options of a seeded shuffled shoe: a script gives every card, so none of them may stand beside it."""


SCRIPT_LIMIT = 16 * 2**20
"""The most bytes a shoe script is read for (16 MiB: some twelve thousand shoes of eight decks)."""


def read_script(path: str | Path) -> list[Input]:
    """Read a shoe script: tokens separated by spaces or lines, ``#`` starts a comment."""
    name = str(path)
    try:
        text = read_text_at_most(path, SCRIPT_LIMIT)
        if text is None:
            raise ScriptError(message("script.too_long", "{name}: longer than {limit} MiB, far more than a shoe "
                                      "script holds; give the path of a shoe script file", name=name,
                                      limit=SCRIPT_LIMIT // 2**20))
    except FileNotFoundError:
        raise ScriptError(message("script.no_file", "{name}: no such script file; give the path of a shoe script",
                                  name=name or "''")) from None
    except OSError as error:  # a directory, a link loop, no permission
        raise ScriptError(message("script.cannot_read", "{name}: cannot read the script ({reason}); give the path of "
                                  "a shoe script file", name=name, reason=error.strerror or str(error))) from None
    except UnicodeDecodeError as error:
        raise ScriptError(message("script.not_utf8", "{name}: not UTF-8 text (byte {start} is 0x{byte}); expected a "
                                  "shoe script of card codes and @ words (docs/scripts.md): save it as UTF-8",
                                  name=name, start=error.start, byte=f"{error.object[error.start]:02x}")) from None
    inputs: list[Input] = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0]
        if content.strip():
            inputs.extend(parse_tokens(content, source=f"{name} line {number}"))
    return inputs


def mock_url(url: str, decks: int, cut_from_end: int) -> str:
    """``url`` with the table's ``decks`` and cut card (``[table] decks``, ``[shoe] cut_card_from_end``) for the options
    a seeded shoe's ``mock://`` URL leaves out, as ``simulate`` deals them (other schemes and scripts: unchanged).

    Only values other than the mock's own defaults are added, so a URL that needs none is kept as given. A ``decks``
    other than the table's is refused: the table would count a shoe that is not the one dealt (foreign cards that
    are not, a shoe report and an edge of cards that are not there)."""
    try:
        if urlsplit(url).scheme != "mock":
            return url
    except ValueError:  # not a URL: opening it says so
        return url
    _, given = MockShoe.parse_query(url)  # an unknown or repeated option is refused here as when it opens
    if "script" in given:
        return url
    if "decks" in given:
        shoe_decks = MockShoe.option_value(url, given, "decks")
        if shoe_decks != decks:
            raise DriverURLError(message("driver.mock_decks", "{url}: decks={given} deals another shoe than the "
                                         "table's {decks} decks ([table] decks); give --decks {given}, or leave decks "
                                         "out of the URL", url=url, given=shoe_decks, decks=decks))
    missing: dict[str, int] = {}
    if "decks" not in given and decks != MockShoe.options["decks"].default:
        missing["decks"] = decks
    if "cut" not in given and cut_from_end != min(DEFAULT_CUT_FROM_END, 26 * decks):
        missing["cut"] = cut_from_end
    if not missing:
        return url
    base, hash_, fragment = url.partition("#")
    joiner = "" if base.endswith(("?", "&")) else "&" if "?" in base else "?"
    return f"{base}{joiner}{urlencode(missing)}{hash_}{fragment}"


class MockShoe(Resumable):
    """A card source that deals a seeded shoe or replays a script."""

    schemes = ("mock",)
    simulated = True
    shows_expecting = False
    options: ClassVar[Mapping[str, Option]] = {
        "seed": Option("whole number; the same seed gives the same shoes", int, DEFAULT_SEED, (0, 2**63 - 1)),
        "decks": Option("1-8", int, 8, (1, 8)),
        "cut": Option("cards below the cut card, 12-100", int, DEFAULT_CUT_FROM_END, (MIN_CUT_FROM_END, 100)),
        "shoe": Option("first shoe number to deal, from 1", int, 1, (1, 1_000_000)),
        "script": Option("path of a shoe script file"),
    }

    def __init__(self, url: str = "mock://", inputs: list[Input] | None = None) -> None:
        super().__init__(url)
        values, self.seed, self.decks, self.cut_from_end, shoe = self._url_options(url)
        self.shoe_index = shoe - 1
        self.scripted = inputs is not None or "script" in values
        if inputs is not None and "script" in values:
            raise DriverURLError(message("driver.script_and_cards", "{url}: give either a script or --cards, not both",
                                         url=url))
        if "script" in values:
            inputs = read_script(values["script"])
        self._queue: list[Input] = inputs if inputs is not None else self._seeded_shoe()
        self.offset = 0
        self._dealt_index, self._dealt = -1, list[Input]()

    @classmethod
    def check_url(cls, url: str) -> None:
        """Refuse a host or path, an unknown option, a value out of its range (the cut card in the back half of
        the decks given), a shuffled shoe's option beside a script; a script is read only when the shoe opens."""
        cls._url_options(url)

    @classmethod
    def _url_options(cls, url: str) -> tuple[dict[str, str], int, int, int, int]:
        """The query's options, and the seed, decks, cut card and first shoe ``url`` gives (or their defaults)."""
        location, values = cls.parse_query(url)
        if location:
            raise DriverURLError(f"{url}: mock:// takes no host or path ({location!r}); "
                                 f"expected {cls.expected_form()}")
        seed: int = cls.option_value(url, values, "seed")
        decks: int = cls.option_value(url, values, "decks")
        cut_from_end: int = cls.option_value(url, values, "cut", default=min(DEFAULT_CUT_FROM_END, 26 * decks),
                                             high=max_cut_from_end(decks))
        shoe: int = cls.option_value(url, values, "shoe")
        unused = [name for name in SHUFFLE_OPTIONS if name in values]
        if "script" in values and unused:
            names = ", ".join(unused)
            raise DriverURLError(message("driver.script_options", "{url}: {names} would do nothing beside a script: "
                                         "the script gives every card; leave out {names}", url=url, names=names))
        return values, seed, decks, cut_from_end, shoe

    @property
    def delivery(self) -> Delivery:
        """A script's every input, or a seeded shoe's cards, whenever read: no dealer's hand on it."""
        return Delivery.SCRIPTED if self.scripted else Delivery.SHUFFLED

    def _seeded_shoe(self) -> list[Input]:
        return self._shoe_of(self.shoe_index)

    def _shoe_of(self, shoe_index: int) -> list[Input]:
        tokens = shoe_with_cut_card(self.seed, self.decks, shoe_index, self.cut_from_end)
        return [CUT if token == "@cut" else Input(InputKind.CARD, token) for token in tokens]

    def _recv(self, timeout: float | None) -> Input | None:
        if self.offset >= len(self._queue):
            return None
        item = self._queue[self.offset]
        self.offset += 1
        return item

    @property
    def exhausted(self) -> bool:
        return self.offset >= len(self._queue)

    def upcoming(self) -> Input | None:
        """The input the next read delivers, without delivering it (None when exhausted)."""
        return self._queue[self.offset] if self.offset < len(self._queue) else None

    @property
    def position(self) -> tuple[int, int]:
        """(shoe number from 1, inputs delivered from this shoe or script)."""
        return self.shoe_index + 1, self.offset

    def seek(self, shoe: int, offset: int) -> None:
        """Continue from a :attr:`position` (used by journal recovery)."""
        if not self.scripted and shoe - 1 != self.shoe_index:
            self.shoe_index = shoe - 1
            self._queue = self._seeded_shoe()
        self.offset = offset

    def dealt_at(self, shoe: int, offset: int) -> Input | None:
        """What this seeded shoe or script delivers at :attr:`position` ``(shoe, offset)`` (its ``offset``-th
        input, from 1): where a journal says this source was just after it gave that input. None for a place this
        source does not have."""
        if self.scripted:
            inside = shoe == self.shoe_index + 1 and 1 <= offset <= len(self._queue)
            return self._queue[offset - 1] if inside else None
        if shoe < 1 or offset < 1:
            return None
        if shoe - 1 != self._dealt_index:
            self._dealt_index, self._dealt = shoe - 1, self._shoe_of(shoe - 1)
        return self._dealt[offset - 1] if offset <= len(self._dealt) else None

    def _indicate(self, what: Indication) -> None:
        if what is Indication.NEW_SHOE and not self.scripted:
            self.shoe_index += 1
            self._queue = self._seeded_shoe()
            self.offset = 0
