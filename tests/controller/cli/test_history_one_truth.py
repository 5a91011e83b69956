"""One truth for the table's state, in ``croupier history``: the shoe and round of every round it lists, its results
and voided rounds, the game's totals, the alerts still open and where each card out of the shoe went are what the
table's own view said, after random games (cards, misdeals of every kind and their resolutions, voids, alerts,
badges and approvals, face-down dealing and its reveals) journaled with a resume from the journal in the middle.

History may word things its own way; what it must never do is follow shoes, rounds, alerts or cards by rules of its
own and come to another answer than the core (issue 26 item 2).
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from config.schema import Settings
from controller.app.runner import Runner
from controller.cli.history import approval_text
from controller.core.events import ApprovalEvent, ApprovalRefusedEvent
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.published import View
from controller.core.table import Table
from controller.journal.replay import attach_journal
from drivers.mock import MockShoe
from tests.controller.core.test_snapshot import DEALER, SUPERVISOR, leading, token_lists
from tests.inprocess import croupier_in_process

WINNERS = ("banker", "player", "tie")


TIGHT_EDGES = {"banker": -0.012, "player": -0.0125, "tie": -0.145}
"""``[bets.alert_above]`` right at the bets' usual edges: advantage alerts open, follow the edge and clear by
themselves all through a shoe."""


def table_settings(decks: int, burn: str, auth: bool, dealing: str, tight: bool = False) -> Settings:
    """A table as the core's property tests deal it, with a checkpoint every few inputs (a resume then restores
    one and replays the rest); ``tight``: with :data:`TIGHT_EDGES`."""
    return property_settings(decks, burn, auth, dealing, tight, {"journal": {"checkpoint_every": 4}})


def property_settings(decks: int, burn: str, auth: bool, dealing: str, tight: bool,
                      more: dict[str, dict[str, object]]) -> Settings:
    """A table of the core's property tests: ``decks``, ``burn``, ``dealing``, badges with ``auth``, the advantage
    alerts of :data:`TIGHT_EDGES` with ``tight``, and the sections ``more``."""
    layers: dict[str, dict[str, object]] = {"table": {"decks": decks, "dealing": dealing}, "shoe": {"burn": burn},
                                            **more}
    if tight:
        layers["bets"] = {"alert_above": TIGHT_EDGES}
    if auth:
        layers["auth"] = {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                          "badges": {DEALER: {"name": "Alice Martin", "role": "dealer"},
                                     SUPERVISOR: {"name": "Bob Stone", "role": "supervisor"}}}
    return load_config(None, environ={}, overrides=layers)


def journaled(config: Settings, inputs: list[Input], path: Path, resume_at: int | None) -> None:
    """Deal ``inputs`` with a journal at ``path`` as ``croupier run`` does, the controller stopped after
    ``resume_at`` of them and started again on the same journal (None: never)."""
    parts = [inputs] if resume_at is None else [inputs[:resume_at], inputs]
    for given_inputs in parts:
        runner = Runner(Table(config), MockShoe("mock://", inputs=given_inputs), lambda events: None,
                        auto_next=False, auto_shoe=False, deliver_all=True)
        journal = attach_journal(runner, path, argv_key={"test": "history one truth"})
        try:
            runner.run()
        finally:
            journal.close()


@dataclass
class Core:
    """What the table's own view said along the game (:attr:`Table.view` after its start and after each input)."""

    views: list[View] = field(default_factory=list)
    approvals: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """Each round's approvals and refusals as the history's column words them, in the view's round they came in."""
    """(shoe, round) of the view after each input a supervisor approved or refused -> how many."""

    @classmethod
    def of(cls, config: Settings, inputs: list[Input]) -> Core:
        table = Table(config)
        table.start()
        found = cls([table.view])
        for item in inputs:
            events = table.handle(item)
            view = table.view
            found.views.append(view)
            found.approvals.setdefault((view.shoe, view.round), []).extend(
                approval_text(event) for event in events if isinstance(event, ApprovalEvent | ApprovalRefusedEvent))
        return found

    @property
    def last(self) -> View:
        return self.views[-1]

    def last_of_shoe(self) -> dict[int, View]:
        return {view.shoe: view for view in self.views}

    def results(self) -> list[tuple[int, int, str, str, str]]:
        """Every round's result, shoe by shoe: (shoe, round, winner, player's cards, banker's cards)."""
        return [(shoe, result.round, result.winner, " ".join(result.player.cards), " ".join(result.banker.cards))
                for shoe, view in sorted(self.last_of_shoe().items()) for result in view.results]

    def voided(self) -> list[tuple[int, int]]:
        """Every voided round: (shoe, round) of the view that counted it."""
        return [(after.shoe, after.round) for before, after in zip(self.views, self.views[1:], strict=False)
                if after.totals.voided > before.totals.voided]

    def layouts(self) -> dict[int, dict[str, str | None]]:
        """Each round (numbered through the game) -> its cards by slot, as the view last showed them (face-down ones
        without their code)."""
        return {view.round: {card.slot: card.card for card in view.cards} for view in self.views if view.round}


