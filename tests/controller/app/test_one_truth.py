"""One truth for the table's state: the dealer console's model, the scoreboard's state message, the floor's retained
``state`` and the final summary all say what the table's own view says, after every input of random games (cards,
misdeals of every kind, voids, alerts, badges, face-down dealing), a resume from a snapshot included.

A consumer may word things its own way; what it must never do is count cards, follow a misdeal or decide which
keys apply by rules of its own and come to another answer than the core. ``croupier history`` and the training
drill are checked the same way beside their code: tests/controller/cli/test_history_one_truth.py and
tests/controller/training/test_training_one_truth.py.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from typing import cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.schema import Settings
from controller.app.session import Session
from controller.core.events import AlertEvent, Event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.published import View
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table
from controller.floor.messages import TableState
from controller.ui.tableview import FACE_DOWN, TableView
from controller.ui.transcript import Summary
from tests.controller.cli.test_history_one_truth import property_settings
from tests.controller.core.test_snapshot import leading, table_settings, token_lists

DEALER_KEYS = [kind.value for kind in (
    InputKind.NEXT, InputKind.SHOE, InputKind.BURN, InputKind.VOID, InputKind.EXPOSED, InputKind.USE,
    InputKind.MANUAL, InputKind.CLOSE, InputKind.REVEAL, InputKind.ACK, InputKind.UNDO, InputKind.CUT)]


def said(alert: AlertEvent) -> tuple[object, ...]:
    """What an alert says now: an advantage alert follows its bet's edge round after round (``alert_updated``)."""
    return tuple(alert.get(key) for key in ("kind", "severity", "round", "bet", "edge", "detail", "say_params"))


def advantage_text(alert: AlertEvent) -> str:
    """An open advantage alert as the supervisor's status line names it (its bet and edge)."""
    return f"{alert.bet} {float(Fraction(str(alert.edge))) * 100:+.2f}%"


class Consumers:
    """Every consumer of one table, fed as the app feeds them: the events of each input, then the table's view."""

    def __init__(self, table: Table, history: list[Event]) -> None:
        self.console = TableView()
        self.board = TableView()
        self.floor = TableState("s1", "t1")
        self.summary = Summary()
        self.feed(table, history)

    def feed(self, table: Table, events: list[Event]) -> None:
        for event in events:
            self.console.apply(event)
            self.board.apply(event)
        self.summary(events)
        view = table.view
        self.console.show(view)
        self.board.show(view)
        self.floor.show(view)

    def check(self, view: View, after: str) -> None:
        for model in (self.console, self.board):
            assert model.shoe.cards_left == view.cards_left, after
            assert model.shoe.cut_card_out == view.cut_card_out and model.shoe.closed == view.closed, after
            assert (model.shoe.burned, model.shoe.set_aside) == (view.burned, view.set_aside), after
            assert model.round == (view.round or None), after
            assert (model.misdeal is None) == (view.misdeal is None), after
            if model.misdeal is not None and view.misdeal is not None:  # the halt the table is on, not the latest
                assert (model.misdeal.get("kind"), model.misdeal.get("card")) == (view.misdeal.kind,
                                                                                  view.misdeal.card), after
            assert model.slots == {card.slot: card.card or FACE_DOWN for card in view.cards}, after
            if not view.closed:
                assert (model.total("player"), model.total("banker")) == (view.player_total, view.banker_total), after
            assert [result.round for result in model.history.results] == [result.round for result in view.results], \
                after
            assert (model.result.get("round") if model.result is not None else None) == (
                view.result.round if view.result is not None else None), after
            assert set(model.alerts) <= {alert.id for alert in view.alerts}, after
            core_alerts = {alert.id: alert for alert in view.alerts}
            assert [said(model.alerts[alert_id]) for alert_id in model.alerts] == [
                said(core_alerts[alert_id]) for alert_id in model.alerts], after
            assert model.advantage == [advantage_text(alert) for alert in view.alerts
                                       if alert.kind == "advantage" and view.badges], after
            assert (model.dealer, model.approval, model.undo) == (view.dealer, view.approval, view.undo), after
            assert [key for key in DEALER_KEYS if model.accepts(key)] == [
                key for key in DEALER_KEYS if key in view.accepts], after
            assert [result.winner for result in model.history.results] == [
                result.winner[0].upper() for result in view.results], after
            assert model.last_round == view.last_round, after
            assert model.stub_count_expected() == (view.stub_count if view.misdeal is None else view.cards_left
                                                   if view.misdeal.kind == "count_mismatch" else None), after
            if model.misdeal is not None and view.misdeal is not None:
                assert list(model.misdeal.get("resolutions") or []) == list(view.misdeal.resolutions), after
                if "manual" in view.misdeal.resolutions:
                    assert model.halt_place == view.misdeal.place, after
        state = json.loads(self.floor.message())
        assert (state["cards_left"], state["status"], state["round"], state["shoe"]) == (
            view.cards_left, view.status, view.round, view.shoe), after
        assert [alert["id"] for alert in state["alerts"]] == [alert.id for alert in view.alerts], after
        assert (state["in_round"], state["slot_due"], state["stopped_by"], state["dealer"], state["stub_count"]) == (
            view.in_round, view.slot_due, view.stopped_by, view.dealer, view.stub_count), after
        misdeal = view.misdeal
        assert state["misdeal"] == (None if misdeal is None else {
            "round": misdeal.round, "kind": misdeal.kind, "detail": misdeal.detail, "detail_id": misdeal.detail_id,
            "detail_params": misdeal.detail_params, "instruction": misdeal.instruction,
            "resolutions": list(misdeal.resolutions)}), after
        last = view.last_result
        assert (state["last_result"] or {}).get("round") == (last.round if last is not None else None), after
        assert state["results"] == [result.winner for result in view.results][-len(state["results"]):] and (
            bool(state["results"]) == bool(view.results)), after
        board_shoe = self.board.scoreboard_state()["shoe"]
        assert (board_shoe["cards_left"], board_shoe["cut_card_out"], board_shoe["closed"], board_shoe["burned"],
                board_shoe["set_aside"], board_shoe["round"]) == (
            view.cards_left, view.cut_card_out, view.closed, view.burned, view.set_aside, view.round or None), after
        statistics = self.board.scoreboard_state()["statistics"]
        assert [statistics[winner] for winner in ("banker", "player", "tie")] == [
            sum(result.winner == winner for result in view.results) for winner in ("banker", "player", "tie")], after
        told = Summary()
        told.counts = Counter(self.summary.counts)
        told.take(view.totals)
        assert told.counts == self.summary.counts, after


