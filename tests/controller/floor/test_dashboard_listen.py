"""``croupier floor --listen HOST:PORT``: an address is taken as written or refused, never guessed."""

from __future__ import annotations

import pytest

from controller.core.exceptions import FloorError
from controller.floor.dashboard import parse_listen


def test_good_addresses() -> None:
    assert parse_listen("127.0.0.1:8090") == ("127.0.0.1", 8090)
    assert parse_listen("[::1]:0") == ("::1", 0)
    assert parse_listen("0.0.0.0:8090") == ("0.0.0.0", 8090)


@pytest.mark.parametrize("bad", ["[::1:8090", "::1]:8090", "::1:8090", "[]:8090", " :8090", "bad host:8090",
                                 "127.0.0.1:\u0668\u0660", "127.0.0.1:\u00b2"])
def test_an_address_that_is_not_host_port_is_refused(bad: str) -> None:
    """A bracket left open, IPv6 without its brackets, an empty host (every interface) or a port in other digits
    than ASCII ones was taken for an address."""
    with pytest.raises(FloorError, match=r"--listen .*(no HOST:PORT|is not a number)"):
        parse_listen(bad)


@pytest.mark.parametrize("bad", ["host\udcff:8090", "host\x07:8090", "host\u200b\n:8090"])
def test_a_host_with_a_byte_that_is_not_utf8_or_a_control_character_is_refused(bad: str) -> None:
    """Such a host was taken for an address, and the listening socket then failed on it: ``croupier floor up``
    started the broker and the database first, then said only that the dashboard did not start."""
    with pytest.raises(FloorError, match=r"--listen .*: no HOST:PORT; expected HOST:PORT"):
        parse_listen(bad)
