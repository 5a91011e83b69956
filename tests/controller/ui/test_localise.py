"""Events worded in the screen's language (:class:`controller.ui.localise.Localiser`): the console words every event it
shows, and the transcript every event it prints in a language other than English."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.events import AlertClearedEvent, AlertEvent, AlertUpdatedEvent, RoundEvent
from controller.i18n.catalogue import Catalogue
from controller.ui.console import DealerConsole
from controller.ui.localise import Localiser
from tests.inprocess import croupier_in_process

LANGUAGES = ["en", "ko", "ja", "es", "zh_Hant", "zh_Hans"]
PARAMS: dict[str, str | int] = {"bet": "player", "percent": "1.241", "round": 2, "threshold": "0.20", "stake": 100,
                                "win": "1.24"}
UPDATED = AlertUpdatedEvent(id="A1", kind="advantage", shoe=1, round=2, bet="player", edge="1/80",
                            detail="player is worth 1.241% to the players in round 2 ...",
                            say_id="alert.advantage_counter", say_params=PARAMS)
CLEARED = AlertClearedEvent(id="A1", kind="advantage", round=3,
                            reason="player is no longer above the house's threshold in round 3: the advantage is over",
                            say_id="alert.advantage_ended", say_params={"bet": "player", "round": 3})


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_advantage_alert_followed_and_closed_is_worded_not_a_crash(language: str) -> None:
    """``alert_updated`` words its ``detail`` and ``alert_cleared`` its ``reason``: neither has a ``say``, and wording
    them raised TypeError, which stopped croupier simulate/run in any language but English (and the console in
    every language) as soon as an advantage lasted a second round."""
    words = Catalogue(language)
    updated = Localiser(words).event(UPDATED)
    cleared = Localiser(words).event(CLEARED)
    assert isinstance(updated, AlertUpdatedEvent) and isinstance(cleared, AlertClearedEvent)
    assert "1.241" in updated.detail or "1,241" in updated.detail
    assert cleared.reason
    if language != "en":
        assert updated.detail != UPDATED.detail and cleared.reason != CLEARED.reason


def test_the_console_takes_an_advantage_alert_followed_and_closed() -> None:
    alert = AlertEvent(id="A1", kind="advantage", severity="warning", shoe=1, round=1, bet="player", edge="1/80",
                       threshold=0.002, detail="player is worth ...", say_id="alert.advantage_counter",
                       say_params={**PARAMS, "round": 1})
    console = DealerConsole(events=[RoundEvent(round=1, shoe=1), alert, RoundEvent(round=2, shoe=1), UPDATED,
                                    RoundEvent(round=3, shoe=1), CLEARED])
    assert console.view.round == 3


def test_a_korean_simulation_with_an_advantage_that_lasts_and_ends_runs_to_its_end(tmp_path: Path) -> None:
    config = tmp_path / "advantage.toml"
    config.write_text('[bets.alert_above]\nplayer = -0.0124\n', encoding="utf-8")
    run = croupier_in_process("simulate", "--config", str(config), "--seed", "1", "--rounds", "40", "--lang", "ko")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr


def test_every_event_with_a_say_id_has_the_field_the_localiser_words() -> None:
    import controller.core.events as events
    from controller.ui.localise import SAY_FIELD

    worded = [kind for kind in vars(events).values() if isinstance(kind, type) and issubclass(kind, events.Event)
              and kind is not events.Event and "say_id" in kind.__struct_fields__]
    assert len(worded) > 10
    for kind in worded:
        assert SAY_FIELD.get(kind.event, "say") in kind.__struct_fields__, kind.__name__
