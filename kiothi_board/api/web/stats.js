// The operator page's statistics: games per hour, duration histogram, presses per pit on
// the board, the exhibit's state. Staff only: `stats` answers the control role alone.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $s = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The y axis' marks: 0, the middle and the top, each a whole count and each once (a top
// of 1 reads "0, 1", not "0, 1, 1"); the middle only where it is a whole number.
function ticks(max) {
  const marks = [0, max];
  if (max % 2 === 0) marks.splice(1, 0, max / 2);
  return marks;
}

// A bar chart of `values` with `labels` under every `every`-th bar.
// The drawing is as wide as the chart on screen (at least 280, at most 640 units), so its
// 11 px words stay 11 px on a phone; labels are thinned out until they do not touch.
function drawnWidth(svg) {
  return Math.round(Math.min(640, Math.max(280, svg.getBoundingClientRect().width || 640)));
}

function bars(svg, values, labels, every, colour) {
  svg.replaceChildren();
  const w = drawnWidth(svg), h = 180, left = 34, bottom = 24, top = 10;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const max = Math.max(1, ...values);
  const bw = (w - left - 6) / values.length;
  const widest = Math.max(...labels.map((l) => l.length)) * 6.5 + 6;
  while (every * bw < widest && every < values.length) every += 1;
  for (const tick of ticks(max)) {
    const y = top + (h - top - bottom) * (1 - tick / max);
    svg.appendChild(el("line", { x1: left, x2: w, y1: y, y2: y, stroke: "#3a2b1c" }));
    svg.appendChild(el("text", { x: left - 4, y: y + 4, "text-anchor": "end", fill: "#b9a58f",
      "font-size": 11 }, String(tick)));
  }
  values.forEach((v, i) => {
    const bh = (h - top - bottom) * v / max;
    const x = left + i * bw;
    const bar = el("rect", { x: x + 1, y: h - bottom - bh, width: Math.max(1, bw - 2), height: bh,
      fill: colour, rx: 2, class: "bar" });
    bar.appendChild(el("title", {}, `${labels[i]}: ${v}`));
    svg.appendChild(bar);
    if (i % every === 0) {
      svg.appendChild(el("text", { x: x + bw / 2, y: h - 8, "text-anchor": "middle",
        fill: "#b9a58f", "font-size": 11 }, labels[i]));
    }
  });
}

// The board seen from South: North's row on top (N10 at the left), each pit a disc whose
// warmth and size follow its presses.
function pitMap(svg, presses) {
  svg.replaceChildren();
  const w = drawnWidth(svg), h = 150;
  const col = (w - 16) / 10, big = Math.min(26, col * 0.46), font = Math.min(11, col / 3.2);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.appendChild(el("rect", { x: 0, y: 0, width: w, height: h, rx: 18, fill: "#2a1d12" }));
  // Wear is relative: the least pressed pit is the smallest disc, the most pressed the biggest.
  const counts = Object.values(presses);
  const max = Math.max(1, ...counts), min = Math.min(...counts);
  for (let p = 0; p < 20; p++) {
    const name = p < 10 ? `S${p + 1}` : `N${p - 9}`;
    const at = p < 10 ? p : 19 - p;
    const row = p < 10 ? 1 : 0;
    const cx = 8 + col * (at + 0.5), cy = 42 + row * 68;
    const n = presses[name] || 0;
    const k = max > min ? (n - min) / (max - min) : 1;
    const r = big * (0.46 + 0.54 * Math.sqrt(k));
    const fill = `rgb(${Math.round(60 + 195 * k)},${Math.round(45 + 110 * k)},${Math.round(35 + 10 * k)})`;
    const disc = el("circle", { cx, cy, r, fill, class: "pit-disc", "data-pit": name });
    disc.appendChild(el("title", {}, tn("{pit}: {n} press", "{pit}: {n} presses", n, { pit: name })));
    svg.appendChild(disc);
    svg.appendChild(el("text", { x: cx, y: cy + 4, "text-anchor": "middle", fill: "#1b130d",
      "font-size": font, "font-weight": 700 }, name));
    svg.appendChild(el("text", { x: cx, y: cy + (row ? 38 : -30), "text-anchor": "middle",
      fill: "#b9a58f", "font-size": Math.min(10, font) }, String(n)));
  }
}

function fmtSeconds(s) {
  if (s === null || s === undefined) return "–";
  return s >= 60 ? t("{m}\u00a0min {s}\u00a0s", { m: Math.floor(s / 60), s: Math.round(s % 60) })
    : t("{s}\u00a0s", { s: Math.round(s) });
}

// The summary's sentence: the games, the median, then each counter (plural forms per language).
function summaryLine(stats) {
  const total = stats.total, g = total.games;
  const range = t("{first} to {last} ({zone})", {
    first: stats.days[0].day, last: stats.days[stats.days.length - 1].day, zone: stats.timezone });
  const games = tn("{n} game started, {finished} finished, {abandoned} abandoned",
    "{n} games started, {finished} finished, {abandoned} abandoned", g.started,
    { finished: g.finished, abandoned: g.abandoned });
  const counts = [
    tn("{n} wrong press", "{n} wrong presses", total.wrong),
    tn("{n} hint", "{n} hints", total.hints),
    tn("{n} error", "{n} errors", total.errors),
    tn("{n} restart", "{n} restarts", total.restarts),
    tn("{n} input fault", "{n} input faults", total.input_faults),
  ];
  const median = t("median {duration}", { duration: fmtSeconds(total.duration.median) });
  return t("{range}: {games}; {median}; {counts}.", { range, games, median, counts: counts.join(", ") });
}

