// millbase web board: draws the board of the chosen rule set, shows the
// value of the position and of every move (from /api/v1/query), plays
// moves by clicking (or against the tables), keeps the game record, and
// keeps rules, start and moves in the URL so a game can be shared.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const saved = (() => { try { return window.localStorage; } catch (e) { return null; } })();

const state = {
  catalog: null,
  rules: null,      // short name of the rule set
  info: null,       // its entry in the catalog (null if not listed)
  board: null,      // its board's drawing data
  start: "start",   // the text the game opens at (as the API takes it)
  entries: [],      // [{answer, move}]: move (as listed) led from the entry before
  at: 0,            // index of the shown entry
  pick: [],         // points clicked so far for the next move
  flipped: saved?.getItem("millbase.flipped") === "1",
  labels: saved?.getItem("millbase.labels") === "numbers" ? "numbers" : "coords",
  line: null,       // {at, position, answers}: best line from entry `at`
  opponent: "",     // the colour millbase plays ("w", "b"), "" for none
  strength: "perfect",
  fieldText: "",    // what the position field was last set to
  failed: "",       // why the link opened could not be, while nothing else is shown
  busy: 0,
  focusPoint: 0,    // the board's point in the tab order
  focusLater: null, // focus to give back once its part is drawn (focusKey)
  hide: false,      // values hidden while playing against millbase
  hint: null,       // the entry whose best move the hint shows
  arriving: null,   // the entry whose moved stone is drawn arriving
};

