// The fleet dashboard's detail dialog: of a board's health and today's figures, only what
// the staff act on, each in words (issue 31 item 7). The counters kept for programs (auth
// failures, shed connections, histogram bins, results by key) stay on /metrics and the API.
"use strict";
const FleetDetail = (function () {
  function N_(id) { return id; }
  const PARTS = { store: N_("the game store"), exhibit: N_("the exhibition"), mqtt: N_("the broker link"),
    redis: N_("the Redis bus") };
  const PHASES = { closed: N_("closed"), attract: N_("inviting visitors"), waking: N_("a visitor is starting"),
    playing: N_("a game is on"), countdown: N_("counting down"), reset: N_("the board is being reset") };

  // The co-processor link's state (hardware/link_types.py LinkState), in words.
  function link(state) {
    if (state === "up") return tp("link", "working");
    if (state === "down") return tp("link", "down");
    if (state === "closed") return tp("link", "closed");
    return String(state);
  }

  const num = (v) => typeof v === "number" && Number.isFinite(v);
  const obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? v : {});
  const word = (table, k) => (Object.hasOwn(table, k) ? t(table[k]) : String(k));

  function status(h) {
    if (h.status === "ok") return t("all well");
    const parts = (Array.isArray(h.degraded) ? h.degraded : []).map((p) => word(PARTS, p));
    return parts.length ? t("needs attention: {parts}", { parts: parts.join(", ") }) : t("needs attention");
  }

  function exhibition(ex) {
    if (!ex.enabled) return tp("switch", "off");
    const parts = [word(PHASES, ex.phase), ex.open ? tp("hours", "open") : tp("hours", "closed")];
    if (ex.quiet) parts.push(t("quiet hours"));
    return parts.join(", ");
  }

  function clients(h) {
    const c = obj(h.clients);
    return Object.values(c).filter(num).reduce((a, b) => a + b, 0);
  }

  // [label, value] pairs of a board's health, for people.
  function health(h, ago) {
    h = obj(h);
    const ex = obj(h.exhibit);
    const rows = [];
    if (typeof h.status === "string") rows.push([t("Status"), status(h)]);
    if (num(h.uptime)) rows.push([t("Up for"), ago(h.uptime)]);
    const disk = num(h.free_disk) ? h.free_disk : ex.free_disk;
    if (num(disk)) rows.push([t("Free disk"), t("{gb} GB", { gb: (disk / 1e9).toFixed(1) })]);
    if (typeof obj(h.ai_core).core === "string") {
      rows.push([t("AI core"), h.ai_core.core === "native" ? t("native (fast)") : t("Python (slower)")]);
    }
    if (h.clients) rows.push([t("Connections"), String(clients(h))]);
    if (typeof ex.phase === "string") rows.push([t("Exhibition"), exhibition(ex)]);
    if (num(ex.cpu_temperature)) rows.push([t("CPU temperature"), `${ex.cpu_temperature.toFixed(0)} °C`]);
    const throttled = obj(ex.throttled);
    if (throttled.under_voltage) rows.push([t("Power"), t("under-voltage: use the board's own power supply")]);
    else if (throttled.now) rows.push([t("Power"), t("the CPU is slowed down (heat or power)")]);
    if (num(ex.input_faults)) rows.push([t("Input faults"), String(ex.input_faults)]);
    const ln = obj(ex.link);
    if (typeof ln.state === "string") rows.push([t("Co-processor link"), link(ln.state)]);
    const store = obj(h.store);
    if (typeof store.status === "string") {
      rows.push([t("Game store"), store.status === "ok" ? t("all well") : t("needs attention (the operator page says why)")]);
    }
    return rows;
  }

  function minutes(s) {
    return s >= 60 ? t("{m}\u00a0min {s}\u00a0s", { m: Math.floor(s / 60), s: Math.round(s % 60) })
      : t("{s}\u00a0s", { s: Math.round(s) });
  }

  // [label, value] pairs of today's figures.
  function today(s) {
    s = obj(s);
    const d = obj(s.today).games ? obj(s.today) : s;
    const rows = [];
    const g = obj(d.games);
    if (num(g.started)) {
      rows.push([t("Games"), tn("{n} game started, {finished} finished, {abandoned} abandoned",
        "{n} games started, {finished} finished, {abandoned} abandoned", g.started,
        { finished: num(g.finished) ? g.finished : 0, abandoned: num(g.abandoned) ? g.abandoned : 0 })]);
    }
    const median = obj(d.duration).median;
    if (num(median)) rows.push([t("Median length"), minutes(median)]);
    for (const [key, label] of [["wrong", N_("Wrong presses")], ["hints", N_("Hints")],
      ["restarts", N_("Restarts")], ["input_faults", N_("Input faults")]]) {
      if (num(d[key])) rows.push([t(label), String(d[key])]);
    }
    return rows;
  }

  return { health, today, link };
})();
