"""A URL that cannot be parsed (so its password cannot be hidden) is shown as "the URL given", in the language."""

from __future__ import annotations

import pytest

from controller.core.exceptions import FeedError, FloorError
from controller.floor.urls import check_database_url, parse_broker
from controller.i18n.catalogue import ENGLISH, Catalogue


def test_an_unparsable_broker_url_is_named_in_the_language() -> None:
    with pytest.raises(FeedError) as raised:
        parse_broker("mqtt://u:secret@host:abc")
    assert str(raised.value) == ("--broker 'the URL given': the port is not a number from 1 to 65535; expected "
                                 "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts://)")
    assert raised.value.message is not None
    assert ENGLISH.text(raised.value.message) == str(raised.value)
    korean = Catalogue("ko").text(raised.value.message)
    assert "'주어진 URL'" in korean and "the URL given" not in korean and "secret" not in korean


def test_an_unparsable_database_url_is_named_in_the_language() -> None:
    with pytest.raises(FloorError) as raised:
        check_database_url("postgresql://u:secret@host:abc/db")
    assert str(raised.value).startswith("--db 'the URL given': not a valid URL (")
    assert raised.value.message is not None
    japanese = Catalogue("ja").text(raised.value.message)
    assert "「指定された URL」" in japanese and "the URL given" not in japanese and "secret" not in japanese