function setBusy(delta) {
  state.busy += delta;
  document.body.dataset.state = state.busy > 0 ? "loading" : "ready";
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

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function valueText(value, plies) {
  if (value === "draw" || plies === null || plies === undefined) return value;
  return `${value} in ${plural(plies, "ply", "plies")}`;
}

function pointName(p) {
  return state.labels === "coords" ? state.board.coords[p] : String(p);
}

// A move in the chosen labels: d7-d6xd2 or 1-9x13; a placement is its point.
function moveText(m) {
  let s = m.from === null ? pointName(m.to) : `${pointName(m.from)}-${pointName(m.to)}`;
  for (const r of m.removes) s += "x" + pointName(r);
  return s;
}

// The same in coordinates, as the URL keeps moves.
function moveCoords(m) {
  const c = state.board.coords;
  let s = m.from === null ? c[m.to] : `${c[m.from]}-${c[m.to]}`;
  for (const r of m.removes) s += "x" + c[r];
  return s;
}

// Board string "WB..../........ w 3 4 [c]" -> {cells, side, hand, counter}.
function parsePosition(text) {
  const f = text.trim().split(/\s+/);
  return {
    cells: f[0].replace(/\//g, ""),
    side: f[1],
    hand: { w: Number(f[2]), b: Number(f[3]) },
    counter: f.length > 4 ? Number(f[4]) : null,
  };
}

function positionText(answer) {
  return answer.counter === undefined ? answer.position : `${answer.position} ${answer.counter}`;
}

const sideName = (c) => (c === "w" ? "White" : "Black");
const otherSide = (c) => (c === "w" ? "b" : "w");

// Whether a position text is a board string or a Sanmill line (else it is
// "start" or a move list, which the page keeps as a game record).
function isBoardText(text, points) {
  const first = text.trim().split(/\s+/)[0] || "";
  if (/^\d+\./.test(first)) return false;
  return first.includes("/") || first.includes(".") || /[O@*]/.test(first) || first.length === points;
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

const entry = () => state.entries[state.at];
const seqOf = (m) => (m.from === null ? [m.to] : [m.from, m.to]);

// The moves still possible after the points picked so far, and what a
// click on each point would mean: marks[point] = {kind, best} with kind
// "from" (pick up a stone), "to" (a target) or "remove".
function candidates(pick) {
  const e = entry();
  if (!e || !e.answer || repeated()) return { moves: [], marks: new Map() };
  const moves = e.answer.moves.filter((m) => {
    const seq = seqOf(m);
    for (let i = 0; i < pick.length; i++) {
      if (i < seq.length) { if (seq[i] !== pick[i]) return false; }
      else if (!m.removes.includes(pick[i])) return false;
    }
    return true;
  });
  const marks = new Map();
  const mark = (p, kind, m) => {
    const had = marks.get(p);
    if (!had || better(m, had.best)) marks.set(p, { kind, best: m });
  };
  for (const m of moves) {
    const seq = seqOf(m);
    if (pick.length < seq.length) {
      mark(seq[pick.length], pick.length === 0 && m.from !== null ? "from" : "to", m);
    } else {
      for (const r of m.removes.filter((r) => !pick.slice(seq.length).includes(r))) mark(r, "remove", m);
    }
  }
  return { moves, marks };
}

// The cells of the shown position with the picked move's stone already
// moved (while the player picks the stone to remove), and that move.
function shownCells() {
  const e = entry();
  const cells = parsePosition(e.answer ? e.answer.position : e.position).cells.split("");
  const { moves } = candidates(state.pick);
  const m = moves.find((m) => state.pick.length >= seqOf(m).length && m.removes.length);
  if (!m || state.pick.length < seqOf(m).length) return { cells, closing: null };
  const mover = parsePosition(e.answer.position).side === "w" ? "W" : "B";
  if (m.from !== null) cells[m.from] = ".";
  cells[m.to] = mover;
  for (const r of state.pick.slice(seqOf(m).length)) cells[r] = ".";
  return { cells, closing: { move: m, mover } };
}

// The lines of `colour` through point p (all lines if p is null).
function millsOf(cells, colour, p) {
  return state.board.lines.filter((l) => (p === null || l.includes(p)) && l.every((q) => cells[q] === colour));
}

function drawBoard() {
  const svg = $("board");
  const b = state.board;
  const size = 120 + (b.grid - 1) * 100;
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.replaceChildren();
  const e = entry();
  const { cells, closing } = shownCells();
  for (const [a, c] of b.edges) {
    const [x1, y1] = xy(a), [x2, y2] = xy(c);
    el("line", { x1, y1, x2, y2, class: "edge" }, svg);
  }
  // Mills to show: the one just closed while its removal is picked, or
  // the one that ended the game.
  let mills = [];
  if (closing) mills = millsOf(cells, closing.mover, closing.move.to);
  else if (e.answer && (e.answer.over === "line" || e.answer.over === "stones")) {
    const winner = parsePosition(e.answer.position).side === "w" ? "B" : "W";
    mills = e.answer.over === "line" ? millsOf(cells, winner, null)
      : (e.move ? millsOf(cells, winner, e.move.to) : []);
  }
  for (const l of mills) {
    const [x1, y1] = xy(l[0]), [x2, y2] = xy(l[l.length - 1]);
    el("line", { x1, y1, x2, y2, class: "mill", "data-mill": l.join(",") }, svg);
  }
  const { marks } = candidates(state.pick);
  const last = closing ? null : e.move;
  // The points of the hinted move: its stone, its target, its removals.
  const hinted = new Set();
  const best = hintMove();
  if (best) for (const q of [best.from, best.to, ...best.removes]) if (q !== null) hinted.add(q);
  for (let p = 0; p < b.points; p++) {
    const [x, y] = xy(p);
    const c = cells[p];
    el("circle", { cx: x, cy: y, r: 9, class: "dot" }, svg);
    if (c === "W" || c === "B") {
      const stone = el("circle", {
        cx: x, cy: y, r: 34,
        class: `stone ${c === "W" ? "white" : "black"}${state.pick[0] === p && !closing ? " selected" : ""}`,
        "data-stone": c, "data-at": p,
      }, svg);
      // The stone just moved arrives, briefly: from its point for a
      // slide, growing for a placement. Only on the redraw after the move.
      if (last && last.to === p && state.arriving === state.at) {
        stone.classList.add("arrive");
        if (last.from !== null) {
          const [fx, fy] = xy(last.from);
          stone.style.setProperty("--dx", `${fx - x}px`);
          stone.style.setProperty("--dy", `${fy - y}px`);
        }
      }
    }
    if (closing && closing.move.from === p) el("circle", { cx: x, cy: y, r: 30, class: "ghost" }, svg);
    if (last && (last.to === p || last.from === p)) {
      el("circle", { cx: x, cy: y, r: 44, class: "last" }, svg);
    }
    const m = marks.get(p);
    if (m) {
      const hidden = valuesHidden();
      const v = hidden ? (hinted.has(p) ? "hint" : "hidden") : m.best.value;
      const plies = hidden || m.best.plies === null ? "" : m.best.plies;
      if (m.kind === "to") {
        el("circle", { cx: x, cy: y, r: 24, class: `mark target ${v}` }, svg);
        el("text", { x, y, class: "plies" }, svg).textContent = plies;
      } else {
        el("circle", { cx: x, cy: y, r: 40, class: `mark ${v}` }, svg);
        el("text", { x, y, class: `plies${c === "W" ? " on-white" : ""}` }, svg).textContent = plies;
      }
    }
  }
  state.arriving = null;
  // Labels above the stones, hit areas above everything.
  for (let p = 0; p < b.points; p++) {
    const [x, y] = xy(p);
    const [dx, dy] = labelOffset(p);
    el("text", { x: x + dx, y: y + dy, class: "label" }, svg).textContent = pointName(p);
  }
  // The stones just taken, where they stood.
  if (last && last.removes) {
    for (const r of last.removes) {
      if (cells[r] !== ".") continue;
      const [x, y] = xy(r);
      el("circle", { cx: x, cy: y, r: 26, class: "captured", "data-captured": r }, svg);
      el("path", { d: `M${x - 14} ${y - 14}L${x + 14} ${y + 14}M${x + 14} ${y - 14}L${x - 14} ${y + 14}`, class: "captured" }, svg);
    }
  }
  // One point of the board is in the tab order (a roving tab stop): Tab
  // passes the board in one step, and the arrow keys move between points.
  if (!(state.focusPoint >= 0 && state.focusPoint < b.points)) state.focusPoint = 0;
  for (let p = 0; p < b.points; p++) {
    const [x, y] = xy(p);
    const m = marks.get(p);
    const hit = el("circle", {
      cx: x, cy: y, r: 46, class: "hit", "data-point": p, role: "button",
      tabindex: p === state.focusPoint ? 0 : -1,
      "aria-label": `point ${b.coords[p]}${cells[p] === "W" ? ", White stone" : cells[p] === "B" ? ", Black stone" : ""}`,
      "data-kind": m ? m.kind : "", "data-value": m && !valuesHidden() ? m.best.value : "",
      "data-plies": m && !valuesHidden() && m.best.plies !== null ? m.best.plies : "",
    }, svg);
    hit.addEventListener("click", () => { state.focusPoint = p; clickPoint(p); });
    hit.addEventListener("focus", () => { state.focusPoint = p; });
    hit.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); clickPoint(p); return; }
      const to = pointToward(p, ev.key);
      if (to === undefined) return;
      // The arrows move between points here, not through the game.
      ev.preventDefault();
      ev.stopPropagation();
      if (to !== null) focusPoint(to);
    });
  }
}

