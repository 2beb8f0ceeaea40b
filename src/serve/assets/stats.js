// millbase statistics page: per subspace wins / draws / losses as a
// stacked bar chart and the distribution of plies to the end, from
// /api/v1/stats.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let data = null;
let chosen = null; // index of the row whose plies are shown, null: all

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

async function api(path, params) {
  const r = await fetch(`/api/v1/${path}?${new URLSearchParams(params)}`);
  const body = await r.json().catch(() => ({ error: `${r.status} ${r.statusText}` }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

const fmt = (n) => n.toLocaleString("en");

function drawWdl() {
  const svg = $("wdl");
  svg.replaceChildren();
  const rows = data.subspaces;
  // As wide in units as on the screen, so that its text keeps its size
  // on a phone.
  const h = 16, left = 90, width = pixelsWide(svg) - left - 10;
  svg.setAttribute("viewBox", `0 0 ${width + left + 10} ${rows.length * h + 10}`);
  rows.forEach((r, i) => {
    const y = 5 + i * h;
    const g = el("g", { "data-subspace": r.subspace }, svg);
    g.addEventListener("click", () => choose(i));
    el("text", { x: 4, y: y + 12 }, g).textContent = r.subspace;
    const total = r.wins + r.draws + r.losses || 1;
    let x = left;
    for (const k of ["wins", "draws", "losses"]) {
      const w = (r[k] / total) * width;
      const cls = { wins: "win", draws: "draw", losses: "loss" }[k];
      const rect = el("rect", { x, y: y + 1, width: Math.max(w, 0), height: h - 3, class: cls }, g);
      el("title", {}, rect).textContent = `${r.subspace}: ${fmt(r[k])} ${k} (${(100 * r[k] / total).toFixed(1)} %)`;
      x += w;
    }
    if (i === chosen) el("rect", { x: left - 2, y, width: width + 4, height: h - 1, fill: "none", stroke: "#1565c0", "stroke-width": 2 }, g);
  });
}

function drawPlies() {
  const svg = $("plies");
  svg.replaceChildren();
  const rows = chosen === null ? data.subspaces : [data.subspaces[chosen]];
  $("plies-title").textContent = `Plies to the end: ${chosen === null ? "all subspaces" : rows[0].subspace} (wins up, losses down)`;
  const wins = [], losses = [];
  for (const r of rows) {
    r.plies.wins.forEach((n, d) => { wins[d] = (wins[d] || 0) + n; });
    r.plies.losses.forEach((n, d) => { losses[d] = (losses[d] || 0) + n; });
  }
  const n = Math.max(wins.length, losses.length, 1);
  const max = Math.max(1, ...wins.filter(Boolean), ...losses.filter(Boolean));
  const W = pixelsWide(svg), H = 260, mid = H / 2, left = 60, bw = Math.max(1, (W - left - 10) / n);
  svg.setAttribute("viewBox", `0 0 ${W} ${H + 34}`);
  // A log scale: the counts span many orders of magnitude.
  const scale = (v) => (v > 0 ? (Math.log10(v + 1) / Math.log10(max + 1)) * (mid - 10) : 0);
  // Gridlines and labelled ticks at each power of ten, both ways.
  for (let p = 10; p <= max; p *= 10) {
    for (const y of [mid - scale(p), mid + scale(p)]) {
      el("line", { x1: left, y1: y, x2: W, y2: y, class: "grid" }, svg);
      el("text", { x: left - 4, y: y + 4, "text-anchor": "end", class: "tick" }, svg).textContent = tick(p);
    }
  }
  el("line", { x1: left, y1: mid, x2: W, y2: mid, stroke: "#999" }, svg);
  el("text", { x: left - 4, y: mid + 4, "text-anchor": "end" }, svg).textContent = "0";
  el("text", { x: W - 4, y: 12, "text-anchor": "end" }, svg).textContent = "wins (log scale)";
  el("text", { x: W - 4, y: H - 2, "text-anchor": "end" }, svg).textContent = "losses (log scale)";
  el("text", { x: W / 2, y: H + 32, "text-anchor": "middle" }, svg).textContent = "plies to the end";
  for (let d = 0; d < n; d++) {
    const x = left + d * bw;
    if (wins[d]) {
      const hh = scale(wins[d]);
      const r = el("rect", { x, y: mid - hh, width: Math.max(bw - 1, 1), height: hh, class: "win" }, svg);
      el("title", {}, r).textContent = `won in ${d} plies: ${fmt(wins[d])}`;
    }
    if (losses[d]) {
      const hh = scale(losses[d]);
      const r = el("rect", { x, y: mid, width: Math.max(bw - 1, 1), height: hh, class: "loss" }, svg);
      el("title", {}, r).textContent = `lost in ${d} plies: ${fmt(losses[d])}`;
    }
  }
  // A labelled tick every 40 units or more.
  const step = Math.max(1, Math.ceil(n / Math.max(1, Math.floor((W - left) / 40)) / 5) * 5);
  for (let d = 0; d < n; d += step) {
    el("line", { x1: left + d * bw, y1: H - 4, x2: left + d * bw, y2: H + 2, stroke: "#999" }, svg);
    el("text", { x: left + d * bw, y: H + 16, "text-anchor": "middle", class: "tick" }, svg).textContent = d;
  }
}

// The width a chart is drawn at, in CSS pixels (800 before layout).
function pixelsWide(svg) {
  const w = Math.round(svg.getBoundingClientRect().width);
  return w > 0 ? Math.max(300, w) : 800;
}

// 1, 10, 100, 1k, 10k, ... for the log axis.
function tick(p) {
  const units = [[1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [u, s] of units) if (p >= u) return `${p / u}${s}`;
  return String(p);
}

function drawTable() {
  const tb = $("table").querySelector("tbody");
  tb.replaceChildren();
  data.subspaces.forEach((r, i) => {
    const tr = document.createElement("tr");
    if (i === chosen) tr.className = "chosen";
    const cells = [r.subspace, r.phase, fmt(r.positions), fmt(r.wins), fmt(r.draws), fmt(r.losses)];
    if (data.nmove) cells.push(fmt(r.cursed_wins || 0), fmt(r.blessed_losses || 0));
    cells.push(r.longest_win ?? "-", r.longest_loss ?? "-");
    for (const v of cells) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tr.addEventListener("click", () => choose(i));
    tb.appendChild(tr);
  });
}

function choose(i) {
  chosen = chosen === i ? null : i;
  render();
}

function render() {
  const t = data.subspaces.reduce((a, r) => ({
    positions: a.positions + r.positions, wins: a.wins + r.wins, draws: a.draws + r.draws, losses: a.losses + r.losses,
    cursed: a.cursed + (r.cursed_wins || 0), blessed: a.blessed + (r.blessed_losses || 0),
  }), { positions: 0, wins: 0, draws: 0, losses: 0, cursed: 0, blessed: 0 });
  for (const th of document.querySelectorAll("#table th.nmove")) th.hidden = !data.nmove;
  // A set with only its moving phase built says so: its numbers are not a
  // whole game's.
  const info = catalog && catalog.rule_sets.find((r) => r.rules === data.rules);
  const partial = info && info.phases && !info.phases.placing ? " (moving phase only: the placing phase is not built)" : "";
  $("summary").textContent = `${data.rules}${partial}: ${data.subspaces.length} tables, ${fmt(t.positions)} positions, ` +
    `${fmt(t.wins)} wins, ${fmt(t.draws)} draws` +
    (data.nmove ? ` (among them ${fmt(t.cursed)} cursed wins and ${fmt(t.blessed)} blessed losses)` : "") +
    `, ${fmt(t.losses)} losses. Click a subspace for its plies.`;
  drawWdl();
  drawPlies();
  drawTable();
}

// The charts follow the page's width (a phone turned round).
let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => { if (data) { drawWdl(); drawPlies(); } }, 100);
});

async function load(rules) {
  document.body.dataset.state = "loading";
  $("error").textContent = "";
  $("board-link").href = `/?${new URLSearchParams({ rules })}`;
  history.replaceState(null, "", `/stats?${new URLSearchParams({ rules })}`);
  try {
    data = await api("stats", { rules });
    data.nmove = (catalog.rule_sets.find((r) => r.rules === rules) || {}).nmove || null;
    chosen = null;
    render();
  } catch (e) {
    $("error").textContent = e.message;
  }
  document.body.dataset.state = "ready";
}

let catalog = null;

async function init() {
  try {
    catalog = await api("rules", {});
  } catch (e) {
    $("error").textContent = e.message;
    document.body.dataset.state = "ready";
    return;
  }
  const sel = $("rules");
  // In order (stones=10 after stones=9), each set built only in part
  // marked as such.
  const sets = catalog.rule_sets.slice().sort((a, b) => naturalCompare(a.rules, b.rules));
  for (const r of sets) {
    const o = document.createElement("option");
    o.value = r.rules;
    o.textContent = r.phases && !r.phases.placing ? `${r.rules} (moving phase only)` : r.rules;
    sel.appendChild(o);
  }
  sel.addEventListener("change", () => { if (sel.value) load(sel.value); });
  const asked = new URLSearchParams(location.search).get("rules");
  const first = (catalog.rule_sets[0] || {}).rules;
  if (!first) {
    $("error").textContent = "no tables found: build some with `millbase build`";
    document.body.dataset.state = "ready";
    return;
  }
  if (asked && !catalog.rule_sets.some((r) => r.rules === asked)) {
    // Only whole phases are listed: tables of a game not built whole (or
    // not at all) would give numbers that mean nothing.
    const o = document.createElement("option");
    o.value = "";
    o.textContent = "choose a rule set";
    sel.prepend(o);
    sel.value = "";
    $("error").textContent = `no tables of rule set ${asked} are built here: ` +
      `choose one of the ${catalog.rule_sets.length} rule sets built`;
    document.body.dataset.state = "ready";
    return;
  }
  sel.value = asked || first;
  await load(sel.value);
}

init();

// Texts compared with their runs of digits as numbers.
function naturalCompare(a, b) {
  const parts = (t) => t.match(/\D*\d*/g).filter((x) => x).map((x) => {
    const m = x.match(/^(\D*)(\d*)$/);
    return [m[1], m[2] ? Number(m[2]) : -1];
  });
  const pa = parts(a), pb = parts(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i][0] !== pb[i][0]) return pa[i][0] < pb[i][0] ? -1 : 1;
    if (pa[i][1] !== pb[i][1]) return pa[i][1] - pb[i][1];
  }
  return pa.length - pb.length;
}
