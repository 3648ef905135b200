// The fleet dashboard: tiles from the hub's pushes; staff actions once the token is given.
"use strict";
(function () {
  const tiles = document.getElementById("tiles");
  const boards = new Map();
  let ws = null;
  let role = "spectator";
  // The staff token, once the dashboard took it, kept in this tab's memory only: a new
  // WebSocket (a network blip, the dashboard restarted) signs in again by itself instead of
  // leaving the staff read-only without a word.
  let staffToken = null;
  let tried = null;
  let open = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  let staff = true; // whether the dashboard was started with a staff token at all

  // The page's words, together (one table to translate).
  const WORDS = {
    readOnly: "This dashboard is read-only: it was started without KIOTHI_FLEET_TOKEN, so staff actions are off (docs/fleet.md).",
    signedIn: "Signed in: staff actions are on.",
    lostBroker: "The dashboard lost the broker: boards show as unknown until it is back.",
    sent: (action, board) => `${ACTION_WORDS[action] || action} sent to ${board}.`,
    forgotten: (board) => `${board} is forgotten until it reports again.`,
    heard: (s) => `${ago(s)} ago`,
    labels: { uptime: "Up for", free_disk: "Free disk", status: "Status", clients: "Connections",
      events: "Events sent", requests: "Requests", errors: "Errors", ai_core: "AI core",
      exhibit: "Exhibition", cpu_temperature: "CPU temperature", input_faults: "Input faults",
      phase: "Phase", enabled: "Mode", link: "Co-processor link", games: "Games",
      started: "started", finished: "finished", abandoned: "abandoned", wrong: "Wrong presses",
      hints: "Hints", restarts: "Restarts" },
    events: { move: "a move", game_over: "game over", new_game: "a new game", wrong: "a wrong press",
      hint: "a hint", capture: "a capture", settings: "settings changed", error: "an error",
      position: "the position changed", guide: "the guide moved on", input: "a press",
      health: "a health report" },
  };
  const ACTION_WORDS = { new_game: "New game", exhibit: "Exhibition mode", brightness: "Brightness", forget: "Forget" };

  function ago(s) {
    // One format everywhere: "4 s", "12 min", "2 h 5 min" (a no-break space keeps each
    // number with its unit on a narrow tile).
    const t = Math.max(0, Math.round(s));
    if (t < 60) return `${t}\u00a0s`;
    if (t < 3600) return `${Math.floor(t / 60)}\u00a0min`;
    return `${Math.floor(t / 3600)}\u00a0h ${Math.floor((t % 3600) / 60)}\u00a0min`;
  }

  function say(text) { document.getElementById("message").textContent = text || ""; }

  function drawBoard(target, state) {
    target.replaceChildren();
    const counts = state && state.board ? state.board : (state && state.position ? state.position.board : null);
    const expect = state ? state.expect : null;
    // North's row on top, read from North's left (N10 on our left), South's row nearest us.
    for (let col = 0; col < 10; col++) target.appendChild(pit(19 - col, counts, expect, "north"));
    for (let col = 0; col < 10; col++) target.appendChild(pit(col, counts, expect, "south"));
  }

  function pitName(i) { return i < 10 ? "S" + (i + 1) : "N" + (i - 9); }

  function pit(i, counts, expect, row) {
    const name = pitName(i);
    const p = el("div", "pit " + row + (expect === name ? " expect" : ""), counts ? String(counts[i]) : "·");
    p.title = name;
    return p;
  }

  function facts(b) {
    const f = el("div", "facts");
    const st = b.state || {};
    const pos = st.position || {};
    const add = (label, value) => {
      const s = el("span", "", label + " ");
      s.appendChild(el("b", "", value));
      f.appendChild(s);
    };
    add("stage", st.stage || "—");
    if (pos.captured) add("score", "S " + pos.captured[0] + " · N " + pos.captured[1]);
    if (pos.to_move && !pos.result) add("to move", pos.to_move);
    const today = (b.stats && b.stats.today) || {};
    if (today.games) add("games today", String(today.games.started));
    const ex = (b.health && b.health.exhibit) || {};
    if (typeof ex.phase === "string") add("exhibition", ex.enabled ? ex.phase : "off");
    if (typeof ex.cpu_temperature === "number") add("CPU", ex.cpu_temperature.toFixed(0) + " °C");
    // The age the hub reported, plus the time since it came: it ticks between pushes.
    if (b.age !== null && b.age !== undefined) add("heard", WORDS.heard(b.age + (performance.now() - b.got) / 1000));
    return f;
  }

  // One button per board, kept across updates and refilled in place: a tile replaced at every
  // push (boards push several times a second) loses the keyboard focus and the click aimed at it.
  const tileEls = new Map();

  function tile(b) {
    let t = tileEls.get(b.board);
    if (!t) {
      t = el("button");
      t.type = "button";
      t.dataset.board = b.board;
      t.addEventListener("click", () => showDetail(t.dataset.board));
      tileEls.set(b.board, t);
    }
    t.className = "tile " + b.status + (b.alerts.length ? " alert" : "");
    // The tile's text is its accessible name (the board's name, status and facts); the
    // mini board's bare numbers are left out of it.
    const head = el("div", "tile-head");
    head.appendChild(el("h2", "", b.board));
    head.appendChild(el("span", "status " + b.status, b.status));
    const board = el("div", "board");
    board.setAttribute("aria-hidden", "true");
    drawBoard(board, b.state);
    const parts = [head, board, facts(b)];
    if (b.alerts.length) {
      const ul = el("ul", "alerts");
      for (const a of b.alerts) ul.appendChild(el("li", "", "⚠ " + a));
      parts.push(ul);
    }
    t.replaceChildren(...parts);
    return t;
  }

  function render() {
    const names = [...boards.keys()].sort();
    const wanted = names.map((n) => tile(boards.get(n)));
    for (const name of [...tileEls.keys()]) if (!boards.has(name)) tileEls.delete(name);
    const shown = [...tiles.children];
    if (wanted.length !== shown.length || wanted.some((t, i) => shown[i] !== t)) {
      tiles.replaceChildren(...wanted);  // only when a board came or went
    }
    const online = names.filter((n) => boards.get(n).status === "online").length;
    document.getElementById("count").textContent = online + " of " + names.length + " online";
    if (open) fillDetail(boards.get(open));
  }

  // Health and statistics for people: durations in h/min, bytes in GB, names in words.
  function figure(key, v) {
    if (key === "uptime" && typeof v === "number") return ago(v);
    if (key === "free_disk" && typeof v === "number") return `${(v / 1e9).toFixed(1)} GB`;
    if (key === "cpu_temperature" && typeof v === "number") return `${v.toFixed(0)} °C`;
    if (key === "ai_core" && v && typeof v === "object") return String(v.core || "—");
    if (key === "enabled" && typeof v === "boolean") return v ? "on" : "off";
    if (typeof v === "boolean") return v ? "yes" : "no";
    return readable(v);
  }

  // A value for people: nested figures as "key value · key value", not raw JSON.
  function readable(v) {
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) return v.length > 12 ? v.length + " values" : v.map(readable).join(", ");
    if (typeof v !== "object") return String(v);
    const parts = [];
    for (const [k, x] of Object.entries(v)) {
      if (x === null || x === undefined) continue;
      parts.push((WORDS.labels[k] || k) + " " + (typeof x === "object" && !Array.isArray(x) ? "…" : figure(k, x)));
    }
    return parts.join(" · ") || "—";
  }

  function dl(target, obj) {
    target.replaceChildren();
    for (const [k, v] of Object.entries(obj || {})) {
      target.appendChild(el("dt", "", WORDS.labels[k] || k));
      target.appendChild(el("dd", "", figure(k, v)));
    }
  }

  function fillDetail(b) {
    if (!b) return;
    document.getElementById("detail-name").textContent = b.board + " — " + b.status;
    drawBoard(document.getElementById("detail-board"), b.state);
    dl(document.getElementById("detail-health"), b.health);
    dl(document.getElementById("detail-stats"), (b.stats && b.stats.today) || b.stats);
    const ev = document.getElementById("detail-events");
    ev.replaceChildren(...b.events.slice(-10).reverse().map((e) => el("li", "", eventWords(e))));
    const link = document.getElementById("detail-twin");
    link.hidden = !(b.info && b.info.web);
    if (b.info && b.info.web) link.href = b.info.web;
    document.querySelector(".actions.staff").hidden = role !== "control";
    // A retired board stays on the dashboard until forgotten (it is not online any more).
    document.getElementById("forget-row").hidden = role !== "control" || b.status === "online";
  }

  function eventWords(e) {
    const what = WORDS.events[e.event] || String(e.event || "an event").replace(/_/g, " ");
    const pit = e.pit ? ` (${e.pit})` : "";
    return what.charAt(0).toUpperCase() + what.slice(1) + pit;
  }

  function showDetail(name) {
    open = name;
    fillDetail(boards.get(name));
    document.getElementById("detail").showModal();
  }

  document.getElementById("detail-close").addEventListener("click", () => {
    open = null;
    document.getElementById("detail").close();
  });
  document.getElementById("detail").addEventListener("close", () => { open = null; });

  for (const btn of document.querySelectorAll("[data-action]")) {
    btn.addEventListener("click", () => {
      const value = btn.dataset.value === undefined ? null : JSON.parse(btn.dataset.value);
      send({ action: btn.dataset.action, board: open, value: value });
    });
  }
  document.getElementById("brightness").addEventListener("change", (e) => {
    send({ action: "brightness", board: open, value: Number(e.target.value) });
  });
  document.getElementById("login").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = document.getElementById("token");
    tried = input.value;
    send({ auth: tried });
    input.value = "";
  });

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  document.getElementById("forget").addEventListener("click", () => {
    send({ action: "forget", board: open });
  });

  function setRole(r) {
    role = r;
    const badge = document.getElementById("role");
    badge.textContent = r === "control" ? "staff" : "read-only";
    badge.className = "badge " + r;
    document.getElementById("login").hidden = r === "control" || !staff;
    if (open) fillDetail(boards.get(open));
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws");
    ws.onopen = () => {
      document.getElementById("conn").classList.add("up");
      if (staffToken) send({ auth: staffToken });
    };
    ws.onclose = () => {
      document.getElementById("conn").classList.remove("up");
      setTimeout(connect, 1000);
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      const got = performance.now();
      if (msg.type === "boards") {
        boards.clear();
        for (const b of msg.boards) boards.set(b.board, { ...b, got });
        if (msg.staff === false) { staff = false; say(WORDS.readOnly); }
        if (msg.role) setRole(msg.role);
        if (msg.broker === false) say(WORDS.lostBroker);
        if (msg.broker === true) say("");
        render();
      } else if (msg.type === "board") {
        boards.set(msg.board.board, { ...msg.board, got });
        render();
      } else if (msg.type === "role") {
        if (msg.role === "control" && tried) { staffToken = tried; tried = null; }
        setRole(msg.role);
        say(WORDS.signedIn);
      } else if (msg.type === "forgotten") {
        boards.delete(msg.board);
        if (open === msg.board) document.getElementById("detail").close();
        render();
        say(WORDS.forgotten(msg.board));
      } else if (msg.type === "sent") {
        say(WORDS.sent(msg.action, msg.board));
      } else if (msg.type === "error") {
        say(msg.message);
      }
    };
  }
  setRole("spectator");
  connect();
  // "heard … ago" ticks between pushes.
  setInterval(() => { if (boards.size) render(); }, 1000);
})();