// Where a point's label goes (the offset of its baseline): below right of
// it (above right when the board is turned) unless a line runs that way;
// else in the direction that keeps farthest from every line from it (the
// diagonals of three and twelve men's morris).
function labelOffset(p) {
  const [x, y] = xy(p);
  const lines = [];
  for (const [a, c] of state.board.edges) {
    if (a !== p && c !== p) continue;
    const [qx, qy] = xy(a === p ? c : a);
    lines.push(Math.atan2(qy - y, qx - x));
  }
  const want = state.flipped ? -0.9 : 0.9;
  const gap = (u, v) => { const d = Math.abs(u - v) % (2 * Math.PI); return Math.min(d, 2 * Math.PI - d); };
  // The wish first, then every 64th of a turn, the nearest to it first.
  const turns = [want, ...Array.from({ length: 64 }, (_, k) => -Math.PI + k * Math.PI / 32)
    .sort((u, v) => gap(u, want) - gap(v, want))];
  let best = want, bestScore = -1;
  for (const t of turns) {
    const clear = Math.min(Math.PI, ...lines.map((l) => gap(t, l)));
    // At least 30 degrees clear is enough: then the nearest to the wish.
    const score = Math.min(clear, Math.PI / 6);
    if (score > bestScore + 1e-9) { best = t; bestScore = score; }
  }
  const r = 50;
  return [r * Math.cos(best), r * Math.sin(best) + 8];
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// The nearest point from `p` in the direction of an arrow key as the board
// is drawn (`null` if none, `undefined` for another key).
function pointToward(p, key) {
  const d = ARROWS[key];
  if (!d) return undefined;
  const [x0, y0] = xy(p);
  let best = null, bestCost = Infinity;
  for (let q = 0; q < state.board.points; q++) {
    const [x, y] = xy(q);
    const along = (x - x0) * d[0] + (y - y0) * d[1];
    if (along <= 0) continue;
    const across = Math.abs((x - x0) * d[1]) + Math.abs((y - y0) * d[0]);
    const cost = along + 4 * across;
    if (cost < bestCost) { best = q; bestCost = cost; }
  }
  return best;
}

function focusPoint(p) {
  state.focusPoint = p;
  for (const h of document.querySelectorAll("#board .hit")) {
    h.setAttribute("tabindex", Number(h.dataset.point) === p ? 0 : -1);
  }
  const h = document.querySelector(`#board .hit[data-point="${p}"]`);
  if (h) h.focus();
}

// What has the keyboard focus among the parts a redraw replaces, to give
// it back afterwards (a redraw used to drop it, and Tab began again).
function focusKey() {
  const a = document.activeElement;
  if (!a || !a.dataset) return null;
  if (a.dataset.point !== undefined) return ["point", a.dataset.point];
  if (a.closest("#moves") && a.dataset.move !== undefined) return ["move", a.dataset.move];
  if (a.closest("#record") && a.dataset.ply !== undefined) return ["ply", a.dataset.ply];
  return null;
}

// Gives the focus back to what `focusKey` named, or its nearest kin; false
// if there is nothing to take it yet (the move list while the answer is
// on its way).
function restoreFocus(k) {
  if (!k || document.activeElement && document.activeElement !== document.body) return true;
  let t = null;
  if (k[0] === "point") t = document.querySelector(`#board .hit[data-point="${k[1]}"]`);
  else if (k[0] === "move") {
    t = document.querySelector(`#moves li[data-move="${CSS.escape(k[1])}"]:not(.inactive)`)
      || document.querySelector("#moves li:not(.inactive)");
  } else if (k[0] === "ply") {
    t = document.querySelector("#record td.current") || document.querySelector(`#record td[data-ply="${k[1]}"]`);
  }
  if (t) t.focus({ preventScroll: true });
  return t !== null;
}

// Enter and Space on a list item or a cell act as a click.
function activate(node, f) {
  node.setAttribute("tabindex", 0);
  node.setAttribute("role", "button");
  node.addEventListener("click", f);
  node.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); f(); }
  });
}

function humanToMove() {
  const e = entry();
  if (!state.opponent || !e.answer) return true;
  return parsePosition(e.answer.position).side !== state.opponent;
}

function clickPoint(p) {
  if (state.busy > 0 || !humanToMove() || repeated()) return;
  const { marks } = candidates(state.pick);
  if (!marks.has(p)) {
    // Another stone of one's own picks that one up; anywhere else drops
    // the stone picked up.
    const fresh = candidates([]).marks.get(p);
    if (state.pick.length === 1 && fresh && fresh.kind === "from" && state.pick[0] !== p) state.pick = [p];
    else state.pick = [];
    render();
    return;
  }
  state.pick.push(p);
  const { moves, marks: next } = candidates(state.pick);
  const done = moves.filter((m) => {
    const seq = seqOf(m);
    return state.pick.length >= seq.length && m.removes.every((r) => state.pick.slice(seq.length).includes(r));
  });
  if (done.length === 1 && next.size === 0) { play(done[0]); return; }
  render();
}

// Plays a listed move of the shown position, dropping the entries after it.
// millbase's answer replaces the history entry of the move it answers, so
// the browser's back button returns to the player's turn before it (it
// landed on millbase's turn, which answered again: a trap).
async function play(move, push = true) {
  state.pick = [];
  state.arriving = state.at + 1;
  state.entries.length = state.at + 1;
  state.entries.push({ answer: null, position: move.after, move });
  state.at += 1;
  await show(push);
}

// Fetches the answer of the shown entry if needed, then redraws.
async function show(push) {
  const e = entry();
  setBusy(1);
  showError("");
  try {
    if (!e.answer) e.answer = await api("query", { rules: state.rules, position: e.position });
    updateUrl(push);
  } catch (err) {
    // Nothing half-done stays: the move is taken back.
    showError(err.message);
    if (state.at > 0 && !e.answer) { state.entries.length = state.at; state.at -= 1; }
  }
  render();
  setBusy(-1);
  maybeAnswer();
}

// The computer's move, when it is its turn at the end of the game record.
function maybeAnswer() {
  const e = entry();
  if (!state.opponent || !e.answer || state.at !== state.entries.length - 1) return;
  if (parsePosition(e.answer.position).side !== state.opponent || !e.answer.moves.length) return;
  if (repeated()) return;
  const moves = e.answer.moves;
  const at = state.at;
  setBusy(1);
  const pick = async () => {
    if (state.strength === "practical") {
      // The server ranks the moves for practical play.
      const a = await api("query", { rules: state.rules, position: positionText(e.answer), practical: 1 });
      const m = a.moves.find((x) => x.practical && x.practical.rank === 1);
      return moves.find((x) => m && x.from === m.from && x.to === m.to &&
        x.removes.join() === m.removes.join()) || moves[0];
    }
    if (state.strength === "random") {
      const keep = moves.filter((m) => m.value === moves[0].value);
      return keep[Math.floor(Math.random() * keep.length)];
    }
    return moves[0];
  };
  const wait = new Promise((resolve) => setTimeout(resolve, 300));
  Promise.all([pick(), wait]).then(([choice]) => {
    setBusy(-1);
    // Only if the player did not go elsewhere meanwhile.
    if (state.at === at && state.entries.length === at + 1) play(choice, false);
  }, (err) => { setBusy(-1); showError(err.message); });
}

