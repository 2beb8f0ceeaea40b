// millbase web board: draws the board of the chosen rule set, shows the
// value of the position and of every move (from /api/v1/query), plays
// moves by clicking, walks back and forward, and keeps rules and position
// in the URL so a position can be shared as a link.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  catalog: null,
  rules: null,      // short name of the rule set
  info: null,       // its entry in the catalog (null if not listed)
  board: null,      // its board's drawing data
  history: [],      // [{position, answer, move}]: move led from the entry before
  at: 0,            // index of the shown entry
  pick: [],         // points clicked so far for the next move
  flipped: false,
  labels: "coords",
  line: [],         // best line from the shown position (answers)
};

function setBusy(busy) {
  document.body.dataset.state = busy ? "loading" : "ready";
}

async function api(path, params) {
  const q = new URLSearchParams(params).toString();
  const r = await fetch(`/api/v1/${path}${q ? "?" + q : ""}`);
  let body;
  try { body = await r.json(); } catch (e) { throw new Error(`${r.status} ${r.statusText}`); }
  if (!r.ok) throw new Error(body.error || `${r.status} ${r.statusText}`);
  return body;
}

function showError(msg) { $("error").textContent = msg || ""; }

function valueText(value, plies) {
  if (value === "draw" || plies === null || plies === undefined) return value;
  return `${value} in ${plies}`;
}

function pointName(p) {
  return state.labels === "coords" ? state.board.coords[p] : String(p);
}

// A move in the chosen labels, in the CLI's notation.
function moveText(m) {
  let s;
  if (m.from === null) s = state.labels === "coords" ? pointName(m.to) : `-${m.to}`;
  else s = `${pointName(m.from)}-${pointName(m.to)}`;
  for (const r of m.removes) s += "x" + pointName(r);
  return s;
}

