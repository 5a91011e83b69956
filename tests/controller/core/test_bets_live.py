"""The live edge through the table: which cards count as seen, the advantage alert, [bets] live_edge."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

from config.loader import load_config
from controller.core.bets.exact import Shoe, bet_evs
from controller.core.events import Event
from controller.core.table import Table
from tests.tokens import dealt


def play(tokens: str, **bets: Any) -> list[Event]:
    overrides: dict[str, Any] = {"procedures": {"exposed_card": "use"}}
    if bets:
        overrides["bets"] = bets
    return dealt(tokens, Table(load_config(environ={}, overrides=overrides)))


def edges(events: list[Event]) -> list[dict[str, Any]]:
    return [dict(e) for e in events if e["event"] == "edge"]


def evs(edge: dict[str, Any]) -> dict[str, Fraction]:
    return {bet: Fraction(value["ev"]) for bet, value in edge["bets"].items()}


# The turned 2 burns two more cards face down (9C 9D); round 1 is 3S KD 5H 9C (banker natural 9).
TOKENS = "2H 9C 9D 3S KD 5H 9C @next 4S"


def test_the_turned_burn_card_is_seen_and_the_face_down_burns_are_not() -> None:
    first, second = edges(play(TOKENS))
    assert first["round"] == 1 and first["seen"] == 1
    assert evs(first) == bet_evs(Shoe.of(8, {"2H": 1}))
    assert second["round"] == 2 and second["seen"] == 5
    assert evs(second) == bet_evs(Shoe.of(8, Counter(["2H", "3S", "KD", "5H", "9C"])))


def test_the_edge_comes_after_the_round_event_and_before_its_first_prompt() -> None:
    names = [(e["event"], e.get("round")) for e in play(TOKENS)]
    at = names.index(("edge", 2))
    assert names[at - 1] == ("round", 2) and names[at + 1] == ("prompt", 2)


def test_an_exposed_card_used_where_it_was_dealt_counts_once() -> None:
    events = play(TOKENS + " @exposed @use 4D 5C 7C @next")  # player natural 9
    third = edges(events)[-1]
    assert third["round"] == 3
    assert third["seen"] == 9  # 2H, round 1's four cards, 4S 4D 5C 7C


def test_an_exposed_card_burned_still_counts_as_seen() -> None:
    events = play("2H 9C 9D 3S @exposed @burn KD 5H 9C QS @next",
                  **{"offered": ["player"], "live_edge": True})
    second = edges(events)[-1]
    assert second["seen"] == 6  # 2H, the exposed 3S set aside face up, KD 5H 9C QS


def test_advantage_alerts_follow_the_edge_for_each_offered_bet_above_the_threshold() -> None:
    """Issue 28: only the bets the table offers (the default five; ``banker`` as the commission banker) alert."""
    offered = {"player", "banker", "tie", "player_pair", "banker_pair"}
    events = play("2H 9C 9D", alert_above=-0.05)
    (edge,) = edges(events)
    above = sorted(bet for bet, ev in evs(edge).items() if ev > Fraction(-5, 100) and bet in offered)
    alerts = [e for e in events if e["event"] == "alert"]
    assert sorted(str(a.get("bet")) for a in alerts) == above and above
    for alert in alerts:
        assert alert.get("kind") == "advantage" and alert["round"] == 1 and alert["threshold"] == -0.05
        assert Fraction(str(alert.get("edge"))) == evs(edge)[str(alert.get("bet"))]


def test_no_alert_on_a_fresh_shoe_under_the_default_threshold() -> None:
    assert not [e for e in play("2H 9C 9D") if e["event"] == "alert"]


def test_live_edge_off_emits_no_edge() -> None:
    assert edges(play(TOKENS, live_edge=False)) == []


def test_the_advantage_alert_detail_is_a_catalogue_message() -> None:
    from controller.i18n.catalogue import Catalogue
    from controller.i18n.message import Message

    alert: Any = next(e for e in play("2H 9C 9D", alert_above=-0.05) if e["event"] == "alert")
    assert alert["say_id"] == "alert.advantage_counter"
    assert alert["say_params"]["bet"] == alert["bet"] and alert["say_params"]["round"] == 1
    assert all(isinstance(value, int | str) for value in alert["say_params"].values())
    worded = Message(alert["say_id"], "", alert["say_params"])
    assert Catalogue("en").text(worded) == alert["detail"]
    assert "to the players in round 1" in alert["detail"]
    assert alert["say_params"]["percent"] in Catalogue("ja").text(worded)
    assert "to the players" not in Catalogue("ja").text(worded)


def test_each_bet_alerts_above_its_own_threshold() -> None:
    events = play("2H 9C 9D", alert_above={"player": -0.05, "banker": -0.05})
    (edge,) = edges(events)
    alerts = [e for e in events if e["event"] == "alert"]
    assert sorted(str(a.get("bet")) for a in alerts) == ["banker", "player"]
    assert all(a["threshold"] == -0.05 for a in alerts)
    assert all(Fraction(str(a.get("edge"))) == evs(edge)[str(a.get("bet"))] for a in alerts)


def test_a_number_is_every_bets_threshold_and_the_environment_sets_it() -> None:
    from config.loader import load_config

    settings = load_config(environ={"CROUPIER_BETS_ALERT_ABOVE": "-0.05"}).bets
    assert {settings.alert_threshold(bet) for bet in ("player", "dragon_7", "lucky_6")} == {-0.05}


def test_the_advantage_alert_says_what_a_counter_staking_100_expects_to_win() -> None:
    alert: Any = next(e for e in play("2H 9C 9D", alert_above={"player": -0.05}) if e["event"] == "alert")
    edge = Fraction(alert["edge"])
    win = f"{(Decimal(edge.numerator * 100) / Decimal(edge.denominator)).quantize(Decimal('0.01')):+.2f}"
    assert alert["detail"] == (f"player is worth {float(edge) * 100:+.3f}% to the players in round 1 from the cards "
                               f"they could have seen (the house alerts above -5.00%): a counter staking 100 on it now "
                               f"expects to win {win}; watch for players who raise it")
    assert alert["say_params"]["win"] == win and alert["say_params"]["stake"] == 100


def test_the_advantage_alert_weighs_a_bet_at_the_house_pays(tmp_path: Any) -> None:
    """The house pays a tie 9:1 and set its threshold from `croupier study` under those pays: the alert compares the
    tie's value at 9:1 (the `edge` event keeps the default pays, as documented)."""
    config = tmp_path / "house.toml"
    config.write_text('[bets]\noffered = ["player", "banker", "tie"]\nalert_above = { tie = -0.10 }\n'
                      '[bets.pays]\ntie = { win = 9 }\n', encoding="utf-8")
    events = dealt(TOKENS, Table(load_config(config, environ={})))
    at_default = evs(edges(events)[0])["tie"]
    assert at_default < Fraction(-1, 10), "at the default 8:1 the tie is below the house's threshold"
    tie = (at_default + 1) / 9  # the default's value is 8p - (1 - p)
    alerts = [dict(e) for e in events if e["event"] == "alert" and e["kind"] == "advantage"]
    assert [alert["bet"] for alert in alerts] == ["tie"], alerts
    assert Fraction(alerts[0]["edge"]) == 9 * tie - (1 - tie)


def test_docs_say_only_the_offered_bets_alert() -> None:
    """docs/bets.md's live edge lists every bet, offered or not; its alert is for the bets the table offers (the test
    above), and the page says so."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "bets.md").read_text(encoding="utf-8")
    live = page.split("## The live edge", 1)[1].split("\n## ", 1)[0]
    assert "a bet the table offers" in live, live