// Whether the shown position is drawn by threefold repetition: its third
// occurrence (the same board, side to move and stones in hand) in the game
// up to it. Under an N-move rule the counter stands in for it.
function repeated() {
  const a = entry() && entry().answer;
  if (!a || a.over || a.counter != null) return false;
  let n = 0;
  for (let i = 0; i <= state.at; i++) {
    const b = state.entries[i].answer;
    if (b && b.position === a.position) n += 1;
  }
  return n >= 3;
}

function overText(a, side) {
  const other = sideName(otherSide(side));
  switch (a.over) {
    case "stones": return `${sideName(side)} is down to two stones: ${other} wins`;
    case "line": return `${other} completed a line: ${other} wins`;
    case "blocked": return a.value === "draw" ? "the board is full and no one can move: a draw"
      : `${sideName(side)} cannot move: ${other} wins`;
    case "nmove": return `drawn by the N-move rule: ${a.counter} plies without a mill`;
    default: return "";
  }
}

function renderStatus() {
  const e = entry();
  const a = e.answer;
  const pos = parsePosition(a ? positionText(a) : e.position);
  const side = sideName(pos.side);
  const { closing } = shownCells();
  let s;
  if (closing) {
    const k = closing.move.removes.length - (state.pick.length - seqOf(closing.move).length);
    s = `${side} closed a mill: take ${k === 1 ? "a" : k} ${sideName(otherSide(pos.side))} stone${k === 1 ? "" : "s"}`;
  } else if (!a && state.failed) {
    s = "This game cannot be opened (the message above says why)";
  } else if (a && a.over) {
    s = `Game over: ${overText(a, pos.side)}`;
  } else if (repeated()) {
    s = "Game over: drawn by threefold repetition (this position has occurred three times)";
  } else {
    s = `${side} to move`;
    if (state.opponent) s += pos.side === state.opponent ? " (millbase)" : " (you)";
    if (pos.hand.w || pos.hand.b) s += ` · in hand: White ${pos.hand.w}, Black ${pos.hand.b}`;
    if (pos.counter !== null) s += ` · N-move counter ${pos.counter}`;
  }
  $("status").textContent = s;
  $("status").dataset.over = a && a.over ? a.over : repeated() ? "repetition" : "";
  const v = $("value");
  v.replaceChildren();
  if (!a) return;
  if (valuesHidden()) {
    v.dataset.value = v.dataset.plies = "";
    const span = document.createElement("span");
    span.className = "hidden-value";
    span.textContent = "Values hidden while you play";
    v.appendChild(span);
    return;
  }
  v.dataset.value = a.value;
  v.dataset.plies = a.plies === null ? "" : a.plies;
  // The headline names the winner, so that it reads the same from ply to
  // ply of a won game: the colour of a win, or of a draw.
  const winner = a.value === "win" ? pos.side : a.value === "loss" ? otherSide(pos.side) : null;
  const span = document.createElement("span");
  span.className = winner ? "win" : "draw";
  span.dataset.winner = winner || "";
  if (repeated() && !a.over) {
    span.className = "draw";
    span.dataset.winner = "";
    span.textContent = "Drawn by repetition";
    v.appendChild(span);
    v.appendChild(document.createTextNode(` · with best play: ${valueText(a.value, a.plies)}`));
    return;
  }
  span.textContent = a.over
    ? (winner ? `${sideName(winner)} has won` : "Drawn")
    : (winner ? `${sideName(winner)} wins` : "A draw with best play") +
      (a.plies === null ? "" : ` in ${plural(a.plies, "ply", "plies")}`);
  v.appendChild(span);
  if (a.rule_draw && !a.over) v.appendChild(document.createTextNode(` · a ${a.rule_draw}`));
  if (a.pure) v.appendChild(document.createTextNode(` · pure game: ${valueText(a.pure.value, a.pure.plies)}`));
}

function renderMoves() {
  const box = $("moves");
  box.replaceChildren();
  const a = entry().answer;
  if (!a || !a.moves.length) return;
  const groups = { win: "Winning moves", draw: "Drawing moves", loss: "Losing moves" };
  const hidden = valuesHidden();
  const practical = !hidden && !state.opponent ? practicalOf(entry()) : null;
  // While the stone to take is picked, only the moves of that mill stay
  // live: another would abandon the mill half made.
  // After a threefold repetition none is (the game is drawn).
  const live = repeated() ? new Set()
    : shownCells().closing ? new Set(candidates(state.pick).moves) : null;
  // With the values hidden, one group in the order of the moves' names
  // (the tables' order would give the best away), no value shown.
  const byName = (x, y) => (moveText(x) < moveText(y) ? -1 : moveText(x) > moveText(y) ? 1 : 0);
  for (const kind of hidden ? ["hidden"] : ["win", "draw", "loss"]) {
    const moves = hidden ? a.moves.slice().sort(byName) : a.moves.filter((m) => m.value === kind);
    if (!moves.length) continue;
    const h = document.createElement("h3");
    h.className = kind;
    h.textContent = `${hidden ? "Your moves" : groups[kind]} (${moves.length})`;
    const ul = document.createElement("ul");
    ul.dataset.group = kind;
    for (const m of moves) {
      const li = document.createElement("li");
      li.dataset.move = m.move;
      const mv = document.createElement("span");
      mv.className = "mv";
      mv.textContent = moveText(m);
      if (hidden) {
        li.append(mv);
      } else {
        li.className = m.value;
        li.dataset.value = m.value;
        li.dataset.plies = m.plies === null ? "" : m.plies;
        li.append(mv, valueText(m.value, m.plies));
        const pr = practical && practical.get(m.move);
        if (pr) {
          // The practical choice stands out; every move's trap score is
          // in its title (the list keeps one line a move).
          li.dataset.practicalRank = pr.rank === null ? "" : pr.rank;
          li.title = pr.rank === null ? "gives value away"
            : `practical rank ${pr.rank}: ${trapText(pr)}`;
          if (pr.rank === 1) li.classList.add("practical-pick");
        }
      }
      if (live && !live.has(m)) {
        li.classList.add("inactive");
        li.setAttribute("aria-disabled", "true");
      } else {
        activate(li, () => { if (state.busy === 0 && humanToMove()) play(m); });
      }
      ul.appendChild(li);
    }
    box.append(h, ul);
  }
  // The practical choice in words, with its trap score.
  const pick = practical && a.moves.find((m) => (practical.get(m.move) || {}).rank === 1);
  if (pick) {
    const p = document.createElement("p");
    p.id = "practical-choice";
    p.className = "practical-choice";
    p.textContent = `Practical choice: ${moveText(pick)}, ${trapText(practical.get(pick.move))}.`;
    box.prepend(p);
  }
}

