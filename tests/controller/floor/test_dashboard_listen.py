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
