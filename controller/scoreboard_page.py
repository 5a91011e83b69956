"""The scoreboard's web page, embedded so the package needs no data files.

The page opens a WebSocket to ``/ws`` on its own host, draws every state
message it gets (a message older than the one it shows is ignored) and
reconnects by itself when the socket closes. It draws only what the server
sends, so a reload shows the same board. Element ids the tests read:
``#bead-plate``, ``#big-road``, ``#big-eye-boy``, ``#small-road``,
``#cockroach-pig`` (cells with ``data-col``/``data-row``), ``#last-results``,
``#stats`` and ``#status``; ``body[data-seq]`` is the state shown.
"""

from __future__ import annotations

from typing import Final

PAGE_HTML: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Croupier scoreboard</title>
<style>
  :root { --banker: #d62828; --player: #1d4ed8; --tie: #15803d; --cell: 26px; }
  * { box-sizing: border-box; }
  body { margin: 0; font-family: system-ui, "Noto Sans", "Noto Sans CJK KR", sans-serif;
         background: #0b3d2e; color: #f5f5f4; }
  header { display: flex; justify-content: space-between; align-items: baseline;
           padding: 8px 16px; background: #072a20; }
  header h1 { font-size: 20px; margin: 0; letter-spacing: 0.05em; }
  #status { font-size: 13px; opacity: 0.8; }
  #status.offline { color: #fca5a5; opacity: 1; }
  main { display: grid; grid-template-columns: minmax(0, 1fr) 300px; gap: 12px; padding: 12px 16px; }
  section { background: #fff; color: #111; border-radius: 6px; padding: 6px 8px; margin-bottom: 10px;
            overflow-x: auto; }
  section h2 { font-size: 13px; margin: 0 0 4px 0; text-transform: uppercase; color: #444; }
  .road { display: grid; grid-auto-flow: column; grid-template-rows: repeat(6, var(--cell));
          grid-auto-columns: var(--cell); width: max-content; min-width: 100%;
          background-image: linear-gradient(#ddd 1px, transparent 1px),
                            linear-gradient(90deg, #ddd 1px, transparent 1px);
          background-size: var(--cell) var(--cell); }
  .road.small { --cell: 14px; }
  .cell { position: relative; display: flex; align-items: center; justify-content: center;
          font-weight: 700; font-size: 12px; }
  .bead { border-radius: 50%; margin: 2px; color: #fff; }
  .bead.B { background: var(--banker); } .bead.P { background: var(--player); }
  .bead.T { background: var(--tie); }
  .ring { border-radius: 50%; margin: 3px; border: 3px solid; }
  .ring.B { border-color: var(--banker); } .ring.P { border-color: var(--player); }
  .tie-mark { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
              color: var(--tie); font-size: 11px; }
  .tie-mark::before { content: ""; position: absolute; width: 130%; height: 2px; background: var(--tie);
                      transform: rotate(-45deg); }
  .tie-mark span { position: relative; background: #fff; padding: 0 1px; line-height: 1; }
  .dot { position: absolute; width: 7px; height: 7px; border-radius: 50%; border: 1px solid #fff; }
  .dot.bp { background: var(--banker); top: -1px; left: -1px; }
  .dot.pp { background: var(--player); bottom: -1px; right: -1px; }
  .dot.nat { background: #facc15; top: -1px; right: -1px; }
  .derived.red.big_eye_boy, .derived.blue.big_eye_boy { border-radius: 50%; border: 2px solid; margin: 2px; }
  .derived.small_road { border-radius: 50%; margin: 3px; }
  .derived.cockroach_pig::before { content: ""; width: 120%; height: 2px; transform: rotate(-45deg); }
  .derived.red.big_eye_boy { border-color: var(--banker); }
  .derived.blue.big_eye_boy { border-color: var(--player); }
  .derived.red.small_road { background: var(--banker); } .derived.blue.small_road { background: var(--player); }
  .derived.red.cockroach_pig::before { background: var(--banker); }
  .derived.blue.cockroach_pig::before { background: var(--player); }
  aside section { color: #111; }
  #stats table { width: 100%; border-collapse: collapse; font-size: 14px; }
  #stats td { padding: 2px 4px; } #stats td.n { text-align: right; font-variant-numeric: tabular-nums; }
  .B-text { color: var(--banker); font-weight: 700; } .P-text { color: var(--player); font-weight: 700; }
  .T-text { color: var(--tie); font-weight: 700; }
  #last-results ol { margin: 0; padding-left: 22px; font-size: 14px; }
  #last-results li { padding: 1px 0; }
  footer { text-align: center; padding: 10px; font-size: 16px; background: #072a20; }
  footer p { margin: 2px; }
</style>
</head>
<body data-seq="-1">
<header>
  <h1>SCOREBOARD</h1>
  <div id="status" class="offline">connecting…</div>
</header>
<main>
  <div>
    <section><h2>Big road</h2><div id="big-road" class="road"></div></section>
    <section><h2>Bead plate</h2><div id="bead-plate" class="road"></div></section>
    <section><h2>Big eye boy</h2><div id="big-eye-boy" class="road small"></div></section>
    <section><h2>Small road</h2><div id="small-road" class="road small"></div></section>
    <section><h2>Cockroach pig</h2><div id="cockroach-pig" class="road small"></div></section>
  </div>
  <aside>
    <section id="stats"><h2>Shoe</h2><table><tbody></tbody></table></section>
    <section id="last-results"><h2>Last results</h2><ol></ol></section>
  </aside>
</main>
<footer id="responsible-gaming">
  <p lang="en">Past results do not predict the next one.</p>
  <p lang="ko">지난 결과는 다음 결과를 예측하지 않습니다.</p>
</footer>
<script>
"use strict";
const NAMES = { B: "Banker", P: "Player", T: "Tie" };
let shown = -1;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function place(node, col, row) {
  node.style.gridColumn = String(col + 1);
  node.style.gridRow = String(row + 1);
  node.dataset.col = String(col);
  node.dataset.row = String(row);
  return node;
}

function minColumns(road, cells, minimum) {
  const cols = cells.reduce((most, c) => Math.max(most, c.col + 1), 0);
  road.style.gridTemplateColumns = "repeat(" + Math.max(cols, minimum) + ", var(--cell))";
}

function marks(node, entry) {
  if (entry.banker_pair) node.appendChild(el("span", "dot bp"));
  if (entry.player_pair) node.appendChild(el("span", "dot pp"));
  if (entry.natural) node.appendChild(el("span", "dot nat"));
}

function drawBead(beads) {
  const road = document.getElementById("bead-plate");
  road.replaceChildren();
  for (const bead of beads) {
    const node = place(el("div", "cell bead " + bead.winner, bead.winner), bead.col, bead.row);
    node.dataset.winner = bead.winner;
    node.title = NAMES[bead.winner];
    marks(node, bead);
    road.appendChild(node);
  }
  minColumns(road, beads, 12);
}

function drawBig(entries) {
  const road = document.getElementById("big-road");
  road.replaceChildren();
  const cells = [];
  for (const entry of entries) {
    const node = place(el("div", "cell ring " + entry.winner), entry.display_col, entry.display_row);
    node.dataset.winner = entry.winner;
    node.dataset.ties = String(entry.ties);
    node.dataset.logical = entry.col + "," + entry.row;
    if (entry.ties > 0) {
      const tie = el("span", "tie-mark");
      if (entry.ties > 1) tie.appendChild(el("span", "", entry.ties));
      node.appendChild(tie);
    }
    marks(node, entry);
    road.appendChild(node);
    cells.push({ col: entry.display_col });
  }
  minColumns(road, cells, 24);
}

function drawDerived(id, name, marksList) {
  const road = document.getElementById(id);
  road.replaceChildren();
  for (const mark of marksList) {
    const node = place(el("div", "cell derived " + mark.colour + " " + name), mark.col, mark.row);
    node.dataset.colour = mark.colour;
    road.appendChild(node);
  }
  minColumns(road, marksList, 30);
}

function pct(n, total) { return total ? " (" + Math.round(100 * n / total) + "%)" : ""; }

function drawStats(state) {
  const s = state.statistics, shoe = state.shoe;
  const rows = [
    ["Banker", s.banker + pct(s.banker, s.rounds), "B-text"],
    ["Player", s.player + pct(s.player, s.rounds), "P-text"],
    ["Tie", s.tie + pct(s.tie, s.rounds), "T-text"],
    ["Banker pair", s.banker_pair, ""],
    ["Player pair", s.player_pair, ""],
    ["Naturals", s.natural, ""],
    ["Rounds", s.rounds, ""],
    ["Round", shoe.round === null ? "–" : shoe.round, ""],
    ["Cards left", shoe.cards_left === null ? "–" : shoe.cards_left, ""],
    ["Cut card", shoe.cut_card_out ? "out: last rounds" : "not yet", ""],
  ];
  if (shoe.closed) rows.push(["Shoe", "closed", ""]);
  const body = document.querySelector("#stats tbody");
  body.replaceChildren();
  for (const [label, value, cls] of rows) {
    const tr = el("tr");
    tr.appendChild(el("td", cls, label));
    const td = el("td", "n", value);
    td.dataset.stat = label.toLowerCase().replace(/ /g, "_");
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

function drawLast(results) {
  const list = document.querySelector("#last-results ol");
  list.replaceChildren();
  for (const r of results.slice().reverse()) {
    const li = el("li");
    li.dataset.winner = r.winner;
    if (r.round !== null) li.value = r.round;
    li.appendChild(el("span", r.winner + "-text", NAMES[r.winner]));
    if (r.player_total !== null && r.banker_total !== null) {
      li.appendChild(document.createTextNode(" — P " + r.player_total + " : B " + r.banker_total));
    }
    const extra = [];
    if (r.natural) extra.push("natural");
    if (r.banker_pair) extra.push("banker pair");
    if (r.player_pair) extra.push("player pair");
    if (extra.length) li.appendChild(document.createTextNode(" (" + extra.join(", ") + ")"));
    list.appendChild(li);
  }
}

function draw(state) {
  if (typeof state.seq === "number" && state.seq < shown) return;
  shown = state.seq;
  drawBig(state.roads.big_road);
  drawBead(state.roads.bead_plate);
  drawDerived("big-eye-boy", "big_eye_boy", state.roads.big_eye_boy);
  drawDerived("small-road", "small_road", state.roads.small_road);
  drawDerived("cockroach-pig", "cockroach_pig", state.roads.cockroach_pig);
  drawStats(state);
  drawLast(state.last_results);
  document.body.dataset.seq = String(state.seq);
}

function status(text, online) {
  const node = document.getElementById("status");
  node.textContent = text;
  node.className = online ? "online" : "offline";
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws");
  socket.onopen = () => status("live", true);
  socket.onmessage = (message) => {
    try {
      const state = JSON.parse(message.data);
      if (state.type === "state") draw(state);
    } catch (error) {
      console.error("scoreboard: bad message", error);
    }
  };
  socket.onclose = () => {
    status("reconnecting…", false);
    shown = -1;  // a restarted controller starts counting again
    setTimeout(connect, 1000);
  };
}
connect();
</script>
</body>
</html>
"""