// How many of the opponent's replies a move's practical ranking found
// giving value away.
function trapText(pr) {
  return pr.replies
    ? `traps ${(pr.score / 10).toFixed(1)} % of the replies (${pr.errors} of ${pr.replies} go wrong)`
    : "no reply can go wrong";
}

// A move that made the mover's value worse: win to draw or loss, draw to loss.
function isMistake(i) {
  const before = state.entries[i - 1].answer;
  const m = state.entries[i].move;
  return before && RANK[m.value] > RANK[before.value];
}

function renderRecord() {
  const tb = $("record").querySelector("tbody");
  tb.replaceChildren();
  const first = state.entries[0].answer;
  const firstSide = first ? parsePosition(first.position).side : "w";
  let row = null, number = 0;
  const cell = (i) => {
    const td = document.createElement("td");
    if (i === null) { td.textContent = "…"; return td; }
    const e = state.entries[i];
    td.className = "ply" + (i === state.at ? " current" : "");
    td.dataset.ply = i;
    td.textContent = moveText(e.move);
    if (valuesHidden()) {
      td.title = "";
    } else if (isMistake(i)) {
      const before = state.entries[i - 1].answer;
      const better = before.moves[0];
      td.classList.add("mistake", e.move.value);
      td.title = `a mistake: ${before.value} to ${e.move.value}; better ${moveText(better)} (${valueText(better.value, better.plies)})`;
      td.dataset.mistake = `${before.value}-${e.move.value}`;
      td.dataset.better = better.move;
      const b = document.createElement("small");
      b.className = "better";
      b.textContent = `better ${moveText(better)}`;
      td.append(b);
    } else {
      td.title = valueText(e.move.value, e.move.plies);
    }
    activate(td, () => { state.at = i; state.pick = []; show(false); });
    return td;
  };
  for (let i = 1; i < state.entries.length; i++) {
    const side = parsePosition(state.entries[i - 1].answer.position).side;
    if (!row || side === "w") {
      row = document.createElement("tr");
      number += 1;
      const n = document.createElement("td");
      n.textContent = `${number}.`;
      row.appendChild(n);
      tb.appendChild(row);
      if (side === "b") row.appendChild(cell(null));
    }
    row.appendChild(cell(i));
  }
  if (state.entries.length === 1) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 3;
    td.textContent = firstSide ? "no moves yet" : "";
    tr.appendChild(td);
    tb.appendChild(tr);
  }
  scrollToCurrent();
  $("back").disabled = state.at === 0;
  $("forward").disabled = state.at >= state.entries.length - 1;
  const human = state.opponent ? otherSide(state.opponent) : null;
  $("undo").hidden = $("takeback").hidden = !human;
  // Which move was a mistake is a value too.
  if (valuesHidden()) $("takeback").hidden = true;
  $("undo").disabled = !human || lastOwnMove(human, state.entries.length - 1) === null;
  $("takeback").disabled = !human || lastMistake(human) === null;
  $("best").disabled = valuesHidden();
  $("hint-move").hidden = !valuesHidden();
  $("hint-move").disabled = !humanToMove() || !(entry().answer && entry().answer.moves.length);
  $("hide").checked = state.hide;
  renderResult();
}

// Scrolls the record's box (not the page) so that the current ply shows.
function scrollToCurrent() {
  const box = $("record-box");
  const cur = box.querySelector("td.current");
  if (!cur) { if (state.at === 0) box.scrollTop = 0; return; }
  const r = cur.getBoundingClientRect(), b = box.getBoundingClientRect();
  const head = box.querySelector("thead").getBoundingClientRect().height;
  if (r.top < b.top + head) box.scrollTop -= b.top + head - r.top;
  else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
}

// The result of a game against millbase, plainly, once it is over.
function renderResult() {
  const last = state.entries[state.entries.length - 1];
  const a = last && last.answer;
  const over = a && (a.over || (state.at === state.entries.length - 1 && repeated()));
  $("result").hidden = !(state.opponent && over);
  if ($("result").hidden) return;
  const side = parsePosition(a.position).side;
  const winner = a.over ? (a.value === "loss" ? otherSide(side) : a.value === "win" ? side : null) : null;
  const human = otherSide(state.opponent);
  const why = a.over ? overText(a, side) : "the same position three times";
  const text = winner === null ? `A draw: ${why}.`
    : winner === human ? `You won: ${why}.` : `millbase won: ${why}.`;
  $("result-text").textContent = text;
  $("result").dataset.result = winner === null ? "draw" : winner === human ? "won" : "lost";
}