// How a game ended (exhibit/stats.py `outcome`), for the results table.
const OUTCOMES = {
  visitor: N_("the visitor won"), ai: N_("the AI won"), draw: N_("a draw"), abandoned: N_("abandoned"),
  playing: N_("in progress"), S: N_("South won"), N: N_("North won"),
};

function resultCells(key, n) {
  const [mode, level, how] = key.split(":");
  // Two players have no AI level; "visitor"/"ai" say who won against the AI.
  return [WORDS.modes[mode] || mode, mode === "two" ? "—" : levelName(level),
    OUTCOMES[how] ? t(OUTCOMES[how]) : how, n];
}

function drawStats(stats) {
  const t0 = stats.total;
  $s("stats-summary").textContent = summaryLine(stats);
  const hours = [...Array(24).keys()].map((h) => `${String(h).padStart(2, "0")}h`);
  bars($s("chart-hours"), t0.hours, hours, 3, "#ff9d2e");
  const bins = t0.duration.bins;
  const labels = bins.map((b) => t("<{m}\u00a0min", { m: b / 60 }))
    .concat([t("≥{m}\u00a0min", { m: bins[bins.length - 1] / 60 })]);
  bars($s("chart-durations"), t0.duration.histogram, labels, 1, "#6fb3ff");
  pitMap($s("chart-pits"), t0.presses);
  const results = $s("stats-results");
  results.replaceChildren();
  for (const [key, n] of Object.entries(t0.results)) {
    const tr = document.createElement("tr");
    for (const cell of resultCells(key, n)) {
      const td = document.createElement("td");
      td.textContent = String(cell);
      tr.appendChild(td);
    }
    tr.lastChild.dataset.label = t("Games");  // the count's name on a narrow screen's line
    results.appendChild(tr);
  }
  drawStats.last = stats;
  document.body.dataset.stats = "drawn";
  document.body.dataset.statsLang = I18N.lang;
}

// The exhibit's phase (exhibit/attendant.py), said to staff.
const PHASES = {
  closed: N_("closed"), attract: N_("inviting visitors"), waking: N_("a visitor is starting"),
  playing: N_("a game is on"), countdown: N_("counting down"), reset: N_("the board is being reset"),
  off: N_("off"),
};

function exhibitLine(ex) {
  if (!ex || !ex.enabled) return t("Exhibition mode is off.");
  const phase = PHASES[ex.phase] ? t(PHASES[ex.phase]) : ex.phase;
  const parts = [ex.countdown !== null ? t("{phase} ({n}\u00a0s left)", { phase, n: ex.countdown }) : phase,
    ex.open ? tp("hours", "open") : tp("hours", "closed")];
  if (ex.quiet) parts.push(t("quiet hours"));
  return t("Exhibition: {state} (the brightness: under Lights)", { state: parts.join(", ") });
}

async function loadStats() {
  const days = Number($s("stats-days").value) || 7;
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86400000);
  const iso = (d) => d.toISOString().slice(0, 10);
  try {
    const { exhibit } = await client.request("exhibit");
    const sw = $s("exhibit-switch");
    sw.hidden = !exhibit;
    sw.dataset.on = exhibit && exhibit.enabled ? "yes" : "no";
    sw.textContent = exhibit && exhibit.enabled ? t("Switch exhibition mode off") : t("Switch exhibition mode on");
    $s("exhibit-line").textContent = exhibitLine(exhibit);
    const args = $s("stats-day").value ? { from: $s("stats-day").value, to: $s("stats-day").value }
      : (exhibit ? { to: exhibit.day, days } : { from: iso(from), to: iso(to) });
    const stats = await client.request("stats", args);
    drawStats(stats);
  } catch (e) {
    $s("stats-summary").textContent = e.message;
  }
}

async function downloadCsv() {
  const token = localStorage.getItem("kiothi-token");
  const days = Number($s("stats-days").value) || 7;
  // The token if one is kept; else the staff session's cookie (a PIN) goes with the request.
  const r = await fetch(`/stats.csv?days=${days}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {}, credentials: "same-origin",
  });
  if (!r.ok) { toast(t("The CSV could not be downloaded (HTTP {status}).", { status: r.status }), "err"); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement("a");
  a.href = url; a.download = "kiothi-stats.csv"; a.click();
  URL.revokeObjectURL(url);
}

// Only staff see figures; everyone else is told how to become staff (in the page's language).
function statsForRole() {
  if (client.hello && client.hello.role === "control") { loadStats(); return; }
  $s("stats-summary").textContent = t("Statistics are for staff: enter the access code or the staff PIN above.");
  $s("exhibit-line").textContent = "…";
}
client.on("open", statsForRole);
// A window turned or resized: the charts are drawn again at their new width.
let resized = null;
window.addEventListener("resize", () => {
  clearTimeout(resized);
  resized = setTimeout(() => { if (drawStats.last) drawStats(drawStats.last); }, 200);
});
onLanguage(() => { if (client.hello) statsForRole(); });  // redrawn in the new language
client.on("game_over", () => loadStats());
$s("stats-refresh").onclick = loadStats;
// Until the board restarts (the config decides then); staff only, like the statistics.
$s("exhibit-switch").onclick = () =>
  client.request("exhibit.set", { enabled: $s("exhibit-switch").dataset.on !== "yes" })
    .then(loadStats).catch((e) => toast(e.message, "err"));
$s("stats-csv").onclick = downloadCsv;
