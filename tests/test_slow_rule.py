"""The slow rule (docs/testing.md): tests that need a service, Chromium or tmux are ``slow``, so the quick
loop (``-m "not slow"``) runs none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.slowrule import SERVICE_FIXTURES, require_slow

TESTS = Path(__file__).resolve().parent
SERVICE_CONFTESTS = (TESTS / "drivers" / "pcsc" / "conftest.py", TESTS / "controller" / "floor" / "conftest.py")
SCOPE = '(scope="session")\n'


def test_driving_chromium_or_tmux_from_a_test_not_marked_slow_fails() -> None:
    for what in ("Chromium", "tmux"):
        with pytest.raises(pytest.fail.Exception, match=f"drives {what}: mark it @pytest.mark.slow"):
            require_slow(what)


@pytest.mark.slow
def test_a_slow_test_may_drive_chromium() -> None:
    require_slow("Chromium")


def test_every_collected_test_that_uses_a_service_is_slow_and_the_quick_loop_runs_none(
        request: pytest.FixtureRequest) -> None:
    items = request.session.items
    assert request.node in items
    with_services = [item for item in items if SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ()))]
    assert all(item.get_closest_marker("slow") for item in with_services), with_services
    assert all(item.get_closest_marker("services") for item in with_services), with_services
    without = [item for item in items if item not in with_services and item.get_closest_marker("services")]
    assert without == [], f"marked services without using one: {without}"
    if request.config.getoption("markexpr") in ("not slow", "not services"):
        assert with_services == []


def test_the_service_fixtures_exist_under_their_names() -> None:
    """A renamed fixture would slip out of the rule: every name in the list is a fixture of a services
    conftest."""
    sources = "".join(path.read_text(encoding="utf-8") for path in SERVICE_CONFTESTS)
    missing = [name for name in sorted(SERVICE_FIXTURES) if f"@pytest.fixture{SCOPE}def {name}(" not in sources
               and f"@pytest.fixture\ndef {name}(" not in sources]
    assert not missing, f"no fixture named {missing} in {[str(path) for path in SERVICE_CONFTESTS]}"