// Whether values are hidden now: playing against millbase with the option
// on, until the game is over.
function valuesHidden() {
  if (!state.hide || !state.opponent) return false;
  const last = state.entries[state.entries.length - 1];
  const a = last && last.answer;
  if (a && a.over) return false;
  if (state.at === state.entries.length - 1 && repeated()) return false;
  return true;
}

// The move the hint shows: a best move of the shown position, once asked.
function hintMove() {
  const a = entry() && entry().answer;
  if (!valuesHidden() || state.hint !== state.at || !a || !a.moves.length) return null;
  return a.moves[0];
}

// The practical ranking of an entry's moves (by move text), fetched once
// when first shown in analysis; null until it has come.
function practicalOf(e) {
  if (!e || !e.answer || !e.answer.moves.length) return null;
  if (e.practical) return e.practical;
  if (!e.practicalAsked) {
    e.practicalAsked = true;
    api("query", { rules: state.rules, position: positionText(e.answer), practical: 1 }).then((a) => {
      e.practical = new Map(a.moves.map((m) => [m.move, m.practical]));
      if (entry() === e) keepingFocus(renderMoves);
    }, () => {});
  }
  return null;
}

function renderLine() {
  const ol = $("line");
  ol.replaceChildren();
  const line = state.line;
  if (valuesHidden()) return;
  // A line belongs to the position it was asked for.
  if (!line || line.at !== state.at || !entry().answer || line.position !== positionText(entry().answer)) return;
  line.answers.slice(0, -1).forEach((a, i) => {
    const m = a.moves[0];
    const li = document.createElement("li");
    li.className = m.value;
    const mv = document.createElement("span");
    mv.className = "mv";
    mv.textContent = moveText(m);
    li.append(mv, valueText(m.value, m.plies));
    li.dataset.move = m.move;
    // Clicking a ply goes to it with the whole line in the record, so
    // that ▶ goes on along it.
    li.addEventListener("click", () => {
      const from = state.at;
      state.entries.length = from + 1;
      for (let k = 0; k + 1 < line.answers.length; k++) {
        const step = line.answers[k].moves[0];
        state.entries.push({ answer: line.answers[k + 1], position: step.after, move: step });
      }
      state.at = from + i + 1;
      state.pick = [];
      show(true);
    });
    ol.appendChild(li);
  });
}

function renderHint() {
  const { marks } = candidates(state.pick);
  const kinds = new Set([...marks.values()].map((m) => m.kind));
  let h = "";
  // millbase thinks only at the game's last position; at an earlier one
  // its move is already in the record.
  const earlier = state.at < state.entries.length - 1;
  if (!humanToMove() && earlier) h = "An earlier position: millbase's move here is next in the record (▶).";
  else if (!humanToMove()) h = "millbase is thinking…";
  else if (hintMove()) h = `Hint: ${moveText(hintMove())}.`;
  else if (kinds.has("remove")) h = "Click the stone to take.";
  else if (state.pick.length) h = "Click the point to move to, another of your stones to pick it up instead, or elsewhere to drop it.";
  else if (kinds.has("from") && kinds.has("to")) h = "Click a point to place a stone, or a stone to move it.";
  else if (kinds.has("from")) h = "Click a stone to pick it up; its ring shows its best move.";
  else if (kinds.has("to")) h = "Click a point to place a stone.";
  $("hint").textContent = h;
}

function render() {
  keepingFocus(() => {
    drawBoard();
    renderStatus();
    renderMoves();
    renderRecord();
    renderLine();
    renderHint();
  });
}

// Redraws with `f`, the keyboard focus given back after it.
function keepingFocus(f) {
  const focus = focusKey() || state.focusLater;
  f();
  state.focusLater = restoreFocus(focus) ? null : focus;
}

// The game as the position field shows it: the move list from the start,
// or the current position.
function gameText() {
  const moves = state.entries.slice(1, state.at + 1).map((e) => moveCoords(e.move));
  if (state.start === "start") return moves.length ? moves.join(" ") : "start";
  return moves.length ? positionText(entry().answer || state.entries[0].answer) : state.start;
}

function urlOf() {
  const params = new URLSearchParams({ rules: state.rules, position: state.start });
  const moves = state.entries.slice(1).map((e) => moveCoords(e.move));
  if (moves.length) params.set("moves", moves.join(" "));
  if (state.at < state.entries.length - 1) params.set("ply", String(state.at));
  // A game against millbase stays one in the link and across a reload.
  if (state.opponent) {
    params.set("millbase", state.opponent === "w" ? "white" : "black");
    if (state.strength !== "perfect") params.set("style", state.strength);
    if (state.hide) params.set("hide", "1");
  }
  return `/?${params.toString()}`;
}

function updateUrl(push) {
  const url = urlOf();
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
  $("stats-link").href = `/stats?${new URLSearchParams({ rules: state.rules })}`;
  state.fieldText = gameText();
  $("position").value = state.fieldText;
}

function boardOf(rules, info) {
  const name = info ? info.board : guessBoard(rules);
  return state.catalog.boards.find((b) => b.name === name) || null;
}

// Loads a game (rules, start, moves) whole, or changes nothing and says
// why: a page never mixes one game's board with another's position.
async function loadGame(rules, start, moves, push, ply) {
  setBusy(1);
  showError("");
  const info = state.catalog.rule_sets.find((r) => r.rules === rules) || null;
  const board = boardOf(rules, info);
  try {
    if (!board) throw new Error(`no tables of rule set ${rules} here`);
    const game = await api("game", { rules, position: start, moves: moves || "" });
    Object.assign(state, { rules, info, board, start, pick: [], line: null, failed: "" });
    state.entries = game.positions.map((answer, i) => ({
      answer, position: positionText(answer), move: i ? game.played[i - 1] : null,
    }));
    state.at = ply === undefined || ply === null ? state.entries.length - 1
      : Math.max(0, Math.min(state.entries.length - 1, ply));
    updateUrl(push);
    $("rules").value = rules;
    syncRandomEntry();
    render();
    setBusy(-1);
    maybeAnswer();
    return true;
  } catch (e) {
    if (state.rules && state.rules !== rules) {
      showError(`cannot open ${rules}: ${e.message}. Still showing ${state.rules}.`);
    } else {
      showError(e.message);
    }
    $("rules").value = state.rules || rules;
    if (!state.entries.length && board) {
      // Nothing shown yet: an empty board of that game, with the error.
      Object.assign(state, { rules, info, board, failed: e.message });
      state.entries = [{ answer: null, position: ".".repeat(board.points) + " w 0 0", move: null }];
      state.at = 0;
    } else if (state.entries.length && state.entries[0].answer) {
      // The page goes on showing the game it had: the URL says so too, so
      // that "copy link" copies that game, not the link that failed.
      updateUrl(false);
    }
    if (state.entries.length) render();
    setBusy(-1);
    return false;
  }
}

