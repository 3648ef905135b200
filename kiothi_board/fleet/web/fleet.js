// The fleet dashboard: tiles from the hub's pushes; staff actions once the token is given.
"use strict";
(function () {
  const tiles = document.getElementById("tiles");
  const boards = new Map();
  let ws = null;
  let role = "spectator";
  let open = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
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
    if (b.age !== null && b.age !== undefined) add("heard", b.age + " s ago");
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

  // A value for people: nested figures as "key value · key value", not raw JSON.
  function readable(v) {
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) return v.length > 12 ? v.length + " values" : v.map(readable).join(", ");
    if (typeof v !== "object") return String(v);
    const parts = [];
    for (const [k, x] of Object.entries(v)) {
      if (x === null || x === undefined) continue;
      parts.push(k + " " + (typeof x === "object" && !Array.isArray(x) ? "{…}" : readable(x)));
    }
    return parts.join(" · ") || "—";
  }

  function dl(target, obj) {
    target.replaceChildren();
    for (const [k, v] of Object.entries(obj || {})) {
      target.appendChild(el("dt", "", k));
      target.appendChild(el("dd", "", readable(v)));
    }
  }

  function fillDetail(b) {
    if (!b) return;
    document.getElementById("detail-name").textContent = b.board + " — " + b.status;
    drawBoard(document.getElementById("detail-board"), b.state);
    dl(document.getElementById("detail-health"), b.health);
    dl(document.getElementById("detail-stats"), (b.stats && b.stats.today) || b.stats);
    const ev = document.getElementById("detail-events");
    ev.replaceChildren(...b.events.slice(-10).reverse().map((e) => el("li", "", e.event + (e.pit ? " " + e.pit : ""))));
    const link = document.getElementById("detail-twin");
    link.hidden = !(b.info && b.info.web);
    if (b.info && b.info.web) link.href = b.info.web;
    document.querySelector(".actions.staff").hidden = role !== "control";
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
    send({ auth: input.value });
    input.value = "";
  });

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  function setRole(r) {
    role = r;
    const badge = document.getElementById("role");
    badge.textContent = r === "control" ? "staff" : "read-only";
    badge.className = "badge " + r;
    document.getElementById("login").hidden = r === "control";
    if (open) fillDetail(boards.get(open));
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws");
    ws.onopen = () => document.getElementById("conn").classList.add("up");
    ws.onclose = () => {
      document.getElementById("conn").classList.remove("up");
      setTimeout(connect, 1000);
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "boards") {
        boards.clear();
        for (const b of msg.boards) boards.set(b.board, b);
        if (msg.role) setRole(msg.role);
        if (msg.broker === false) say("The dashboard lost the broker: boards show as unknown until it is back.");
        if (msg.broker === true) say("");
        render();
      } else if (msg.type === "board") {
        boards.set(msg.board.board, msg.board);
        render();
      } else if (msg.type === "role") {
        setRole(msg.role);
        say("Signed in: staff actions are on.");
      } else if (msg.type === "sent") {
        say(msg.action + " sent to " + msg.board + ".");
      } else if (msg.type === "error") {
        say(msg.message);
      }
    };
  }
  setRole("spectator");
  connect();
})();
