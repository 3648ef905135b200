// kiothi-api/1 over WebSocket: requests with ids, promise replies, event handlers,
// reconnect with backoff. Shared by the twin and the operator page.
"use strict";

// The simulator prints a one-time link ".../#ticket=…" (good once, for 10 minutes, made for
// whoever can read its terminal): it is taken out of the address bar, so it is neither
// bookmarked nor shown over a shoulder, and exchanged at the first hello for this tab's own.
// A seat link ".../#seat=…" (the staff's `seat_link`) is taken the same way: the board
// answers it with a session of role `seat` that plays one side.
function takeTicket() {
  const match = /(?:^#|&)(ticket|seat)=([A-Za-z0-9_-]{16,64})/.exec(location.hash);
  if (match) {
    sessionStorage.setItem("kiothi-ticket", match[2]);
    sessionStorage.setItem("kiothi-seat-link", match[1] === "seat" ? "1" : "");
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("kiothi-ticket") || undefined;
}

// What a page says when the board refuses a request: plain sentences for a person, by the
// error's code (the protocol's own message, for programs, is kept in `err.detail`).
const ERROR_WORDS = {
  unauthorized: N_("This device may only watch. To play or change settings, enter the board's access code on the operator page (Access)."),
  rate_limited: N_("Too many tries in a short time: wait a minute, then try again."),
  bad_args: N_("The board could not use what was sent; check the form and try again."),
  parse_error: N_("The board could not read the request; reload the page."),
  invalid_request: N_("The board could not read the request; reload the page."),
  unsupported_version: N_("This page is older than the board; reload it."),
  unknown_command: N_("This board does not offer that."),
  line_too_long: N_("That was too long for the board."),
  not_found: N_("There is no such game on this board."),
  unavailable: N_("This board is not set up for that."),
  internal: N_("The board could not do that; try again."),
  disconnected: N_("The page lost its connection to the board; it reconnects by itself."),
};
// Words marked for the catalog where they are written, translated where they are shown.
function N_(id) { return id; }

// Codes whose message is the game's own words for a player (not protocol words).
const GAME_WORDS = new Set(["conflict", "illegal"]);

function plainError(err, seat) {
  if (err && GAME_WORDS.has(err.code) && err.message) return err.message;
  // A seat's refusals are the board's own sentences, in its language ("This seat plays N
  // only, so it cannot start a game.").
  if (err && seat && err.code === "unauthorized" && err.message) return err.message;
  const words = ERROR_WORDS[err && err.code] || ERROR_WORDS.internal;
  return t(words);
}

class KiothiClient {
  constructor(topics) {
    this.topics = topics;
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.delay = 250;
    this.hello = null;
    this.follows = true; // the page speaks the board's language until the visitor chooses
    this.on("language", async (e) => {
      if (this.follows && e.lang !== I18N.lang) {
        await this.chooseLanguage(null);
        this.emit("relabel", e.lang);
      }
    });
    this.connect();
  }

  on(event, fn) {
    if (!this.handlers.has(event)) this.handlers.set(event, []);
    this.handlers.get(event).push(fn);
  }

  emit(event, data) {
    for (const fn of this.handlers.get(event) || []) fn(data);
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws`);
    this.ws = ws;
    ws.onopen = async () => {
      this.delay = 250;
      try {
        const token = localStorage.getItem("kiothi-token") || undefined;
        const ticket = takeTicket();
        const secret = ticket ? { ticket } : token ? { token } : {};
        let hello;
        try {
          hello = await this.request("hello", { ...secret, client: "web" });
          // The simulator's link is good once: the board answers it with a session ticket
          // of its own, which this tab keeps for its reconnections.
          if (ticket && hello.ticket) sessionStorage.setItem("kiothi-ticket", hello.ticket);
        } catch (err) {
          // A wrong token (or an expired ticket) still leaves a spectator connection.
          sessionStorage.removeItem("kiothi-ticket");
          hello = await this.request("hello", { client: "web" });
          // A spent link is no saved code: say what happened to the link, and where the code is.
          const seatLink = sessionStorage.getItem("kiothi-seat-link") === "1";
          this.emit("notice", err.code === "rate_limited" ? err.message
            : ticket && seatLink ? t("This seat link was used already or has expired: this device only watches. Ask the board's staff for a new link.")
            : ticket ? t("This link was used already (it gives control once, for 10 minutes): this device only watches. The access code is in the terminal that started the simulator: enter it on the operator page.")
            : t("The saved access code was not accepted: this device only watches. Enter the code again on the operator page."));
        }
        this.hello = hello;
        await this.chooseLanguage(savedLanguage());
        await this.request("subscribe", { topics: [...this.topics, "language"] });
        this.emit("open", hello);
      } catch (err) {
        this.emit("notice", err.message);
      }
    };
    ws.onmessage = (msg) => {
      let data;
      try {
        data = JSON.parse(msg.data);
      } catch {
        return;
      }
      if (data.event) {
        this.emit(data.event, data);
        this.emit("*", data);
      } else if (this.pending.has(data.id)) {
        const { resolve, reject } = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (data.ok) resolve(data.result);
        else {
          const err = new Error(data.error.message);
          err.code = data.error.code;
          err.detail = data.error.message;
          err.message = plainError(err, !!(this.hello && this.hello.role === "seat"));
          reject(err);
        }
      }
    };
    ws.onclose = () => {
      for (const { reject } of this.pending.values()) reject(Object.assign(new Error("disconnected"), { code: "disconnected" }));
      this.pending.clear();
      this.emit("close");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  // This page's language: the visitor's choice if the board has it, else the board's own
  // (the page then follows the board's language button, S9+S10).
  async chooseLanguage(lang) {
    const offered = ((this.hello && this.hello.languages) || []).map((l) => l.code);
    const r = await this.request("lang", lang && offered.includes(lang) ? { lang } : {});
    this.lang = r.lang;
    // The levels' words come again in the new language (hello's were in the board's).
    if (this.hello && Array.isArray(r.levels)) this.hello.levels = r.levels;
    this.follows = !(lang && offered.includes(lang));
    if (r.lang !== I18N.lang) await loadLanguage(r.lang);
    return r.lang;
  }

  request(cmd, args) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(Object.assign(new Error("not connected"), { code: "disconnected" }));
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      const msg = { v: 1, id, cmd };
      if (args && Object.keys(args).length) msg.args = args;
      this.ws.send(JSON.stringify(msg));
    });
  }
}

function pitName(i) {
  return i < 10 ? `S${i + 1}` : `N${i - 9}`;
}

function toast(text, kind) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = text;
  box.className = `toast show ${kind || ""}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.className = "toast"), 3000);
}