// Loads what the position field or a link gives: a board string opens a
// game at that position; a move list (or start) a game from the start.
function loadText(rules, text, push) {
  const info = state.catalog.rule_sets.find((r) => r.rules === rules) || null;
  const board = boardOf(rules, info);
  if (isBoardText(text, board ? board.points : 24)) return loadGame(rules, text, "", push);
  const moves = text.trim().replace(/^start\b/i, "").trim();
  return loadGame(rules, "start", moves, push);
}

function guessBoard(rules) {
  if (/board=diagonals|^twelve/.test(rules)) return "diagonals";
  if (/board=six|^six/.test(rules)) return "six";
  if (/board=three|^three/.test(rules)) return "three";
  return "standard";
}

// A random position of a moving-phase table: stones placed at random,
// neither side with a line (which would end or have ended the game).
function randomPosition(board, w, b) {
  for (let tries = 0; tries < 200; tries++) {
    const points = [...Array(board.points).keys()];
    for (let i = points.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [points[i], points[j]] = [points[j], points[i]];
    }
    const cells = Array(board.points).fill(".");
    points.slice(0, w).forEach((p) => { cells[p] = "W"; });
    points.slice(w, w + b).forEach((p) => { cells[p] = "B"; });
    const lined = board.lines.some((l) => l.every((q) => cells[q] === "W") || l.every((q) => cells[q] === "B"));
    if (!lined || tries === 199) return `${cells.join("")} w 0 0`;
  }
  return null;
}

function syncRandomEntry() {
  const stones = state.info ? state.info.stones : [9, 9];
  for (const [id, n] of [["white-stones", stones[0]], ["black-stones", stones[1]]]) {
    const input = $(id);
    input.max = n;
    if (Number(input.value) > n || !input.dataset.touched) input.value = n;
  }
}

async function bestLine() {
  setBusy(1);
  showError("");
  const at = state.at;
  try {
    const position = positionText(entry().answer);
    const answers = await api("line", { rules: state.rules, position, max: 60 });
    state.line = { at, position, answers };
  } catch (e) {
    showError(e.message);
  }
  render();
  setBusy(-1);
}

// The index of the last entry reached by a move of `side` at or before i.
function lastOwnMove(side, i) {
  for (let k = i; k >= 1; k--) {
    if (parsePosition(state.entries[k - 1].answer.position).side === side) return k;
  }
  return null;
}

function lastMistake(side) {
  for (let k = state.entries.length - 1; k >= 1; k--) {
    if (parsePosition(state.entries[k - 1].answer.position).side === side && isMistake(k)) return k;
  }
  return null;
}

// Goes back to the position before entry k's move, dropping the rest.
function takeBackTo(k) {
  if (k === null) return;
  state.entries.length = k;
  state.at = k - 1;
  state.pick = [];
  show(true);
}

function fromUrl(push) {
  const p = new URLSearchParams(location.search);
  const list = state.catalog.rule_sets;
  // The first entry of the menu: the standard game when it is built whole.
  const fallback = $("rules").options.length ? $("rules").options[0].value : "standard";
  const rules = p.get("rules") || fallback;
  // A ply is a whole number; anything else (`ply=abc`, `ply=1.5`, an
  // empty `ply=`) is said, and the game opens at its last position.
  const rawPly = p.get("ply");
  const ply = rawPly !== null && /^\d+$/.test(rawPly) ? Number(rawPly) : null;
  const badPly = rawPly !== null && ply === null
    ? `ply=${rawPly} in the link is not a ply number (0, 1, 2, ...): showing the last position`
    : "";
  const versus = readOpponent(p);
  const said = (loading) => Promise.resolve(loading).then((ok) => {
    const errors = [badPly, versus].filter((x) => x);
    if (errors.length) showError(errors.join(" · "));
    return ok;
  });
  const position = p.get("position") || "start";
  if (p.get("moves")) return said(loadGame(rules, position, p.get("moves"), push, ply));
  const info = list.find((r) => r.rules === rules);
  if (!p.get("position") && info && !info.phases.placing) return said(startRandom(rules, push));
  return said(loadText(rules, position, push));
}

// Who millbase plays and how, from a link (`millbase=white|black`,
// `style=perfect|practical|random`); what cannot be read is said.
function readOpponent(p) {
  const side = p.get("millbase");
  const style = p.get("style");
  const sides = { white: "w", black: "b" };
  const styles = ["perfect", "practical", "random"];
  let bad = "";
  if (side !== null && !(side in sides)) bad = `millbase=${side} in the link: give white or black`;
  if (style !== null && !styles.includes(style)) bad = `style=${style} in the link: give ${styles.join(", ")}`;
  setOpponent(side in sides ? sides[side] : "", styles.includes(style) ? style : "perfect");
  state.hide = p.get("hide") === "1";
  return bad;
}

function setOpponent(opponent, strength) {
  state.opponent = opponent;
  state.strength = strength;
  $("opponent").value = opponent;
  $("strength").value = strength;
}

// A new game of the same rules against the same opponent: the start, or
// a new random position of a set without its placing phase.
function newGame() {
  const info = state.catalog.rule_sets.find((r) => r.rules === state.rules);
  if (info && !info.phases.placing) return startRandom(state.rules, true);
  return loadGame(state.rules, "start", "", true);
}