def played(config: Settings, inputs: list[Input], resume_at: int | None) -> None:
    table = Table(config)
    consumers = Consumers(table, table.start())
    for index, item in enumerate(inputs):
        if index == resume_at:  # a restart: the table from its checkpoint, the consumers from the events so far
            table = restore(config, json.loads(json.dumps(snapshot(table))))
        consumers.feed(table, table.handle(item))
        consumers.check(table.view, f"after input {index} {item.token()}")


def watched_settings(decks: int, burn: str, auth: bool, dealing: str, count_every: int, tight: bool) -> Settings:
    """A table of the core's property tests, with stub counts due every ``count_every`` rounds, and with ``tight``
    the advantage alerts of :data:`TIGHT_EDGES`."""
    return property_settings(decks, burn, auth, dealing, tight, {"procedures": {"count_every": count_every}})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), decks=st.sampled_from([1, 8]), burn=st.sampled_from(["first_card", "none"]),
       auth=st.booleans(), dealing=st.sampled_from(["face_up", "face_down"]), count_every=st.sampled_from([0, 2]),
       tight=st.booleans())
def test_every_consumer_says_what_the_core_says(data: st.DataObject, decks: int, burn: str, auth: bool,
                                                 dealing: str, count_every: int, tight: bool) -> None:
    """Random games, with stub counts due every other round (``count_every``) and advantage alerts opening,
    following their edge and clearing by themselves (``tight``)."""
    config = watched_settings(decks, burn, auth, dealing, count_every, tight)
    inputs = leading(auth) + [item for token in data.draw(token_lists(auth)) for item in parse_tokens(token)]
    resume_at = data.draw(st.none() | st.integers(min_value=0, max_value=len(inputs)), label="resume at")
    played(config, inputs, resume_at)


