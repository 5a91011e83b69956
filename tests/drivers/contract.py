"""The contract every card-source driver keeps, as a reusable test mixin.

Import it as ``tests.drivers.contract`` from any test module::

    from tests.drivers.contract import CardSourceContract

    class TestMyDriverContract(CardSourceContract):
        @pytest.fixture
        def make_source(self, tmp_path):
            opened = []
            def make(tokens: list[str]) -> CardSource:
                source = ...  # a source that will deliver exactly these reader tokens
                opened.append(source)
                return source
            yield make
            for source in opened:
                source.close()

``tokens`` are script tokens (``AS``, ``10H``, ``??``, ``@cut``, ``@double``,
``@next``), see :mod:`controller.core.inputs`. The source may take a while to start
delivering (a real line), so reads use generous timeouts; a test that waits
fails after :attr:`CardSourceContract.patience` seconds instead of hanging.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

import pytest

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input, InputKind, parse_tokens
from drivers import driver_class
from drivers.base import CardSource, Indication, Option, Resumable

MakeSource = Callable[[list[str]], CardSource]
LINK_KINDS = (InputKind.OFFLINE, InputKind.ONLINE)


class CardSourceContract:
    """Tests every :class:`CardSource` must pass. Subclasses provide ``make_source``."""

    patience: float = 10.0
    """Seconds a test waits for an input that should come."""
    slack: float = 1.0
    """Seconds ``recv(timeout)`` may overrun its timeout."""
    tokens: tuple[str, ...] = ("AS", "10H", "??", "KD", "@cut", "9C", "@double", "@next", "QS")

    def read(self, source: CardSource, count: int) -> list[Input]:
        """``count`` inputs, each within :attr:`patience`, ignoring OFFLINE/ONLINE link news."""
        got: list[Input] = []
        deadline = time.monotonic() + self.patience
        while len(got) < count:
            item = source.recv(max(0.0, deadline - time.monotonic()))
            assert item is not None, f"got {len(got)} of {count} inputs within {self.patience}s: {got}"
            if item.kind not in LINK_KINDS:
                got.append(item)
        return got

    def test_delivers_exactly_the_tokens(self, make_source: MakeSource) -> None:
        expected = parse_tokens(" ".join(self.tokens), source="contract")
        with make_source(list(self.tokens)) as source:
            got = self.read(source, len(expected))
            assert got == expected
            assert all(isinstance(item, Input) and (item.from_reader or item.kind is InputKind.NEXT)
                       for item in got)
            # nothing more: None within the timeout (or at once, when exhausted)
            started = time.monotonic()
            extra = source.recv(0.3)
            assert extra is None or extra.kind in LINK_KINDS
            assert time.monotonic() - started < 0.3 + self.slack

    def test_card_codes_are_not_validated(self, make_source: MakeSource) -> None:
        with make_source(["ZZ", "1X", "as"]) as source:
            assert self.read(source, 3) == [Input(InputKind.CARD, code) for code in ("ZZ", "1X", "as")]

    def test_recv_returns_input_or_none_within_timeout(self, make_source: MakeSource) -> None:
        with make_source([]) as source:
            for timeout in (0.0, 0.05, 0.3):
                started = time.monotonic()
                item = source.recv(timeout)
                assert item is None or isinstance(item, Input)
                assert time.monotonic() - started < timeout + self.slack

    def test_close_is_idempotent(self, make_source: MakeSource) -> None:
        source = make_source(["AS"])
        source.close()
        source.close()
        assert source.closed

    def test_context_manager_closes(self, make_source: MakeSource) -> None:
        source = make_source(["AS"])
        with source as entered:
            assert entered is source
            assert not source.closed
        assert source.closed

    def test_context_manager_closes_on_error(self, make_source: MakeSource) -> None:
        source = make_source(["AS"])
        with pytest.raises(RuntimeError), source:
            raise RuntimeError("boom")
        assert source.closed

    def test_recv_after_close_raises_driver_error(self, make_source: MakeSource) -> None:
        source = make_source(["AS"])
        source.close()
        with pytest.raises(DriverError, match="closed"):
            source.recv(0)

    def test_unknown_url_option_names_the_expected_form(self, make_source: MakeSource) -> None:
        with make_source([]) as source:
            cls = type(source)
            parts = urlsplit(source.url)
            query = parts.query + "&" if parts.query else ""
            url = urlunsplit(parts._replace(query=query + "no_such_option=1"))
        with pytest.raises(DriverURLError) as error:
            cls(url)
        message = str(error.value)
        assert "no_such_option" in message
        assert cls.expected_form() in message

    def test_exhausted(self, make_source: MakeSource) -> None:
        with make_source(["AS"]) as source:
            assert isinstance(source.exhausted, bool)
            assert not source.exhausted  # a token is still to come
            assert self.read(source, 1) == [Input(InputKind.CARD, "AS")]
            if source.exhausted:  # a finite source: recv gives None at once, whatever the timeout
                started = time.monotonic()
                assert source.recv(5) is None
                assert time.monotonic() - started < self.slack

    def test_indicate_accepts_every_slot(self, make_source: MakeSource) -> None:
        with make_source(["AS"]) as source:
            for what in ("player", "banker", "hold", "burn"):
                source.indicate(what)
            assert self.read(source, 1) == [Input(InputKind.CARD, "AS")]

    def test_scheme_and_options_are_declared(self, make_source: MakeSource) -> None:
        with make_source([]) as source:
            cls = type(source)
            assert cls.scheme
            assert cls.schemes and cls.scheme == cls.schemes[0]
            assert all(isinstance(option, Option) and isinstance(option.help, str) and option.help
                       for option in cls.options.values())
            assert cls.expected_form()
            for scheme in cls.schemes:
                assert driver_class(f"{scheme}://") is cls, f"{scheme}:// does not open {cls.__name__}"

    def test_declared_defaults_are_valid_values(self, make_source: MakeSource) -> None:
        with make_source([]) as source:
            cls = type(source)
        for name, option in cls.options.items():
            if option.default is not None:
                text = str(int(option.default)) if option.type is bool else str(option.default)
                assert option.parse(source.url, name, text) == option.default, name

    def test_indications_are_the_enum_or_its_values(self, make_source: MakeSource,
                                                      caplog: pytest.LogCaptureFixture) -> None:
        with make_source(["AS"]) as source:
            for what in Indication:
                if what is not Indication.NEW_SHOE:
                    source.indicate(what)
            source.indicate(Indication.PLAYER.value)
            with caplog.at_level(logging.WARNING, logger="croupier.drivers"):
                source.indicate("dealer")
            assert "unknown indication 'dealer' not sent; expected one of player, banker" in caplog.text
            assert self.read(source, 1) == [Input(InputKind.CARD, "AS")]

    def test_a_resumable_source_resumes_from_its_position(self, make_source: MakeSource) -> None:
        with make_source(["AS", "KD", "QS"]) as source:
            resumable = source.resumable
            if resumable is None:
                assert not isinstance(source, Resumable)
                return
            assert resumable is source
            assert self.read(source, 1) == [Input(InputKind.CARD, "AS")]
            position = resumable.position
            assert isinstance(position, tuple) and len(position) == 2
            assert all(isinstance(part, int) for part in position)
            resumable.journaled(Input(InputKind.CARD, "AS"))
            resumable.seek(*position)
            assert resumable.position == position
            assert self.read(source, 1) == [Input(InputKind.CARD, "KD")]