function startRandom(rules, push) {
  const info = state.catalog.rule_sets.find((r) => r.rules === rules) || null;
  const board = boardOf(rules, info);
  if (!board) return loadGame(rules, "start", "", push);
  const max = info ? info.stones : [9, 9];
  const clamp = (v, m) => Math.max(3, Math.min(m, Number(v) || m));
  const sameGame = state.rules === rules;
  const w = sameGame ? clamp($("white-stones").value, max[0]) : max[0];
  const b = sameGame ? clamp($("black-stones").value, max[1]) : max[1];
  return loadGame(rules, randomPosition(board, w, b), "", push);
}

function fillRuleMenu() {
  const sel = $("rules");
  const sets = [...state.catalog.rule_sets];
  // The standard game first (the most stones first), then the others.
  const family = (r) => (r.rules === "standard" ? 0 : r.rules.startsWith("standard") ? 1 : 2);
  const stones = (r) => (r.stones ? r.stones[0] + r.stones[1] : 0);
  const cmp = (a, b) => family(a) - family(b) || stones(b) - stones(a) || a.rules.localeCompare(b.rules);
  const whole = sets.filter((r) => r.phases.placing).sort(cmp);
  const moving = sets.filter((r) => !r.phases.placing).sort(cmp);
  const add = (parent, r, text) => {
    const o = document.createElement("option");
    o.value = r.rules;
    o.textContent = text;
    parent.appendChild(o);
  };
  for (const r of whole) add(sel, r, r.rules);
  if (moving.length) {
    const g = document.createElement("optgroup");
    g.label = "moving phase only (opens at a random position)";
    for (const r of moving) add(g, r, `${r.rules} (moving phase)`);
    sel.appendChild(g);
  }
  const wanted = new URLSearchParams(location.search).get("rules");
  if (wanted && !sets.some((r) => r.rules === wanted)) add(sel, { rules: wanted }, wanted);
}

async function copyLink() {
  const url = location.href;
  let ok = false;
  try { await navigator.clipboard.writeText(url); ok = true; } catch (e) {
    const t = document.createElement("textarea");
    t.value = url;
    document.body.appendChild(t);
    t.select();
    try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
    t.remove();
  }
  $("copied").textContent = ok ? "link copied" : url;
  $("copied").dataset.url = url;
}

async function init() {
  $("back").addEventListener("click", () => {
    if (state.at > 0) { state.at--; state.pick = []; show(false); }
  });
  $("forward").addEventListener("click", () => {
    if (state.at < state.entries.length - 1) { state.at++; state.pick = []; show(false); }
  });
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    saved?.setItem("millbase.flipped", state.flipped ? "1" : "0");
    render();
  });
  $("labels").value = state.labels;
  $("labels").addEventListener("change", (e) => {
    state.labels = e.target.value;
    saved?.setItem("millbase.labels", state.labels);
    render();
  });
  $("best").addEventListener("click", bestLine);
  $("opponent").addEventListener("change", (e) => {
    state.opponent = e.target.value;
    updateUrl(false);
    render();
    maybeAnswer();
  });
  $("strength").addEventListener("change", (e) => { state.strength = e.target.value; updateUrl(false); });
  $("new-game").addEventListener("click", newGame);
  $("hide").addEventListener("change", (e) => { state.hide = e.target.checked; updateUrl(false); render(); });
  $("hint-move").addEventListener("click", () => { state.hint = state.at; render(); });
  // Analysis: millbase stops playing, every value shows, mistakes are marked.
  $("analyse").addEventListener("click", () => {
    setOpponent("", state.strength);
    updateUrl(false);
    render();
  });
  $("swap").addEventListener("click", () => {
    setOpponent(state.opponent ? otherSide(state.opponent) : "w", state.strength);
    updateUrl(false);
    render();
    maybeAnswer();
  });
  $("undo").addEventListener("click", () => {
    const human = otherSide(state.opponent);
    takeBackTo(lastOwnMove(human, state.entries.length - 1));
  });
  $("takeback").addEventListener("click", () => takeBackTo(lastMistake(otherSide(state.opponent))));
  $("copy-link").addEventListener("click", copyLink);
  $("entry").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("position").value.trim() || "start";
    const rules = $("rules").value;
    // The field shows the game; submitting it unchanged keeps the game.
    if (rules === state.rules && text === state.fieldText) return;
    loadText(rules, text, true).then((ok) => {
      if (ok && state.entries.length) $("hint").textContent = "A new game from the position entered; the browser's back button returns to the one before.";
    });
  });
  $("random-entry").addEventListener("submit", (e) => { e.preventDefault(); startRandom(state.rules, true); });
  for (const id of ["white-stones", "black-stones"]) $(id).addEventListener("input", (e) => { e.target.dataset.touched = "1"; });
  $("rules").addEventListener("change", () => {
    const rules = $("rules").value;
    if (!rules) return;
    const info = state.catalog.rule_sets.find((r) => r.rules === rules);
    if (info && !info.phases.placing) startRandom(rules, true);
    else loadGame(rules, "start", "", true);
  });
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowLeft") $("back").click();
    else if (e.key === "ArrowRight") $("forward").click();
    else if (e.key === "Escape" && state.pick.length) { state.pick = []; render(); }
  });
  // A pointer's choice ends any focus waiting to be given back.
  document.addEventListener("pointerdown", () => { state.focusLater = null; });
  window.addEventListener("popstate", () => fromUrl(false));
  setBusy(1);
  try {
    state.catalog = await api("rules", {});
  } catch (e) {
    showError(`cannot read the rule sets: ${e.message}`);
    setBusy(-1);
    return;
  }
  fillRuleMenu();
  if (!state.catalog.boards.length) {
    showError("no tables found: build some with `millbase build`");
    setBusy(-1);
    return;
  }
  await fromUrl(false);
  setBusy(-1);
}

init();