def test_a_whole_shoe_with_a_misdeal_of_each_kind() -> None:
    from controller.core.shoe import shoe_with_cut_card

    config = table_settings(1, "first_card", False)
    cards = shoe_with_cut_card(11, 1, 0)
    script = ["@shoe", *cards[:9], "@exposed", "@burn", "??", "@manual 5H", "@double", "@void", "ZZ", "@burn",
              *cards[9:]]
    inputs = [item for token in script for item in parse_tokens(token)]
    played(config, inputs, resume_at=len(inputs) // 2)



def test_a_console_rebuilt_from_the_shoes_events_after_a_restart_shows_the_supervisors_alert() -> None:
    """A resume gives the new console the events of the current shoe only (journal.md): a dealer who signed in during
    an earlier shoe is in none of them. Whether badges are on is the table's to say, not a ``dealer_signed_in`` the
    console must have seen: with badges on, the advantage alert open before the restart is on the console after it
    (it vanished, and the top bar counted no alert open)."""
    from config.loader import load_config
    from tests.controller.core.test_snapshot import DEALER, SUPERVISOR

    layers: dict[str, dict[str, object]] = {"shoe": {"burn": "none"}, "bets": {"alert_above": {"player": -0.5}},
                                            "auth": {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                                                     "badges": {DEALER: {"name": "Alice Martin", "role": "dealer"},
                                                                SUPERVISOR: {"name": "Sam Lee",
                                                                             "role": "supervisor"}}}}
    table = Table(load_config(environ={}, overrides=layers))
    events = table.start()
    for item in parse_tokens(f"@badge {DEALER} @shoe 9S 8H KD 2C @close @badge {SUPERVISOR} @shoe 3S 4D 5H 2D"):
        events += table.handle(item)
    view = table.view
    assert [alert.kind for alert in view.alerts] == ["advantage"] and view.shoe == 2
    continuous, rebuilt = TableView(), TableView()
    for event in events:
        continuous.apply(event)
    shoe_began = max(index for index, event in enumerate(events)
                     if event["event"] == "shoe" and event.get("status") == "new")
    for event in events[shoe_began:]:
        rebuilt.apply(event)
    continuous.show(view)
    rebuilt.show(view)
    assert list(continuous.alerts) == list(rebuilt.alerts) == [alert.id for alert in view.alerts]
    assert continuous.advantage == rebuilt.advantage == [advantage_text(alert) for alert in view.alerts]


def test_a_card_out_while_halted_does_not_hide_the_halt_the_table_is_on() -> None:
    """A card read while the table is halted is a misdeal event of its own (``extra_card``, ``while_halted``), but the
    table stays halted on the first: a foreign card's halt must not turn into an extra card's on the console while
    the floor's state still says foreign card."""
    config = table_settings(1, "first_card", False)
    played(config, leading(False) + parse_tokens("AH AH AS"), resume_at=None)


def test_a_void_that_closes_the_shoe_clears_the_layout_as_the_table_does() -> None:
    """An extra card after the cut card's last round is the next round's misdeal; voiding it closes the shoe with
    that round's (empty) layout. The console kept the settled round's cards because the shoe was closed, while the
    table shows none (found by the property test above: 1 deck, no burn)."""
    config = table_settings(1, "none", False)
    played(config, leading(False) + parse_tokens("AS 5S 5H @cut AH AD @void"), resume_at=None)


def test_advantage_alerts_that_follow_their_bets_edge_say_what_the_table_says() -> None:
    """With badges on, an advantage alert stays open while its bet's advantage lasts and follows the edge each round
    (``alert_updated``) until it clears by itself (``alert_cleared``). The console kept the edge and words of the
    alert's first event, and its status line named the supervisor's advantages of the round's ``alert`` events only:
    from the next round on it named none while the table still had two advantage alerts open."""
    from config.loader import load_config
    from controller.core.shoe import shoe_with_cut_card
    from tests.controller.core.test_snapshot import DEALER, SUPERVISOR

    layers: dict[str, dict[str, object]] = {
        "table": {"decks": 1}, "shoe": {"burn": "none"},
        "bets": {"alert_above": {"banker": -0.012, "player": -0.0125, "tie": -0.145}},
        "auth": {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                 "badges": {DEALER: {"name": "Alice Martin", "role": "dealer"},
                            SUPERVISOR: {"name": "Sam Lee", "role": "supervisor"}}}}
    config = load_config(environ={}, overrides=layers)
    table = Table(config)
    consumers = Consumers(table, table.start())
    updated = cleared = 0
    for token in [f"@badge {DEALER}", "@shoe", *shoe_with_cut_card(5, 1, 0)[:60]]:
        for item in parse_tokens(token):
            for step in [item, *parse_tokens("@next")]:
                if step.kind is InputKind.NEXT and "next" not in table.view.accepts:
                    continue
                events = table.handle(step)
                updated += sum(event.event == "alert_updated" for event in events)
                cleared += sum(event.event == "alert_cleared" for event in events)
                consumers.feed(table, events)
                consumers.check(table.view, f"after {step.token()}")
    assert updated and cleared



def test_the_scoreboard_never_sends_a_state_the_table_did_not_publish() -> None:
    """The board's pages are sent its state whenever it changes (from the server's own thread). Given an input's
    events one by one before the table's view, it had a state made of those events alone in between, which a page
    (or ``/state.json``) could get: two cards out together counted none out of the shoe (414 left of 8 decks, where
    the table says 412, issue 26) and the halt had no layout of the table's."""
    from types import SimpleNamespace

    from config.loader import load_config
    from controller.app.session import Outputs
    from controller.app.stages import ScoreboardStage
    from controller.i18n.catalogue import ENGLISH

    config = load_config(environ={}, overrides={"shoe": {"burn": "none"}})
    table = Table(config)
    outputs = Outputs(notice=lambda text: None)
    stage = ScoreboardStage("127.0.0.1:0", config, ENGLISH)
    stage.join(cast(Session, SimpleNamespace(table=table, outputs=outputs)))
    board = stage.board
    assert board is not None
    sent: list[int] = []
    changed = board.changed

    def recorded() -> None:
        sent.append(board.state()["shoe"]["cards_left"])
        changed()

    board.changed = recorded  # type: ignore[method-assign]
    try:
        outputs.emit(table.start())
        for item in parse_tokens("@shoe 5H 2C @double"):
            sent.clear()
            outputs.emit(table.handle(item))
            assert sent and set(sent) == {table.view.cards_left}, (item.token(), sent)
        assert table.view.cards_left == 412
    finally:
        stage.close()
