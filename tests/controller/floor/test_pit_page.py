"""The pit page ranks what matters (issue 28 items 9-11), drawn in a real Chromium.

The board is fed the tables' retained ``state`` and ``status`` as the broker gives them (``receive``); the states
are what a real table publishes (its core's view through :class:`~controller.floor.messages.TableState`), so the
page shows them as the table says them. The whole floor, with a real Mosquitto and ``croupier floor``, is in
``test_dashboard.py`` (and a critical alert there, below).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.core.inputs import parse_tokens
from controller.core.sequence_check import factory_order
from controller.core.table import Table
from controller.floor.board import FloorBoard
from controller.floor.dashboard import Dashboard, start_dashboard
from controller.floor.messages import TableState
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.kinds import kind_name
from tests.browser import DevTools, browser
from tests.controller.floor.mosquitto import DEADLINE, wait_for

FACTORY = factory_order(8)
CRITICAL_SCRIPT = f"@shoe {' '.join(FACTORY[:40])}"
"""A factory-order shoe: two critical alerts (an unshuffled shoe, a repeated sequence), the table stopped."""
HALTING_SCRIPT = "@shoe 5H 2C 3C AS @next AS AS"
"""One round, then a card that cannot be in a one-deck shoe: halted mid-round 2."""
WINDOWS = [(1920, 1080), (1280, 720), (1080, 1920)]


def utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def published_state(site: str, name: str, script: str, *, decks: int = 8, settings: dict[str, Any] | None = None,
                    **fields: Any) -> dict[str, Any]:
    """The ``state`` a real table publishes after ``script`` (its core's view, with ``settings`` overriding the
    config's sections), with journal ``fields`` set."""
    config = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "table": {"decks": decks},
                                                **(settings or {})})
    table = Table(config)
    table.start()
    for item in parse_tokens(script):
        table.handle(item)
    state = TableState(site, name)
    state.show(table.view)
    message: dict[str, Any] = json.loads(state.message())
    message.update(fields)
    return message


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[FloorBoard, Dashboard]]:
    language = getattr(request, "param", "en")
    board = FloorBoard("mqtt://127.0.0.1:1883")
    board.set_connected(True)
    dashboard = start_dashboard(board, "127.0.0.1", 0, words=Catalogue(language))
    board.changed = dashboard.changed
    try:
        yield board, dashboard
    finally:
        dashboard.close()


def put(board: FloorBoard, state: dict[str, Any], status: str = "online") -> None:
    site, name = state["site"], state["table"]
    board.receive(f"croupier/{site}/{name}/state", json.dumps(state).encode())
    board.receive(f"croupier/{site}/{name}/status", status.encode(), retained=True)


def wall_screen(page: DevTools, window: tuple[int, int]) -> None:
    """Show the page on a screen of exactly ``window`` CSS pixels (a wall screen: no browser frame), loaded anew."""
    page.call("Emulation.setDeviceMetricsOverride", width=window[0], height=window[1], deviceScaleFactor=1,
              mobile=False)
    page.reload(timeout=DEADLINE)
    page.wait_for(f"window.innerWidth === {window[0]} && window.innerHeight === {window[1]}", timeout=DEADLINE)


