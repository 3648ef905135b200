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

  // Words marked for the catalog where they are written, translated where they are shown.
  function N_(id) { return id; }

  let staff = true; // whether the dashboard was started with a staff token at all

  // The page's words, together (one table to translate): the board's catalogs
  // (GET /i18n/<lang>.json, the same as the boards' pages; docs/translating.md).
  const EVENTS = { move: N_("a move"), game_over: N_("game over"), new_game: N_("a new game"),
    wrong: N_("a wrong press"), hint: N_("a hint"), capture: N_("a capture"), settings: N_("settings changed"),
    error: N_("an error"), position: N_("the position changed"), guide: N_("the guide moved on"),
    input: N_("a press"), health: N_("a health report") };
  // A board's status and its exhibit's phase (codes on the bus), and the game's stage.
  const STATUS = { online: N_("online"), offline: N_("offline"), unknown: N_("unknown"), silent: N_("silent") };
  const PHASES = { closed: N_("closed"), attract: N_("inviting visitors"), waking: N_("a visitor is starting"),
    playing: N_("a game is on"), countdown: N_("counting down"), reset: N_("the board is being reset"), off: N_("off") };
  const STAGES = { none: N_("no game"), open: N_("opening"), guided_open: N_("opening"), turn: N_("a turn"),
    sow: N_("sowing"), set: N_("setting the board"), over: N_("game over") };
  // What the dashboard's server says (English codes for programs), in words for staff.
  const REPLIES = { "wrong token": N_("That staff token is not right."),
    rate_limited: N_("Too many tries in a short time: wait a minute, then try again."),
    "no staff token is set": N_("This dashboard is read-only: no staff token is set.") };
  // What was last sent, in the words of the control that sent it (its label as shown now).
  let sentWords = () => "";
  const WORDS = {
    get readOnly() { return t("This dashboard is read-only: it was started without KIOTHI_FLEET_TOKEN, so staff actions are off (docs/fleet.md)."); },
    get signedIn() { return t("Signed in: staff actions are on."); },
    get lostBroker() { return t("The dashboard lost the broker: boards show as unknown until it is back."); },
    sent: (board) => t("{action} sent to {board}.", { action: sentWords(), board }),
    forgotten: (board) => t("{board} is forgotten until it reports again.", { board }),
    heard: (s) => t("{time} ago", { time: ago(s) }),
    online: (n, of) => tn("{n} of {total} online", "{n} of {total} online", n, { total: of }),
    word: (table, k) => (table[k] ? t(table[k]) : String(k)),
    alert: (a) => {
      // The hub's alert codes (fleet/hub.py BoardView.alerts), in words.
      const faults = /^input faults: (\d+)$/.exec(a);
      if (faults) return tn("{n} input fault", "{n} input faults", Number(faults[1]));
      const link = /^link (\w+)$/.exec(a);
      if (link) return t("co-processor link {state}", { state: FleetDetail.link(link[1]) });
      const hot = /^hot CPU (\d+) °C$/.exec(a);
      if (hot) return t("hot CPU: {n} °C", { n: hot[1] });
      return STATUS[a] ? t(STATUS[a]) : a;
    },
  };
  let said = null; // the message line's words, kept to say them again in another language

  function ago(s) {
    // One format everywhere: "4 s", "12 min", "2 h 5 min" (a no-break space keeps each
    // number with its unit on a narrow tile).
    const secs = Math.max(0, Math.round(s));
    if (secs < 60) return tp("ago", "{s}\u00a0s", { s: secs });
    if (secs < 3600) return tp("ago", "{m}\u00a0min", { m: Math.floor(secs / 60) });
    return tp("ago", "{h}\u00a0h {m}\u00a0min", { h: Math.floor(secs / 3600), m: Math.floor((secs % 3600) / 60) });
  }

  // `words` is a function, so a change of language says the line again in the new one.
  function say(words) {
    said = words || null;
    document.getElementById("message").textContent = said ? said() : "";
  }

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
    add(t("stage"), st.stage ? WORDS.word(STAGES, st.stage) : "—");
    if (pos.captured) add(t("score"), "S " + pos.captured[0] + " · N " + pos.captured[1]);
    if ((pos.to_move === "S" || pos.to_move === "N") && !pos.result) {
      add(t("to move"), tp("side", pos.to_move === "S" ? "South" : "North"));
    }
    const today = (b.stats && b.stats.today) || {};
    if (today.games) add(t("games today"), String(today.games.started));
    const ex = (b.health && b.health.exhibit) || {};
    if (typeof ex.phase === "string") add(t("exhibition"), WORDS.word(PHASES, ex.enabled ? ex.phase : "off"));
    if (typeof ex.cpu_temperature === "number") add(t("CPU"), ex.cpu_temperature.toFixed(0) + " °C");
    // The age the hub reported, plus the time since it came: it ticks between pushes.
    if (b.age !== null && b.age !== undefined) add(t("heard"), WORDS.heard(b.age + (performance.now() - b.got) / 1000));
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
    head.appendChild(el("span", "status " + b.status, WORDS.word(STATUS, b.status)));
    const board = el("div", "board");
    board.setAttribute("aria-hidden", "true");
    drawBoard(board, b.state);
    const parts = [head, board, facts(b)];
    if (b.alerts.length) {
      const ul = el("ul", "alerts");
      for (const a of b.alerts) ul.appendChild(el("li", "", "⚠ " + WORDS.alert(a)));
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
    document.getElementById("count").textContent = WORDS.online(online, names.length);
    if (open) fillDetail(boards.get(open));
  }

  function dl(target, rows) {
    target.replaceChildren();
    for (const [label, value] of rows) {
      target.appendChild(el("dt", "", label));
      target.appendChild(el("dd", "", value));
    }
  }

  function fillDetail(b) {
    if (!b) return;
    document.getElementById("detail-name").textContent = b.board + " — " + WORDS.word(STATUS, b.status);
    drawBoard(document.getElementById("detail-board"), b.state);
    dl(document.getElementById("detail-health"), FleetDetail.health(b.health, ago));
    dl(document.getElementById("detail-stats"), FleetDetail.today(b.stats));
    const ev = document.getElementById("detail-events");
    ev.replaceChildren(...b.events.slice(-10).reverse().map((e) => el("li", "", eventWords(e))));
    const link = document.getElementById("detail-twin");
    // A board's own address, and only a web address (a remote field: never a script URL).
    const web = b.info && typeof b.info.web === "string" && /^https?:\/\//i.test(b.info.web) ? b.info.web : null;
    link.hidden = !web;
    if (web) link.href = web; else link.removeAttribute("href");
    document.querySelector(".actions.staff").hidden = role !== "control";
    // A retired board stays on the dashboard until forgotten (it is not online any more).
    document.getElementById("forget-row").hidden = role !== "control" || b.status === "online";
  }

  function eventWords(e) {
    const what = Object.hasOwn(EVENTS, e.event) ? t(EVENTS[e.event]) : t("an event");
    const pit = typeof e.pit === "string" && /^[SN]([1-9]|10)$/.test(e.pit) ? ` (${e.pit})` : "";
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

  // A staff action is a board command of the table's (the dashboard checks its arguments
  // as the board's doors do): the control names it and gives its arguments.
  for (const btn of document.querySelectorAll("[data-action]")) {
    btn.addEventListener("click", () => {
      const args = btn.dataset.args === undefined ? {} : JSON.parse(btn.dataset.args);
      sentWords = () => btn.textContent;
      send({ action: btn.dataset.action, board: open, args: args });
    });
  }
  document.getElementById("brightness").addEventListener("change", (e) => {
    sentWords = () => document.getElementById("brightness-label").textContent;
    send({ action: "settings.set", board: open, args: { brightness: Number(e.target.value) } });
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
    badge.textContent = r === "control" ? t("staff") : t("read-only");
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
        if (Array.isArray(msg.languages)) languages(msg.languages);
        if (msg.staff === false) { staff = false; say(() => WORDS.readOnly); }
        if (msg.role) setRole(msg.role);
        if (msg.broker === false) say(() => WORDS.lostBroker);
        if (msg.broker === true) say(null);
        render();
      } else if (msg.type === "board") {
        boards.set(msg.board.board, { ...msg.board, got });
        render();
      } else if (msg.type === "role") {
        if (msg.role === "control" && tried) { staffToken = tried; tried = null; }
        setRole(msg.role);
        say(() => WORDS.signedIn);
      } else if (msg.type === "forgotten") {
        boards.delete(msg.board);
        if (open === msg.board) document.getElementById("detail").close();
        render();
        say(() => WORDS.forgotten(msg.board));
      } else if (msg.type === "sent") {
        say(() => WORDS.sent(msg.board));
      } else if (msg.type === "error") {
        say(() => (REPLIES[msg.message] ? t(REPLIES[msg.message]) : msg.message));
      }
    };
  }
  // The language: ?lang= (kept), else this device's choice, else the browser's if the
  // catalogs have it, else English; the button cycles the dashboard's languages.
  let offered = [];
  function languages(list) {
    offered = list.map((l) => l.code);
    const btn = document.getElementById("lang");
    btn.hidden = offered.length < 2;
  }
  function firstLanguage() {
    const asked = new URLSearchParams(location.search).get("lang");
    if (asked) { rememberLanguage(asked); return asked; }
    return savedLanguage() || String(navigator.language || "en").split("-")[0].toLowerCase();
  }
  document.getElementById("lang").addEventListener("click", async () => {
    if (offered.length < 2) return;
    const next = offered[(offered.indexOf(I18N.lang) + 1) % offered.length];
    rememberLanguage(next);
    await loadLanguage(next);
  });
  onLanguage(() => {
    document.getElementById("lang").textContent = I18N.name;
    setRole(role);
    if (said) say(said);
    render();
  });
  setRole("spectator");
  loadLanguage(firstLanguage()).then(() => {
    document.getElementById("lang").textContent = I18N.name;
  });
  connect();
  // "heard … ago" ticks between pushes.
  setInterval(() => { if (boards.size) render(); }, 1000);
})();