def history(path: Path, *options: str) -> str:
    run = croupier_in_process("history", str(path), *options)
    assert run.returncode == 0, run.stderr
    return run.stdout


def check_rounds(core: Core, path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(history(path, "--csv"))))
    results = [(int(row["shoe"]), int(row["round"]), row["outcome"], row["player_cards"], row["banker_cards"])
               for row in rows if row["outcome"] in WINNERS]
    assert results == core.results()
    assert [(int(row["shoe"]), int(row["round"])) for row in rows if row["outcome"] == "void"] == core.voided()
    assert sum(len(row["misdeals"].split("; ")) for row in rows if row["misdeals"]) == core.last.totals.misdeal
    approvals = {(int(row["shoe"]), int(row["round"])): row["approvals"] for row in rows}
    assert approvals == {key: "; ".join(core.approvals.get(key, [])) for key in approvals}


def check_text(core: Core, path: Path) -> None:
    text = history(path)
    totals = core.last.totals
    counted = re.search(r"^(\d+) rounds? with a result, (\d+) voided$", text, re.MULTILINE)
    assert counted is not None, text
    assert (int(counted.group(1)), int(counted.group(2))) == (totals.rounds, totals.voided)
    still_open = sorted(re.findall(r"^  OPEN ALERT shoe (\d+) round (\d+): \S+ (A\d+) ", text, re.MULTILINE),
                        key=lambda found: int(found[2][1:]))
    assert still_open == [(str(alert.shoe), str(alert.round), alert.id) for alert in core.last.alerts], text
    if core.last.alerts:
        assert re.search(rf"^\d+ alert\(s\), {len(core.last.alerts)} open$", text, re.MULTILINE), text


def check_cards(core: Core, path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(history(path, "--cards", "--csv"))))
    by_shoe = Counter((int(row["shoe"]), row["slot"]) for row in rows)
    last = core.last
    for shoe, view in core.last_of_shoe().items():
        held = view.misdeal.held if view is last and view.misdeal is not None else 0
        assert (by_shoe[shoe, "burn"], by_shoe[shoe, "held"]) == (view.burned, held), (shoe, by_shoe)
    dealt_in: dict[int, set[int]] = {}  # the rounds of each shoe: dealt, or voided before their first card
    before: View | None = None
    for view in core.views:
        voided = before is not None and view.totals.voided > before.totals.voided
        if view.in_round or voided:
            dealt_in.setdefault(view.shoe, set()).add(view.round)
        before = view
    strays = [row for row in rows if int(row["round"]) and int(row["round"]) not in dealt_in.get(int(row["shoe"]), ())]
    assert not strays, "a card out of a shoe named a round the table did not deal from it"
    placed: dict[int, dict[str, str]] = {}
    for row in rows:
        if row["slot"][0] in "PB":
            placed.setdefault(int(row["round"]), {})[row["slot"]] = row["card"]
    layouts = core.layouts()
    assert set(placed) <= set(layouts)
    for key, layout in layouts.items():
        shown = placed.get(key, {})
        assert set(shown) == set(layout), (key, shown, layout)
        assert all(code is None or shown[slot] == code for slot, code in layout.items()), (key, shown, layout)


def check(config: Settings, inputs: list[Input], path: Path, resume_at: int | None) -> None:
    journaled(config, inputs, path, resume_at)
    core = Core.of(config, inputs)
    check_rounds(core, path)
    check_text(core, path)
    check_cards(core, path)


DEALT = frozenset({InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE})


def dealt(config: Settings, auth: bool, tokens: list[str], ack_after: int = 2) -> list[Input]:
    """The inputs that get dealing going (:func:`leading`), then ``tokens`` as a dealer gives them: before each card
    the dealer reveals the hands that are down, counts the stub when asked to, starts the next round when the
    table takes it, and acknowledges a critical alert that stops the table once ``ack_after`` cards were read
    while it did."""
    table = Table(config)
    table.start()
    inputs = leading(auth)
    for item in inputs:
        table.handle(item)
    stopped_cards = 0

    def give(item: Input) -> None:
        inputs.append(item)
        table.handle(item)

    for item in (item for token in tokens for item in parse_tokens(token)):
        if item.kind in DEALT:
            view = table.view
            if view.stopped_by is not None and stopped_cards >= ack_after:
                give(Input(InputKind.ACK, view.stopped_by))
                stopped_cards = 0
            for kind in (InputKind.REVEAL, InputKind.REVEAL, InputKind.COUNT, InputKind.NEXT):
                if kind.value in table.view.accepts:
                    give(Input(kind))
            stopped_cards += table.view.stopped_by is not None
        give(item)
    return inputs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data(), decks=st.sampled_from([1, 8]), burn=st.sampled_from(["first_card", "none"]),
       auth=st.booleans(), dealing=st.sampled_from(["face_up", "face_down"]), tight=st.booleans(),
       dealer=st.booleans())