def tile_facts(page: DevTools, name: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(f"""(() => {{
        const tile = document.querySelector('.tile[data-table="{name}"]');
        const style = getComputedStyle(tile);
        const text = (selector) => tile.querySelector(selector)?.textContent ?? null;
        const visible = (selector) => {{
            const node = tile.querySelector(selector);
            return Boolean(node) && getComputedStyle(node).display !== 'none' && node.textContent !== '';
        }};
        return {{classes: [...tile.classList], status: tile.dataset.status, badge: text('.status'),
                 criticalBadge: text('.critical-badge'), critical: text('.critical-alerts'),
                 criticalShown: visible('.critical-alerts'), alerts: text('.alerts'), misdeal: text('.misdeal'),
                 ended: text('.ended'), endedShown: visible('.ended'), last: text('.last-result'),
                 stubCount: text('.stub-count'), stubCountShown: visible('.stub-count'),
                 border: style.borderTopColor, borderStyle: style.borderTopStyle, background: style.backgroundColor,
                 text: tile.innerText}};
    }})()""")
    return found


# --------------------------------------------------------------------------- item 9


@pytest.mark.slow
def test_critical_alerts_stand_out_like_a_halt_and_are_counted_in_the_header(
        served: tuple[FloorBoard, Dashboard], tmp_path: Path) -> None:
    board, dashboard = served
    now = datetime.now(UTC)
    alerting = published_state("s", "alerting", CRITICAL_SCRIPT, last_card_at=utc(now), updated_at=utc(now))
    critical = [alert for alert in alerting["alerts"] if alert["severity"] == "critical"]
    assert len(critical) == 2, alerting["alerts"]
    for alert in alerting["alerts"]:
        alert["at"] = utc(now - timedelta(seconds=125))
    # The table of the issue: its edition does not stop on a critical alert, so it says it is online.
    alerting.update(status="online", stopped_by=None)
    warnings = [{**critical[0], "id": f"W{n}", "severity": "warning", "kind": "advantage", "detail": "edge"}
                for n in range(3)]
    alerting["alerts"] = alerting["alerts"] + warnings
    put(board, alerting)
    put(board, published_state("s", "halted", HALTING_SCRIPT, decks=1))
    put(board, published_state("s", "quiet", "@shoe 5H 2C 3C AS", last_card_at=utc(now), updated_at=utc(now)))
    with browser(dashboard.url, window=(1920, 1080)) as page:
        page.wait_for("document.querySelectorAll('#tiles .tile').length === 3", timeout=DEADLINE)
        shown, halted, quiet = (tile_facts(page, name) for name in ("alerting", "halted", "quiet"))
        print(f"\nscreenshot: {page.screenshot(tmp_path / 'critical.png')}")
        assert "critical" in shown["classes"] and "attention" in shown["classes"]
        assert (shown["border"], shown["background"]) == (halted["border"], halted["background"]), \
            "a critical alert stands out as a halt does"
        assert (quiet["border"], quiet["background"]) != (halted["border"], halted["background"])
        assert shown["criticalBadge"] == "critical \u00d72" and shown["criticalShown"]
        for alert in critical:
            assert f"critical {kind_name(alert['kind'], ENGLISH)}: " in shown["critical"]  # the kind in words
        ages = [int(seconds) for seconds in re.findall(r"\(2 min (\d+) s ago\)", shown["critical"])]
        assert len(ages) == 2 and all(5 <= seconds < 60 for seconds in ages), shown["critical"]  # opened 125 s ago
        assert shown["alerts"] == "3 warnings", "warnings collapse to a count"
        assert "edge" not in shown["text"]
        header = page.evaluate("[...document.querySelectorAll('#alert-counts span')].map(s => [s.className, "
                               "s.dataset.count, s.textContent])")
        assert header == [["critical some", "2", "2 critical alerts"], ["warning", "3", "3 warnings"]]


# --------------------------------------------------------------------------- item 10


def busy_floor(count: int) -> list[tuple[dict[str, Any], str]]:
    """``count`` tables of every kind, with the longest texts a tile holds: halted, critical, lost, closed..."""
    now = datetime.now(UTC)
    dealt = " ".join(FACTORY[200:260])
    kinds = [
        (published_state("s", "", f"@shoe {' '.join(['5H', '2C', '3C', 'AS'] * 1)}"), "online"),
        (published_state("s", "", HALTING_SCRIPT, decks=1), "online"),
        (published_state("s", "", CRITICAL_SCRIPT), "online"),
        (published_state("s", "", f"@shoe {dealt}"), "offline"),
        (published_state("s", "", "@shoe 5H 2C 3C AS @next 9D"), "offline"),
    ]
    floor = []
    for index in range(count):
        state, status = kinds[index % len(kinds)]
        name = f"table-with-a-long-name-{index:03d}" if index % 7 == 0 else f"t{index:03d}"
        floor.append(({**state, "table": name, "dealer": "Dealer With A Long Name" if index % 3 else None,
                       "last_card_at": utc(now - timedelta(seconds=index * 7)), "updated_at": utc(now),
                       "head": {"seq": 100 + index, "hash": "ab"}}, status))
    return floor


SCREENS = [("en", window) for window in WINDOWS] + [("ko", (1280, 720)), ("es", (1080, 1920))]


@pytest.mark.slow
@pytest.mark.parametrize(("served", "window"), SCREENS, ids=[f"{w}x{h}-{lang}" for lang, (w, h) in SCREENS],
                         indirect=["served"])
def test_the_page_fits_the_screen_with_fixed_tiles_at_20_50_and_200_tables(
        served: tuple[FloorBoard, Dashboard], window: tuple[int, int], tmp_path: Path) -> None:
    board, dashboard = served
    floor = busy_floor(200)
    with browser(dashboard.url, window=window) as page:
        wall_screen(page, window)
        for count in (20, 50, 200):
            for state, status in floor[:count]:
                if state["table"] not in {tile["table"] for tile in board.snapshot()["tables"]}:
                    put(board, state, status)
            page.wait_for(f"document.querySelectorAll('#tiles .tile').length === {count}", timeout=DEADLINE)
            time.sleep(1.2)  # a tick of the page's clock: the ages it writes every second fit too
            measured = page.evaluate("""(() => {
                const tiles = [...document.querySelectorAll('#tiles .tile')];
                const overflowing = tiles.filter(tile => tile.scrollHeight > tile.clientHeight + 1 ||
                                                         tile.scrollWidth > tile.clientWidth + 1)
                                         .map(tile => tile.dataset.table);
                const below = tiles.filter(tile => tile.getBoundingClientRect().bottom > window.innerHeight)
                                   .map(tile => tile.dataset.table);
                const nameCut = tiles.filter(tile => {
                    const name = tile.querySelector('.name').getBoundingClientRect();
                    const box = tile.getBoundingClientRect();
                    const short = tile.dataset.table.length <= 4;  // a short name is shown whole
                    return name.height === 0 || name.bottom > box.bottom || name.right > box.right ||
                           (short && tile.querySelector('.name').scrollWidth > tile.querySelector('.name').clientWidth);
                }).map(tile => tile.dataset.table);
                return {document: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth,
                        viewport: window.innerHeight, heights: [...new Set(tiles.map(t => t.offsetHeight))],
                        overflowing: overflowing, below: below, nameCut: nameCut,
                        level: document.getElementById('tiles').dataset.level};
            })()""")
            print(f"\n{window[0]}x{window[1]}, {count} tables: {measured.get('level')} tiles "
                  f"{measured['heights']} px, screenshot {page.screenshot(tmp_path / f'{count}.png', *window)}")
            assert measured["document"] <= measured["viewport"] and measured["width"] <= window[0], measured
            assert measured["below"] == [] and measured["overflowing"] == [] and measured["nameCut"] == [], measured
            assert len(measured["heights"]) == 1, "every tile has the same fixed size"


# --------------------------------------------------------------------------- item 11


@pytest.mark.slow
def test_the_idle_highlight_stays_while_the_table_is_idle_whatever_else_changes(
        served: tuple[FloorBoard, Dashboard]) -> None:
    board, dashboard = served
    now = datetime.now(UTC)
    put(board, published_state("s", "idle", "@shoe 5H 2C 3C AS", last_card_at=utc(now - timedelta(minutes=5))))
    busy = published_state("s", "busy", "@shoe 5H 2C 3C AS", last_card_at=utc(now))
    stop = threading.Event()

    def deal() -> None:  # another table's records, ten a second: the page draws each new snapshot
        seq = 0
        while not stop.is_set():
            seq += 1
            moment = utc(datetime.now(UTC))
            put(board, {**busy, "head": {"seq": seq, "hash": "ab"}, "last_card_at": moment, "updated_at": moment})
            time.sleep(0.1)

    dealer = threading.Thread(target=deal, daemon=True)
    dealer.start()
    try:
        with browser(dashboard.url, window=(1920, 1080)) as page:
            page.wait_for("document.querySelectorAll('#tiles .tile').length === 2", timeout=DEADLINE)
            samples = []
            for _ in range(60):
                samples.append(page.evaluate("""(() => {
                    const idle = document.querySelector('.tile[data-table="idle"]');
                    const busy = document.querySelector('.tile[data-table="busy"]');
                    return [idle.classList.contains('idle'), Boolean(idle.querySelector('.since-card.stale')),
                            busy.classList.contains('idle'), Boolean(busy.querySelector('.since-card.stale')),
                            Number(document.body.dataset.seq)];
                })()"""))
                time.sleep(0.13)
    finally:
        stop.set()
        dealer.join(timeout=DEADLINE)
    assert len({sample[4] for sample in samples}) > 20, "the page drew many snapshots meanwhile"
    assert [sample[:4] for sample in samples] == [[True, True, False, False]] * len(samples), \
        [sample for sample in samples if sample[:4] != [True, True, False, False]][:5]


@pytest.mark.slow
def test_a_table_lost_mid_round_looks_different_from_one_closed_normally(
        served: tuple[FloorBoard, Dashboard], tmp_path: Path) -> None:
    board, dashboard = served
    mid = published_state("s", "mid", "@shoe 5H 2C 3C AS @next 9D 8C")
    between = published_state("s", "between", "@shoe 5H 2C 3C AS")
    assert mid["in_round"] is True and between["in_round"] is False
    put(board, mid, "offline")  # its Last Will: the state still says online
    put(board, between, "offline")
    put(board, {**between, "table": "closed", "status": "offline"}, "offline")  # a clean stop says offline itself
    with browser(dashboard.url, window=(1920, 1080)) as page:
        page.wait_for("document.querySelectorAll('#tiles .tile').length === 3", timeout=DEADLINE)
        lost, gone, closed = (tile_facts(page, name) for name in ("mid", "between", "closed"))
        print(f"\nscreenshot: {page.screenshot(tmp_path / 'lost.png')}")
    assert lost["status"] == gone["status"] == closed["status"] == "offline"
    assert "lost" in lost["classes"] and "mid-round" in lost["classes"] and lost["badge"] == "lost"
    assert lost["ended"] == "Lost mid-round 2: bets are on the layout" and lost["endedShown"]
    assert gone["ended"] == "Lost between rounds, after round 1" and "mid-round" not in gone["classes"]
    assert closed["ended"] == "Closed normally after round 1" and "lost" not in closed["classes"]
    looks = {name: (tile["border"], tile["borderStyle"], tile["background"])
             for name, tile in (("mid", lost), ("between", gone), ("closed", closed))}
    assert len(set(looks.values())) == 3, looks


@pytest.mark.slow
def test_the_archives_health_has_its_place_and_a_silent_archive_stands_out(
        served: tuple[FloorBoard, Dashboard]) -> None:
    board, dashboard = served
    now = datetime.now(UTC)
    put(board, published_state("s", "t1", "@shoe 5H 2C 3C AS"))
    health = {"archive": "a1", "status": "online", "at": utc(now), "broker": "mqtt://b:1883", "database": "connected",
              "lag": 0.02, "stored": 9, "duplicates": 0, "pending": 0, "deferred": 0, "rejected": 0, "tables": {}}
    board.receive("croupier-archive/a1/health", json.dumps(health).encode())
    board.receive("croupier-archive/a2/health", json.dumps({**health, "archive": "a2",
                                                            "at": utc(now - timedelta(minutes=2))}).encode())
    with browser(dashboard.url, window=(1920, 1080)) as page:
        page.wait_for("document.querySelectorAll('#archives .archive').length === 2", timeout=DEADLINE)
        shown = page.evaluate("""(() => {
            const place = document.getElementById('archive-health');
            const box = place.getBoundingClientRect();
            return {label: place.querySelector('.label').textContent, lost: place.classList.contains('lost'),
                    inHeader: place.closest('header') !== null && box.width > 0 && box.bottom <= innerHeight,
                    archives: [...place.querySelectorAll('.archive')].map(a => [a.dataset.archive, a.className,
                                                                              a.textContent])};
        })()""")
    assert shown["label"] == "Archive" and shown["inHeader"] and shown["lost"]
    assert shown["archives"][0] == ["a1", "archive", "archive a1: lag 0.02 s"]
    assert shown["archives"][1][:2] == ["a2", "archive lost"] and "a2: silent for 1" in shown["archives"][1][2]


@pytest.mark.slow
@pytest.mark.parametrize("served", ["ko"], indirect=True)
def test_the_tables_own_texts_are_in_the_pages_language(served: tuple[FloorBoard, Dashboard]) -> None:
    board, dashboard = served
    halted = published_state("s", "halted", HALTING_SCRIPT, decks=1)
    alerting = published_state("s", "alerting", CRITICAL_SCRIPT)
    english = {"result": halted["last_result"]["say"], "misdeal": halted["misdeal"]["detail"],
               "instruction": halted["misdeal"]["instruction"], "alert": alerting["alerts"][0]["detail"]}
    put(board, halted)
    put(board, alerting)
    with browser(dashboard.url, window=(1920, 1080)) as page:
        page.wait_for("document.documentElement.lang === 'ko' && "
                      "document.querySelectorAll('#tiles .tile').length === 2", timeout=DEADLINE)
        page.wait_for("document.querySelector('.tile[data-table=\"halted\"] .last-result').textContent !== ''")
        texts = page.evaluate("""(() => {
            const tile = (name) => document.querySelector(`.tile[data-table="${name}"]`);
            return {result: tile('halted').querySelector('.last-result').textContent,
                    misdeal: tile('halted').querySelector('.misdeal').textContent,
                    alert: tile('alerting').querySelector('.critical-alerts').textContent};
        })()""")
    catalogue = Catalogue("ko")
    assert english["result"] not in texts["result"] and texts["result"] == catalogue.text(
        _message(halted["last_result"]["say_id"], halted["last_result"]["say_params"]))
    assert english["misdeal"] not in texts["misdeal"] and english["instruction"] not in texts["misdeal"]
    assert catalogue.text(_message(halted["misdeal"]["detail_id"], halted["misdeal"]["detail_params"])) \
        in texts["misdeal"]
    assert english["alert"] not in texts["alert"]
    assert catalogue.text(_message(alerting["alerts"][0]["say_id"], alerting["alerts"][0]["say_params"])) \
        in texts["alert"]


@pytest.mark.slow
@pytest.mark.parametrize("served", ["ko"], indirect=True)
def test_a_table_waiting_for_its_stub_count_says_so_with_the_cards_it_should_find(
        served: tuple[FloorBoard, Dashboard]) -> None:
    """A supervisor sees which tables wait for the dealer's stub count ([procedures] count_every), in the page's
    language, and the tile stops saying it once the stub is counted."""
    board, dashboard = served
    config = {"procedures": {"count_every": 1}}
    waiting = published_state("s", "waiting", "@shoe 5H 2C 3C AS", settings=config)
    assert waiting["stub_count"] == 412
    counted = published_state("s", "counted", "@shoe 5H 2C 3C AS @count", settings=config)
    put(board, waiting)
    put(board, counted)
    with browser(dashboard.url, window=(1920, 1080)) as page:
        page.wait_for("document.documentElement.lang === 'ko' && "
                      "document.querySelectorAll('#tiles .tile').length === 2", timeout=DEADLINE)
        page.wait_for("document.querySelector('.tile[data-table=\"waiting\"] .stub-count').textContent !== ''",
                      timeout=DEADLINE)
        waiting_tile, counted_tile = tile_facts(page, "waiting"), tile_facts(page, "counted")
    assert waiting_tile["stubCountShown"] and "412" in waiting_tile["stubCount"]
    assert waiting_tile["stubCount"] == Catalogue("ko").say("dashboard.stub_count_due",
                                                             "Stub count due: {cards} cards", cards=412)
    assert not counted_tile["stubCountShown"]


def _message(msg_id: str, params: dict[str, Any]) -> Any:
    from controller.i18n.message import Message

    english = Catalogue("en").english_text(msg_id)
    assert english is not None, msg_id
    return Message(msg_id, english, params)


# --------------------------------------------------------------------------- the whole floor


@pytest.mark.slow
def test_a_table_stopped_on_critical_alerts_is_counted_and_stands_out_on_croupier_floor(
        broker: str, site: str, tmp_path: Path) -> None:
    from tests.controller.floor.test_dashboard import Floor, table

    stopped = table(site, "stopped", tmp_path / "stopped.journal", "--no-burn", "--pace", "0.3", "--cards",
                    CRITICAL_SCRIPT + " @offline @online" * 200, broker=broker)
    floor = Floor(broker)
    try:
        wait_for(lambda: floor.tables(site).get("stopped", {}).get("critical") == 2, "two critical alerts on the tile")
        tile = floor.tables(site)["stopped"]
        assert tile["attention"] and tile["status"] == "halted" and tile["stopped_by"]
        with browser(floor.url, window=(1920, 1080)) as page:
            page.wait_for(f"document.querySelector('.tile[data-site=\"{site}\"][data-table=\"stopped\"]')"
                          "?.classList.contains('critical')", timeout=DEADLINE)
            assert page.evaluate("Number(document.querySelector('#alert-counts .critical').dataset.count)") >= 2
            banner = page.evaluate(f"document.querySelector('.tile[data-site=\"{site}\"] .critical-alerts')"
                                   ".textContent")
            assert banner.startswith(f"Stopped on critical alert {tile['stopped_by']}"), banner
    finally:
        stopped.kill()
        stopped.communicate(timeout=DEADLINE)
        status, stderr = floor.stop()
    assert status == 0, stderr


def test_each_pushed_snapshot_carries_the_seq_it_was_pushed_as_while_the_tables_change() -> None:
    """The pages get a snapshot only when its seq is newer than the one they were sent: a snapshot sent under a
    later seq than its own would leave a page on an old floor until the next change (seen at 200 tables)."""
    board = FloorBoard("mqtt://127.0.0.1:1883")
    dashboard = Dashboard(board, "127.0.0.1", 0)
    state = published_state("s", "t1", "@shoe 5H 2C 3C AS")
    stop = threading.Event()

    def change() -> None:
        seq = 0
        while not stop.is_set():
            seq += 1
            put(board, {**state, "table": f"t{seq % 50}", "head": {"seq": seq, "hash": "ab"}})

    changer = threading.Thread(target=change, daemon=True)
    changer.start()
    try:
        pushed = [dashboard.snapshot() for _ in range(300)]
    finally:
        stop.set()
        changer.join(timeout=DEADLINE)
    assert len({seq for _, seq in pushed}) > 10, "the tables changed meanwhile"
    assert [json.loads(text)["seq"] for text, _ in pushed] == [seq for _, seq in pushed]