// Board string "WB..../........ w 3 4 [c]" -> {cells, side, hand, counter}.
function parsePosition(text) {
  const f = text.trim().split(/\s+/);
  const cells = f[0].replace(/\//g, "");
  return {
    cells,
    side: f[1],
    hand: { w: Number(f[2]), b: Number(f[3]) },
    counter: f.length > 4 ? Number(f[4]) : null,
  };
}

function currentText(answer) {
  return answer.counter === undefined ? answer.position : `${answer.position} ${answer.counter}`;
}

function xy(p) {
  const label = state.board.coords[p];
  const col = label.charCodeAt(0) - 97;
  const row = Number(label.slice(1));
  const g = state.board.grid;
  let x = 60 + col * 100, y = 60 + (g - row) * 100;
  if (state.flipped) {
    const size = 120 + (g - 1) * 100;
    x = size - x; y = size - y;
  }
  return [x, y];
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const RANK = { win: 0, draw: 1, loss: 2 };
// Best first for the mover: fastest win, draw, slowest loss.
function better(a, b) {
  if (!b) return true;
  if (RANK[a.value] !== RANK[b.value]) return RANK[a.value] < RANK[b.value];
  if (a.value === "win") return a.plies < b.plies;
  if (a.value === "loss") return a.plies > b.plies;
  return false;
}

// The moves still possible after the points picked so far, and what a
// click on each point would mean: [{point, kind, best}] with kind
// "from" (pick up a stone), "to" (a target) or "remove".
function candidates() {
  const entry = state.history[state.at];
  if (!entry.answer) return { moves: [], marks: new Map() };
  let moves = entry.answer.moves;
  const pick = state.pick;
  // pick[0]: an origin or a placement target; then a target; then removals.
  const stage = [];
  moves = moves.filter((m) => {
    const seq = m.from === null ? [m.to] : [m.from, m.to];
    for (let i = 0; i < pick.length; i++) {
      if (i < seq.length) { if (seq[i] !== pick[i]) return false; }
      else if (!m.removes.includes(pick[i])) return false;
    }
    return true;
  });
  const marks = new Map();
  for (const m of moves) {
    const seq = m.from === null ? [m.to] : [m.from, m.to];
    let next, kind;
    if (pick.length < seq.length) {
      next = seq[pick.length];
      kind = pick.length === 0 && m.from !== null ? "from" : "to";
    } else {
      const left = m.removes.filter((r) => !pick.slice(seq.length).includes(r));
      if (left.length === 0) continue;
      kind = "remove";
      for (const r of left) stage.push([r, kind, m]);
      continue;
    }
    stage.push([next, kind, m]);
  }
  for (const [p, kind, m] of stage) {
    const had = marks.get(p);
    if (!had || better(m, had.best)) marks.set(p, { kind, best: m });
  }
  return { moves, marks };
}

function drawBoard() {
  const svg = $("board");
  const b = state.board;
  const size = 120 + (b.grid - 1) * 100;
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.replaceChildren();
  const entry = state.history[state.at];
  const pos = parsePosition(entry.position);
  for (const [a, c] of b.edges) {
    const [x1, y1] = xy(a), [x2, y2] = xy(c);
    el("line", { x1, y1, x2, y2, class: "edge" }, svg);
  }
  const { marks } = candidates();
  const last = entry.move;
  for (let p = 0; p < b.points; p++) {
    const [x, y] = xy(p);
    const c = pos.cells[p];
    el("circle", { cx: x, cy: y, r: 9, class: "dot" }, svg);
    const ly = state.flipped ? y - 30 : y + 44;
    el("text", { x: x + 30, y: ly, class: "label" }, svg).textContent = pointName(p);
    if (c === "W" || c === "B") {
      el("circle", {
        cx: x, cy: y, r: 34,
        class: `stone ${c === "W" ? "white" : "black"}${state.pick.includes(p) ? " selected" : ""}`,
        "data-stone": c,
      }, svg);
    }
    if (last && (last.to === p || last.from === p)) {
      el("circle", { cx: x, cy: y, r: 44, class: "last" }, svg);
    }
    const m = marks.get(p);
    if (m) {
      const v = m.best.value;
      if (m.kind === "to") {
        el("circle", { cx: x, cy: y, r: 24, class: `mark target ${v}` }, svg);
        const t = el("text", { x, y, class: "plies" }, svg);
        t.textContent = m.best.plies === null ? "" : m.best.plies;
      } else {
        el("circle", { cx: x, cy: y, r: 40, class: `mark ${v}` }, svg);
        const t = el("text", { x, y, class: `plies${c === "W" ? " on-white" : ""}` }, svg);
        t.textContent = m.best.plies === null ? "" : m.best.plies;
      }
    }
  }
  // Hit areas last, so they take every click.
  for (let p = 0; p < b.points; p++) {
    const [x, y] = xy(p);
    const m = marks.get(p);
    const hit = el("circle", {
      cx: x, cy: y, r: 46, class: "hit", "data-point": p,
      "data-kind": m ? m.kind : "", "data-value": m ? m.best.value : "",
      "data-plies": m && m.best.plies !== null ? m.best.plies : "",
    }, svg);
    hit.addEventListener("click", () => clickPoint(p));
  }
}

function clickPoint(p) {
  const { marks } = candidates();
  if (!marks.has(p)) {
    // A click elsewhere drops the stone picked up.
    if (state.pick.length) { state.pick = []; render(); }
    return;
  }
  state.pick.push(p);
  const { moves, marks: next } = candidates();
  const done = moves.filter((m) => {
    const seq = m.from === null ? [m.to] : [m.from, m.to];
    return state.pick.length >= seq.length && m.removes.every((r) => state.pick.slice(seq.length).includes(r));
  });
  if (done.length === 1 && next.size === 0) { play(done[0]); return; }
  if (moves.length === 1) { play(moves[0]); return; }
  render();
}

async function play(move) {
  state.pick = [];
  state.history.length = state.at + 1;
  // A quiet move that brings the N-move counter to N ends the game in a
  // draw: no table holds that position, so it is not asked for.
  const n = state.info && state.info.nmove;
  const after = parsePosition(move.after);
  let answer = null;
  if (n && after.counter !== null && after.counter >= n) {
    const f = move.after.trim().split(/\s+/);
    answer = { position: f.slice(0, 4).join(" "), value: "draw", plies: null, counter: after.counter,
      z: null, rule_draw: null, pure: null, moves: [], nmoveOver: true };
  }
  state.history.push({ position: move.after, answer, move });
  state.at += 1;
  await show();
}

function renderStatus() {
  const entry = state.history[state.at];
  const pos = parsePosition(entry.position);
  const side = pos.side === "w" ? "White" : "Black";
  let s = `${side} to move · in hand: White ${pos.hand.w}, Black ${pos.hand.b}`;
  if (pos.counter !== null) s += ` · N-move counter ${pos.counter}`;
  $("status").textContent = s;
  const a = entry.answer;
  const v = $("value");
  v.replaceChildren();
  if (!a) return;
  v.dataset.value = a.value;
  v.dataset.plies = a.plies === null ? "" : a.plies;
  const span = document.createElement("span");
  span.className = a.value;
  span.textContent = `${side} ${a.value === "win" ? "wins" : a.value === "loss" ? "loses" : "draws"}` +
    (a.plies === null ? "" : ` in ${a.plies} plies`);
  v.appendChild(span);
  if (a.nmoveOver) v.appendChild(document.createTextNode(` (the N-move rule: ${a.counter} plies without a mill)`));
  else if (a.moves.length === 0) v.appendChild(document.createTextNode(" (no legal move: the game is over)"));
  if (a.rule_draw) v.appendChild(document.createTextNode(` · a ${a.rule_draw}`));
  if (a.pure) v.appendChild(document.createTextNode(` · pure game: ${valueText(a.pure.value, a.pure.plies)}`));
}

function renderMoves() {
  const entry = state.history[state.at];
  const ol = $("moves");
  ol.replaceChildren();
  if (!entry.answer) return;
  for (const m of entry.answer.moves) {
    const li = document.createElement("li");
    li.className = m.value;
    li.dataset.move = m.move;
    li.dataset.value = m.value;
    li.dataset.plies = m.plies === null ? "" : m.plies;
    const mv = document.createElement("span");
    mv.className = "mv";
    mv.textContent = moveText(m);
    li.append(mv, valueText(m.value, m.plies));
    li.addEventListener("click", () => play(m));
    ol.appendChild(li);
  }
}

function renderHistory() {
  const ol = $("history");
  ol.replaceChildren();
  state.history.forEach((e, i) => {
    if (i === 0) return;
    const li = document.createElement("li");
    if (i === state.at) li.className = "current";
    const mv = document.createElement("span");
    mv.className = "mv";
    mv.textContent = moveText(e.move);
    li.append(mv, valueText(e.move.value, e.move.plies));
    li.addEventListener("click", () => { state.at = i; state.pick = []; show(); });
    ol.appendChild(li);
  });
  $("back").disabled = state.at === 0;
  $("forward").disabled = state.at >= state.history.length - 1;
}

function renderLine() {
  const ol = $("line");
  ol.replaceChildren();
  // Each entry but the last is followed by the position its best move
  // leads to; those moves make the line.
  state.line.slice(0, -1).forEach((a, i) => {
    const m = a.moves[0];
    const li = document.createElement("li");
    li.className = m.value;
    const mv = document.createElement("span");
    mv.className = "mv";
    mv.textContent = moveText(m);
    li.append(mv, valueText(m.value, m.plies));
    li.dataset.move = m.move;
    // Clicking a ply plays the line up to it.
    li.addEventListener("click", () => {
      state.history.length = state.at + 1;
      for (let k = 0; k <= i; k++) {
        const step = state.line[k].moves[0];
        state.history.push({ position: step.after, answer: state.line[k + 1], move: step });
      }
      state.at = state.history.length - 1;
      state.line = [];
      show();
    });
    ol.appendChild(li);
  });
}

function renderHint() {
  const { marks } = candidates();
  const kinds = new Set([...marks.values()].map((m) => m.kind));
  let h = "";
  if (kinds.has("remove")) h = "Click the stone to remove.";
  else if (state.pick.length) h = "Click the point to move to (or elsewhere to drop the stone).";
  else if (kinds.has("from") && kinds.has("to")) h = "Click a point to place a stone, or a stone to move it.";
  else if (kinds.has("from")) h = "Click a stone to move it; its ring shows its best move.";
  else if (kinds.has("to")) h = "Click a point to place a stone.";
  $("hint").textContent = h;
}

function render() {
  drawBoard();
  renderStatus();
  renderMoves();
  renderHistory();
  renderLine();
  renderHint();
}

function updateUrl(push) {
  const entry = state.history[state.at];
  const params = new URLSearchParams({ rules: state.rules, position: entry.position });
  const url = `/?${params.toString()}`;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
  $("stats-link").href = `/stats?${new URLSearchParams({ rules: state.rules })}`;
}

// Shows the current entry, fetching its answer if needed.
async function show() {
  const entry = state.history[state.at];
  setBusy(true);
  showError("");
  try {
    if (!entry.answer) entry.answer = await api("query", { rules: state.rules, position: entry.position });
    entry.position = currentText(entry.answer);
    updateUrl(false);
  } catch (e) {
    showError(e.message);
  }
  render();
  setBusy(false);
}

// Loads a rule set and a position from scratch (entry field, link, URL).
async function load(rules, position, push) {
  setBusy(true);
  showError("");
  state.rules = rules;
  state.info = state.catalog.rule_sets.find((r) => r.rules === rules) || null;
  const boardName = state.info ? state.info.board : guessBoard(rules);
  state.board = state.catalog.boards.find((b) => b.name === boardName) || state.catalog.boards[0];
  state.pick = [];
  state.line = [];
  $("rules").value = rules;
  $("position").value = position;
  try {
    const answer = await api("query", { rules, position });
    state.history = [{ position: currentText(answer), answer, move: null }];
    state.at = 0;
    const params = new URLSearchParams({ rules, position });
    if (push) history.pushState(null, "", `/?${params}`); else history.replaceState(null, "", `/?${params}`);
    $("stats-link").href = `/stats?${new URLSearchParams({ rules })}`;
    render();
  } catch (e) {
    showError(e.message);
    if (!state.history.length) { state.history = [{ position: emptyPosition(), answer: null, move: null }]; state.at = 0; }
    render();
  }
  setBusy(false);
}

function guessBoard(rules) {
  if (/board=diagonals|^twelve/.test(rules)) return "diagonals";
  if (/board=six|^six/.test(rules)) return "six";
  if (/board=three|^three/.test(rules)) return "three";
  return "standard";
}

function emptyPosition() {
  return ".".repeat(state.board.points) + " w 0 0";
}

async function bestLine() {
  setBusy(true);
  showError("");
  try {
    const entry = state.history[state.at];
    state.line = await api("line", { rules: state.rules, position: entry.position, max: 60 });
  } catch (e) {
    showError(e.message);
  }
  render();
  setBusy(false);
}

function fromUrl(push) {
  const p = new URLSearchParams(location.search);
  const list = state.catalog.rule_sets;
  const fallback = (list.find((r) => r.phases.placing) || list[0] || { rules: "standard" }).rules;
  return load(p.get("rules") || fallback, p.get("position") || "start", push);
}

async function init() {
  $("back").addEventListener("click", () => { if (state.at > 0) { state.at--; state.pick = []; show(); } });
  $("forward").addEventListener("click", () => {
    if (state.at < state.history.length - 1) { state.at++; state.pick = []; show(); }
  });
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; render(); });
  $("best").addEventListener("click", bestLine);
  $("labels").addEventListener("change", (e) => { state.labels = e.target.value; render(); });
  $("entry").addEventListener("submit", (e) => {
    e.preventDefault();
    load($("rules").value, $("position").value.trim() || "start", true);
  });
  $("rules").addEventListener("change", () => load($("rules").value, "start", true));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") $("back").click();
    else if (e.key === "ArrowRight") $("forward").click();
    else if (e.key === "Escape" && state.pick.length) { state.pick = []; render(); }
  });
  window.addEventListener("popstate", () => fromUrl(false));
  try {
    state.catalog = await api("rules", {});
  } catch (e) {
    showError(`cannot read the rule sets: ${e.message}`);
    setBusy(false);
    return;
  }
  const sel = $("rules");
  for (const r of state.catalog.rule_sets) {
    const o = document.createElement("option");
    o.value = r.rules;
    o.textContent = r.rules + (r.phases.placing ? "" : " (moving phase only)");
    sel.appendChild(o);
  }
  const wanted = new URLSearchParams(location.search).get("rules");
  if (wanted && !state.catalog.rule_sets.some((r) => r.rules === wanted)) {
    const o = document.createElement("option");
    o.value = wanted;
    o.textContent = wanted;
    sel.appendChild(o);
  }
  if (!state.catalog.boards.length) {
    showError("no tables found: build some with `millbase build`");
    setBusy(false);
    return;
  }
  await fromUrl(false);
}

init();