def test_history_says_what_the_core_says(tmp_path: Path, data: st.DataObject, decks: int, burn: str, auth: bool,
                                         dealing: str, tight: bool, dealer: bool) -> None:
    """Random inputs, or (``dealer``) random cards and misdeals with a dealer who deals rounds through."""
    config = table_settings(decks, burn, auth, dealing, tight)
    tokens = data.draw(token_lists(auth))
    inputs = dealt(config, auth, tokens) if dealer else leading(auth) + [item for token in tokens
                                                                         for item in parse_tokens(token)]
    resume_at = data.draw(st.none() | st.integers(min_value=1, max_value=len(inputs)), label="resume after")
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "table.journal"
    check(config, inputs, path, resume_at)


def test_a_whole_shoe_with_a_misdeal_of_each_kind(tmp_path: Path) -> None:
    """Rounds played through a seeded shoe with advantage alerts opening and clearing by themselves, a misdeal of each
    kind the dealer's inputs raise with its resolutions, an undo, the shoe closed with a card read after it, then
    a shoe in new-deck order that the unshuffled-shoe alert stops (cards read meanwhile are set aside until it is
    acknowledged); the controller restarted halfway."""
    from controller.core.cards import full_deck
    from controller.core.shoe import shoe_with_cut_card

    config = table_settings(8, "first_card", False, "face_up", tight=True)
    cards = shoe_with_cut_card(11, 8, 0)
    unshuffled = [card.code for card in reversed(full_deck())]
    inputs = dealt(config, False, [
        *cards[:9], "@exposed", "@burn", "??", "@manual 5H", "@undo", "@manual 6H", "@double", "@void", "ZZ",
        "@burn", *cards[9:20], "@exposed", "@use", *cards[20:26], "??", "@burn", *cards[26:40], "@offline",
        cards[40], "@online", *cards[41:62], "@close", "4C", "@burn", "@shoe", *unshuffled[:30]])
    check(config, inputs, tmp_path / "table.journal", resume_at=len(inputs) // 2)


def test_face_down_rounds_with_badges_and_approvals(tmp_path: Path) -> None:
    """Face-down rounds revealed hand by hand, a dealer signed in with a badge, misdeals whose resolutions need the
    supervisor's badge, an extra card voided, a resume in the middle of a round."""
    from controller.core.shoe import shoe_with_cut_card

    config = table_settings(8, "none", True, "face_down", tight=True)
    cards = shoe_with_cut_card(5, 8, 0)
    inputs = dealt(config, True, [
        *cards[:12], "@double", f"@badge {SUPERVISOR}", "@void", *cards[12:20], "ZZ", "@burn",
        *cards[20:30], "@exposed", f"@badge {SUPERVISOR}", "@void", *cards[30:50]])
    check(config, inputs, tmp_path / "table.journal", resume_at=len(inputs) // 2 + 1)


def test_the_first_round_of_a_later_shoe_dealt_without_a_burn(tmp_path: Path) -> None:
    """With no burn, the dealer's confirmation of a new shoe starts its first round at once: that round's cards are in
    their slots of that round, as the core dealt them, never held by a misdeal in no round."""
    config = table_settings(8, "none", False, "face_up")
    inputs = leading(False) + [item for token in ("9S", "8H", "KD", "2C", "@close", "@shoe", "3S", "4H", "5D", "6C",
                                                   "@close", "@shoe", "7S", "7H", "AC", "AD")
                               for item in parse_tokens(token)]
    check(config, inputs, tmp_path / "table.journal", resume_at=None)


def test_an_exposed_call_taken_back_is_no_misdeal_in_the_csv(tmp_path: Path) -> None:
    """``@exposed`` then ``@undo``: the table counts no misdeal (the shoe report, the summary), so neither does the
    CSV's misdeals column; a second exposed call in the round that stands is still there."""
    config = table_settings(8, "none", False, "face_up")
    inputs = dealt(config, False, ["9S", "8H", "@exposed", "@undo", "KD", "2C", "3S", "4D", "5H", "@exposed", "@use",
                                   "2D", "7S", "7H", "@exposed", "@burn", "AC", "@exposed", "@undo", "AD", "2C", "3C"])
    core = Core.of(config, inputs)
    assert core.last.totals.misdeal == 2
    check(config, inputs, tmp_path / "table.journal", resume_at=None)
