// The board's live twin: both rows, every pit's count, every ring's LEDs as lit, the
// guide's instruction (the same line the board's terminal and the API say), the turn,
// captures, the move list and the AI thinking. In sim mode a click (or a key) on a pit is
// a press on the board; a long press (or Shift with the key) is a hold.
"use strict";

const client = new KiothiClient([
  "position", "guide", "move", "capture", "game_over", "input", "new_game",
  "wrong", "hint", "settings", "health", "frame", "error",
]);
const $ = (id) => document.getElementById(id);
const boardEl = $("board");
const pits = [];
const SIDE_EN = { S: "South", N: "North" };
const side = (s) => tp("side", SIDE_EN[s]);
// Keys by their place on the keyboard (KeyboardEvent.code), not the character they type:
// Shift with a pit's key is a hold on any layout.
const SOUTH_CODES = ["Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6", "Digit7", "Digit8", "Digit9", "Digit0"];
const NORTH_CODES = ["KeyQ", "KeyW", "KeyE", "KeyR", "KeyT", "KeyY", "KeyU", "KeyI", "KeyO", "KeyP"]; // N10 … N1
const HOLD_MS = 900;
// The start position (R2): what the rings ask for during an exhibition's reset.
const START = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6];
// Below this width the board turns a quarter (two columns of ten) so every pit stays a
// finger-sized target (at least 44 px) without scrolling sideways.
const narrow = window.matchMedia("(max-width: 539px)");

// The page's own words, together (one table to translate).
// The page's own words (the board's come translated in its events and state); each is
// looked up in the catalog of the page's language when it is shown (i18n.js).
const WORDS = {
  seeds: (n) => tn("{n} seed", "{n} seeds", n),
  get yours() { return t("yours"); },
  aiRow: (s) => t("{side}'s, the AI's", { side: side(s) }),
  row: (s) => t("{side}'s", { side: side(s) }),
  youRow: (s) => t("{side}'s row · you", { side: side(s) }),
  aiRowLabel: (s) => t("{side}'s row · AI", { side: side(s) }),
  rowLabel: (s) => t("{side}'s row", { side: side(s) }),
  get maySow() { return t("you may sow it"); },
  get mayLift() { return t("you may lift it"); },
  get mayPlace() { return t("you may place a seed here"); },
  get asked() { return t("lit: the guide asks you to press it"); },
  get pointed() { return t("lit: the guide points here"); },
  protectedPit: (s) => t("protected: never sown, so {side} cannot capture its seeds", { side: side(s === "S" ? "N" : "S") }),
  setTo: (n) => tn("set it to {n} seed", "set it to {n} seeds", n),
  // During the reset: what the pit holds, then what to set it to (not the target as its count).
  resetPit: (pit, held, n) => tn("{pit}, {held}: set it to {n} seed", "{pit}, {held}: set it to {n} seeds", n,
    { pit, held: tn("{n} seed", "{n} seeds", held) }),
  get noGame() { return t("No game"); },
  get undoSet() { return t("Undo: set the board back"); },
  get set() { return t("Set the board"); },
  get over() { return t("Game over"); },
  toMove: (s, opening, ai, web) => {
    const turn = opening ? t("{side} to open", { side: side(s) }) : t("{side} to move", { side: side(s) });
    if (web) return s === seatSide() ? t("{turn} · you", { turn }) : t("{turn} · web player", { turn });
    return ai ? t("{turn} · AI", { turn }) : turn;
  },
  webRow: (s) => t("{side}'s, the web player's", { side: side(s) }),
  webRowLabel: (s) => t("{side}'s row · web player", { side: side(s) }),
  get realBoard() { return t("This page shows a real board: press the pits on the board itself."); },
  get watching() { return t("You are watching: enter the board's access code on the operator page to play."); },
  get roleControl() { return t("you may play"); },
  get roleWatch() { return t("watching"); },
  get watchCue() { return t("You are watching this board: the pits, the line above and the moves follow the game as it is played."); },
  overWho: (winner) => (winner ? t("{side} wins", { side: side(winner) }) : t("A draw")),
  get abandoned() { return t("Abandoned: no winner"); },
  // The same words as the game-over line's last sentence: one wording of one thing.
  get againPlay() { return t("Hold any pit for a new game."); },
  // In exhibition mode a hold then confirms the reset, and the attract loop (or the night)
  // follows: the veil says so, as the line above it does.
  get againReset() { return t("Reset the board to the start, then hold any pit: it invites the next visitors."); },
  get againClosed() { return t("Reset the board to the start, then hold any pit: it rests until the next opening hours."); },
  get againWatch() { return t("The next game starts on the board."); },
  hint: (pit, why) => (why ? t("Hint: {pit} — {why}", { pit, why }) : t("Hint: {pit}", { pit })),
  get resetScore() { return t("The board is being set for the next game."); },
};
const TRACK = "2a1b0e"; // an unlit LED
const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
let leds = 16;
let state = null;
let bottom = "S"; // the row drawn nearest the viewer: the human's, South when both or none
let lastFrame = null;
let lastExpect = null;
let sayTimer = null;

function pitIndex(name) {
  const k = Number(name.slice(1));
  return name[0] === "S" ? k - 1 : k + 9;
}

// Every word on the page is set as text, never parsed as markup (30.10).
function span(cls, text) {
  const el = document.createElement("span");
  el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

function gridPlace(i) {
  // Seen from the bottom side's seat: its row below, its left pit (S1 / N1) at the left.
  // Narrow: the same board turned a quarter clockwise, that row on the left from the top.
  // `turn`: where LED 0 (the top of the ring as its owner sees it) points on screen.
  const south = i < 10;
  const k = south ? i + 1 : i - 9;
  const mine = (south ? "S" : "N") === bottom;
  if (narrow.matches) return mine ? { c: 1, r: k, turn: 90 } : { c: 2, r: 11 - k, turn: 270 };
  return mine ? { c: k, r: 2, turn: 0 } : { c: 11 - k, r: 1, turn: 180 };
}

function gridSize() {
  return narrow.matches ? { cols: 2, rows: 10 } : { cols: 10, rows: 2 };
}

function buildBoard() {
  boardEl.replaceChildren();
  pits.length = 0;
  for (let i = 0; i < 20; i++) {
    const el = document.createElement("button");
    el.type = "button";
    el.className = `pit ${i < 10 ? "s" : "n"}`;
    el.dataset.pit = pitName(i);
    // The name before the count in the text (the label starts with both: "S6, 6 seeds, …").
    el.append(span("ring"), span("name", pitName(i)), " ", span("count", "0"));
    el.addEventListener("click", (ev) => {
      if (el.dataset.held === "1") { el.dataset.held = ""; return; }
      press(i, false);
    });
    el.addEventListener("pointerdown", () => {
      clearTimeout(el.holdTimer);
      el.holdTimer = setTimeout(() => { el.dataset.held = "1"; press(i, true); }, HOLD_MS);
    });
    for (const t of ["pointerup", "pointerleave", "pointercancel"]) {
      el.addEventListener(t, () => clearTimeout(el.holdTimer));
    }
    boardEl.appendChild(el);
    pits.push({ el, ring: el.querySelector(".ring"), count: el.querySelector(".count"),
      shown: null, held: null });
  }
  layout();
}

function layout() {
  pits.forEach((p, i) => {
    const { c, r } = gridPlace(i);
    p.el.style.gridColumn = c;
    p.el.style.gridRow = r;
    p.el.tabIndex = -1;
  });
  boardEl.classList.toggle("turned", narrow.matches);
  // One pit is in the Tab order (roving focus); arrow keys move by the grid, as drawn.
  const focusable = pits.find((p) => p.el.classList.contains("expect")) || pits[bottom === "S" ? 0 : 10];
  focusable.el.tabIndex = 0;
  const top = bottom === "S" ? "N" : "S";
  for (const [id, side] of [["label-top", top], ["label-bottom", bottom]]) {
    const el = $(id);
    el.className = `row-label ${side === "S" ? "south" : "north"}`;
    el.dataset.side = side;
  }
  $("who-top").textContent = side(top);
  $("who-bottom").textContent = side(bottom);
  $("score-top").className = `score ${top === "S" ? "south" : "north"}`;
  $("score-bottom").className = `score ${bottom === "S" ? "south" : "north"}`;
  if (lastFrame) drawFrame(lastFrame);
}

function ringCss(hex, i) {
  // LED 0 at the top of the ring as its owner sees it, then clockwise; the top row's
  // owner sits across the board, so their top points down on screen.
  const n = hex.length / 6;
  const step = 360 / n;
  const gap = Math.min(1.6, step * 0.12);
  const parts = [];
  for (let k = 0; k < n; k++) {
    const c = hex.substr(k * 6, 6);
    const col = c === "000000" ? `#${TRACK}` : `#${c}`;
    const a = k * step;
    parts.push(`#120a04 ${a}deg ${a + gap}deg`, `${col} ${a + gap}deg ${a + step - gap}deg`, `#120a04 ${a + step - gap}deg ${a + step}deg`);
  }
  return `conic-gradient(from ${gridPlace(i).turn}deg, ${parts.join(", ")})`;
}

function scaled(held, now) {
  // Whether `now` is `held` dimmed (or dark): a blink or a breath of the same colour.
  if (now === "000000") return true;
  const h = [0, 2, 4].map((k) => parseInt(held.substr(k, 2), 16));
  const c = [0, 2, 4].map((k) => parseInt(now.substr(k, 2), 16));
  const peak = Math.max(...h);
  if (!peak || Math.max(...c) > peak) return false;
  const ratio = Math.max(...c) / peak;
  return h.every((v, k) => Math.abs(v * ratio - c[k]) <= 3);
}

function steady(p, hex, t) {
  // Reduced motion: an LED that only dims or goes dark keeps its lit colour (for up to
  // 2.5 s, longer than any blink or breath), so cues glow steadily instead of blinking.
  if (!reduced.matches) return hex;
  if (!p.held || p.held.hex.length !== hex.length) p.held = { hex, at: new Array(hex.length / 6).fill(t) };
  let out = "";
  let held = "";
  for (let k = 0; k < hex.length / 6; k++) {
    const now = hex.substr(k * 6, 6);
    const was = p.held.hex.substr(k * 6, 6);
    if (now === was) p.held.at[k] = t; // seen lit again: the hold goes on
    if (was !== "000000" && scaled(was, now) && t - p.held.at[k] < 2500) {
      out += was;
      held += was;
    } else {
      out += now;
      held += now;
      p.held.at[k] = t;
    }
  }
  p.held.hex = held;
  return out;
}

function drawFrame(frame) {
  const t = performance.now();
  frame.forEach((hex, i) => {
    const p = pits[i];
    const shown = steady(p, hex, t);
    const key = `${shown}|${gridPlace(i).turn}`;
    if (p.shown === key) return;
    p.shown = key;
    p.el.dataset.leds = shown;
    p.ring.style.background = ringCss(shown, i);
  });
}

function press(i, hold) {
  if (isSeat()) { seatPress(i, hold); return; } // a seat plays its side on a real board too
  if (!client.hello || !client.hello.sim) {
    say(WORDS.realBoard);
    return;
  }
  if (client.hello.role !== "control") {
    say(WORDS.watching);
    return;
  }
  const args = { pit: pitName(i) };
  if (hold) args.hold = true;
  client.request("press", args).catch((e) => say(e.message));
}

function say(text) {
  const el = $("say");
  el.textContent = text;
  clearTimeout(sayTimer);
  if (text) sayTimer = setTimeout(() => (el.textContent = ""), 6000);
}

function describe(action) {
  // `S6` is a sowing move; `S7>S1,S1,N3` an opening lift and where its seeds went; `pass`.
  if (action === "pass") return t("passes");
  if (!action.includes(">")) return t("sows {pit}", { pit: action });
  return action.split(";").map((lift) => {
    const [from, to] = lift.split(">");
    return t("lifts {pit}, places {pits}", { pit: from, pits: to.split(",").join(" ") });
  }).join(t("; then "));
}

function renderMoves(actions) {
  const key = `${I18N.lang}|${actions.join(" ")}`;
  if (renderMoves.last === key) return; // redraw only when the list changed
  renderMoves.last = key;
  const moves = $("moves");
  const items = actions.map((a, k) => {
    const s = k % 2 === 0 ? "S" : "N";
    const li = document.createElement("li");
    li.append(span("n", `${k + 1}.`), span(`who ${s.toLowerCase()}`, side(s)), span("what", describe(a)));
    return li;
  });
  moves.replaceChildren(...items);
  moves.scrollTop = moves.scrollHeight;
}

function humansOf(st) {
  if (isSeat()) return seatSide(); // the seat's own row nearest the viewer
  const humans = (st && st.settings && st.settings.humans) || ["S"];
  return humans.length === 1 ? humans[0] : "S";
}

function plays() {
  // Whether this page may press pits: the simulator, with control.
  return !!(client.hello && client.hello.sim && client.hello.role === "control");
}

function owner(st, side) {
  const humans = (st.settings && st.settings.humans) || [];
  if (isSeat() && side === seatSide()) return WORDS.yours;
  if (st.stage !== "none" && ((st.settings && st.settings.web) || []).includes(side)) return WORDS.webRow(side);
  if (plays() && humans.length === 1 && humans[0] === side) return WORDS.yours;
  if (st.stage !== "none" && !humans.includes(side)) return WORDS.aiRow(side);
  return WORDS.row(side);
}

function pitLabel(st, i, counts, resetting, toSet) {
  // "S6, 6 seeds, yours, you may sow it": what a screen reader says for the pit.
  const name = pitName(i);
  const n = counts[i];
  const parts = [name, WORDS.seeds(n)];
  if (resetting) {
    // "S6, 0 seeds: set it to 6 seeds"; a pit already right holds its target.
    const holds = exhibit && Array.isArray(exhibit.holds) ? exhibit.holds : null;
    if (!toSet.has(name)) return parts.join(", ");
    // Not known (a power cut mid-game): only what to set, never the target as its count.
    return holds ? WORDS.resetPit(name, holds[i], n) : [name, WORDS.setTo(n)].join(", ");
  }
  const on = st.stage !== "none" && st.position;
  if (!on) return parts.join(", ");
  const pos = st.position;
  parts.push(owner(st, name[0]));
  const pending = new Set((st.restore && st.restore.pending) || []);
  const humans = (st.settings && st.settings.humans) || [];
  if (pending.has(name)) parts.push(WORDS.setTo(n));
  else if (isSeat()) { const may = seatPitHint(st, name); if (may) parts.push(may); }
  else if (st.expect === name) parts.push(plays() ? WORDS.asked : WORDS.pointed);
  else if (plays() && st.stage === "open" && st.lifted && humans.includes(pos.to_move)) parts.push(WORDS.mayPlace);
  else if (plays() && !st.expect && ["turn", "open"].includes(st.stage) && name[0] === pos.to_move
    && humans.includes(pos.to_move) && (pos.legal || []).includes(name)) {
    parts.push(pos.phase === "opening" ? WORDS.mayLift : WORDS.maySow);
  }
  if (pos.phase === "play" && n > 0 && pos.sown && !pos.sown[i]) parts.push(WORDS.protectedPit(name[0]));
  return parts.join(", ");
}

function render(st) {
  state = st;
  const on = st.stage !== "none" && st.position;
  const side = humansOf(st);
  if (side !== bottom) { bottom = side; layout(); }
  const humans = (st.settings && st.settings.humans) || [];
  for (const id of ["label-top", "label-bottom"]) {
    const el = $(id);
    const s = el.dataset.side;
    const you = isSeat() ? s === seatSide() : plays() && humans.length === 1 && humans.includes(s);
    const web = ((st.settings && st.settings.web) || []).includes(s);
    el.textContent = you ? WORDS.youRow(s) : on && web ? WORDS.webRowLabel(s)
      : on && !humans.includes(s) ? WORDS.aiRowLabel(s) : WORDS.rowLabel(s);
  }
  // During an exhibition's reset the rings ask for the start position: so do the numbers
  // (also while an ended game still shows its result: stage `over` is not play); after it
  // (attract, waking, closed) the pits hold it (the exhibit status' `board`).
  const resetting = (!on || st.stage === "over") && !!exhibit && exhibit.enabled && exhibit.phase === "reset";
  const rested = !on && !!exhibit && exhibit.enabled && Array.isArray(exhibit.board);
  const target = exhibit && Array.isArray(exhibit.board) ? exhibit.board : START;
  // No game: the rings glow the start layout (an invitation to set up and hold a pit, also
  // after a game ended), and so do the numbers.
  const counts = resetting ? target : on ? (st.board || st.position.board)
    : rested ? exhibit.board : START;
  const pending = new Set(resetting && Array.isArray(exhibit.pending) ? exhibit.pending
    : (st.restore && st.restore.pending) || []);
  pits.forEach((p, i) => {
    const name = pitName(i);
    p.count.textContent = counts[i];
    p.el.classList.toggle("expect", !!on && !resetting && st.expect === name);
    p.el.classList.toggle("differs", pending.has(name) || (resetting && !Array.isArray(exhibit.pending) && counts[i] > 0));
    p.el.classList.toggle("clickable", !!(client.hello && (client.hello.sim || isSeat())));
    p.el.setAttribute("aria-label", pitLabel(st, i, counts, resetting, pending));
  });
  const turnEl = $("turn");
  if (!on) {
    turnEl.textContent = WORDS.noGame;
    turnEl.className = "turn";
  } else if (st.restore) {
    turnEl.textContent = st.restore.purpose === "undo" ? WORDS.undoSet : WORDS.set;
    turnEl.className = "turn";
  } else if (st.stage === "over") {
    turnEl.textContent = WORDS.over;
    turnEl.className = "turn ended";
  } else {
    const s = st.position.to_move;
    const web = ((st.settings && st.settings.web) || []).includes(s);
    turnEl.textContent = WORDS.toMove(s, st.position.phase === "opening", st.ai_to_move && !web, web);
    turnEl.className = `turn ${s === "S" ? "south" : "north"}`;
  }
  // The plain (read-only) page neither calls the watcher "you" nor asks them to press.
  // (An exhibition's invitation is the board's own, to whoever stands at it: kept.)
  const invite = exhibitLine(exhibit);
  const line = invite || st.instruction || "";
  const cue = isSeat() ? seatLine(st, line) : invite || plays() || !client.hello ? line : watcherLine(st, line);
  setCue(cue, turnEl.textContent,
    on && !st.restore && st.stage !== "over" ? turnLine(st) : null);
  // The cycled invitation is marked with its own language (a screen reader then reads
  // Swahili as Swahili); any other line is in the page's language.
  const cueLang = invitationLang(exhibit);
  if (cueLang) $("cue").setAttribute("lang", cueLang);
  else $("cue").removeAttribute("lang");
  const cap = on ? st.position.captured : [0, 0];
  $("cap-top").textContent = cap[bottom === "S" ? 1 : 0];
  $("cap-bottom").textContent = cap[bottom === "S" ? 0 : 1];
  renderMoves(st.actions || []);
  const over = $("over");
  const res = st.result;
  if (st.stage === "over" && res) {
    const who = res.end === "abandoned" ? WORDS.abandoned : WORDS.overWho(res.winner);
    // The winner's score first, as the game-over line says it (the layout puts North or
    // South on the left by the width); a draw or an abandoned game: South's first.
    const [a, b] = res.winner === "N" ? [1, 0] : [0, 1];
    // In exhibition mode the reset follows the result (a hold starts no game before it).
    const next = resetting || (!!exhibit && exhibit.enabled && exhibit.phase === "playing");
    over.replaceChildren(...[who, `${res.captured[a]} – ${res.captured[b]}`, againLine(next)].map((text, k) => {
      const el = document.createElement(k ? "span" : "b");
      el.textContent = text;
      return el;
    }));
    over.classList.remove("hidden");
  } else over.classList.add("hidden");
  rove(on && !resetting && st.expect ? pitIndex(st.expect) : null);
  if (on && st.expect && st.expect !== lastExpect && !$("howto").open) {
    // The pit the guide asks for is always on screen (a phone may have scrolled away),
    // and a keyboard player on the board is taken to it (Enter presses it).
    const el = pits[pitIndex(st.expect)].el;
    el.scrollIntoView({ block: "nearest", inline: "nearest" });
    if (pits.some((p) => p.el === document.activeElement)) focusPit(pitIndex(st.expect));
  }
  lastExpect = st.expect || null;
  seatRender(st);
}

function rove(expect) {
  // The one pit in the Tab order is the one the guide asks for, so the first Tab into the
  // board lands there; a keyboard player already on the board keeps their place.
  if (expect === null || pits.some((p) => p.el === document.activeElement)) return;
  pits.forEach((p, i) => (p.el.tabIndex = i === expect ? 0 : -1));
}

// The board's line when it says no more than whose turn it is ("North (AI) to move."), in
// the catalog's own words: the heading above says the same.
function turnLine(st) {
  const s = st.position.to_move;
  return t("{side} to move.", { side: st.ai_to_move ? t("{side} (AI)", { side: side(s) }) : side(s) });
}

function setCue(text, heading, same) {
  // The line often begins with the heading's own words ("South to move" above "South to
  // move: press …", "Game over" above "Game over by agreement: …"), or says only what the
  // heading says ("North (AI) to move."): the eye reads them once, the live region still
  // says the whole line.
  if (setCue.last === `${heading}\n${text}\n${same}`) return; // unchanged: nothing re-announced
  setCue.last = `${heading}\n${text}\n${same}`;
  const el = $("cue");
  if (text && text === same) { el.replaceChildren(span("sr-only", text)); return; }
  const sep = heading && text.startsWith(heading) ? text.slice(heading.length).match(/^(\s*[:.]\s*|\s+)/) : null;
  const cut = sep ? heading.length + sep[0].length : 0;
  if (!sep) { el.textContent = text; return; }
  if (cut >= text.length) { el.replaceChildren(span("sr-only", text)); return; }
  el.replaceChildren(span("sr-only", text.slice(0, cut)), span("rest", text.slice(cut)));
}

function againLine(resetting) {
  // What comes next, under the result: as the line above says it.
  if (resetting) {
    if (!plays()) return WORDS.resetScore;
    return exhibit.open === false ? WORDS.againClosed : WORDS.againReset;
  }
  return plays() ? WORDS.againPlay : WORDS.againWatch;
}

function watcherLine(st, line) {
  // A watcher's line: the game's state in the third person, never "press …". The board says
  // which lines speak to the player (`to_player`), so this holds in every language.
  const toPlayer = !st || st.to_player !== false;
  if (!st || st.stage === "none") return line && !toPlayer ? line : WORDS.watchCue;
  if (toPlayer) return `${$("turn").textContent}. ${WORDS.watchCue}`;
  return line;
}

// Exhibition mode: while no game is played the page says what the rings show (the
// countdown, the reset, the invitation). Polled: these change with time, not with events.
let exhibit = null;
const INVITE_MS = 5000; // each language's turn at inviting, in the attract loop

function invitationLang(ex) {
  // Nobody chose a language here: in the attract loop the invitation speaks each of the
  // venue's in turn; the language of the moment, or null.
  const ways = ex && ex.enabled && ex.invitations && Object.keys(ex.invitations);
  if (ex && ex.phase === "attract" && client.follows && ways && ways.length > 1) {
    return ways[Math.floor(Date.now() / INVITE_MS) % ways.length];
  }
  return null;
}

function exhibitLine(ex) {
  // The board's own line for the phase (the reset, the invitation, the countdown with its
  // seconds, the night), in this session's language: the words live in the catalogs once.
  if (!ex || !ex.enabled) return null;
  const lang = invitationLang(ex);
  return lang ? ex.invitations[lang] : ex.instruction || null;
}

async function pollExhibit() {
  if (pollExhibit.running) return;
  pollExhibit.running = true;
  for (;;) {
    try {
      exhibit = (await client.request("exhibit")).exhibit;
    } catch (e) {
      if (e && e.code === "unknown_command") { exhibit = null; break; } // no exhibition here
    }
    if (state) render(state);
    await new Promise((r) => setTimeout(r, 1000));
  }
  pollExhibit.running = false;
}

async function refresh() {
  refresh.timer = null;
  try {
    const r = await client.request("state");
    render(r.state);
  } catch (e) {
    /* reconnecting */
  }
}

function scheduleRefresh() {
  // Events arrive in bursts (a move is several); one state read per burst is enough.
  if (!refresh.timer) refresh.timer = setTimeout(refresh, 30);
}

client.on("open", async (hello) => {
  $("conn").classList.add("up");
  $("conn").setAttribute("aria-label", t("connected"));
  $("sim").classList.toggle("hidden", !hello.sim);
  const role = $("role");
  role.textContent = roleWord(hello);
  role.className = `badge ${hello.role}`;
  $("link-operator").classList.toggle("hidden", hello.role === "seat"); // nothing there for a seat
  fillButtons();
  leds = hello.board.leds_per_ring;
  try {
    const f = await client.request("frame");
    leds = f.leds_per_ring;
    lastFrame = f.frame;
    drawFrame(f.frame);
  } catch (e) { /* the next frame event will do */ }
  relabel();
  pollExhibit();
});
client.on("close", () => { $("conn").classList.remove("up"); $("conn").setAttribute("aria-label", t("disconnected")); });
client.on("frame", (e) => { leds = e.leds_per_ring; lastFrame = e.frame; drawFrame(e.frame); });
for (const t of ["position", "guide", "new_game", "game_over", "move", "settings", "hint"]) client.on(t, scheduleRefresh);
// The hint and its reason, in words, until the next press (the ring shows it as long).
client.on("hint", (e) => {
  say("");
  const el = $("hint-line");
  el.textContent = WORDS.hint(e.pit, e.why);
  el.classList.remove("hidden");
});
client.on("input", () => $("hint-line").classList.add("hidden"));
client.on("new_game", () => $("hint-line").classList.add("hidden"));
client.on("wrong", (e) => {
  say(e.message || (e.expect ? t("{pit}: not now — the guide asks for {want}.", { pit: e.pit, want: e.expect }) : t("{pit}: not now.", { pit: e.pit })));
  const i = pits.findIndex((p) => p.el.dataset.pit === e.pit);
  if (i < 0) return;
  pits[i].el.classList.remove("shake");
  void pits[i].el.offsetWidth;
  pits[i].el.classList.add("shake");
});
client.on("error", (e) => say(e.message));
client.on("input", (e) => {
  if (e.kind === "pressed") say("");
  const p = pits.find((q) => q.el.dataset.pit === e.pit);
  if (!p) return;
  p.el.classList.remove("pulse");
  void p.el.offsetWidth;
  p.el.classList.add("pulse");
});
client.on("capture", (e) => {
  const each = (c) => t("{n} from {pit}", { n: c.seeds, pit: c.pit });
  toast(t("Captured {list}", { list: e.captures.map(each).join(", ") }));
  placeToast();
});

function placeToast() {
  // At the top of the window unless a pit is under it there, then at the bottom (a board
  // that fills the whole window: the top). Offsets ignore the slide-in transform.
  const box = $("toast");
  const covers = () => {
    const top = box.offsetTop;
    const bottom = top + box.offsetHeight;
    const left = box.offsetLeft;
    const right = left + box.offsetWidth;
    return pits.some((p) => {
      const r = p.el.getBoundingClientRect();
      return r.left < right && left < r.right && r.top < bottom && top < r.bottom;
    });
  };
  box.classList.remove("low");
  if (!covers()) return;
  box.classList.add("low");
  if (covers()) box.classList.remove("low");
}
client.on("notice", (t) => say(t));

function command(cmd, args) {
  say(""); // an old wrong-press line is no longer true
  return client.request(cmd, args).catch((e) => say(e.message));
}

// The buttons (and their keys) are the board's command table's (`help`: each command's
// `button` with its words' message ids, and whether this session may run it): a command
// with a button for the twin appears here with no change to this script. A session shows
// the buttons it may use; a key it may not is answered by the board, in words.
let buttons = [];
let asking = null; // the command whose question is open
async function fillButtons() {
  let commands = [];
  try { commands = (await client.request("help")).commands; } catch (e) { return; }
  buttons = commands.filter((c) => c.button && c.button.pages.includes("twin"))
    .sort((a, b) => a.button.rank - b.button.rank);
  const box = $("actions");
  // A seat has its own panel (seat.js: offers and resigning, worded for a player far away).
  const shown = isSeat() ? [] : buttons.filter((c) => c.allowed);
  box.replaceChildren(...shown.map((c) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.cmd = c.name;
    b.onclick = () => runButton(c.name);
    return b;
  }));
  box.classList.toggle("hidden", !box.children.length);
  labelButtons();
}

function labelButtons() {
  for (const b of $("actions").children) {
    const c = buttons.find((x) => x.name === b.dataset.cmd);
    if (!c) continue;
    b.textContent = t(c.button.label);
    if (c.button.key) b.title = t("key {key}", { key: c.button.key });
  }
  if (asking) {
    $("confirm-text").textContent = t(asking.button.confirm);
    $("confirm-yes").textContent = t(asking.button.yes);
  }
}

function runButton(name) {
  const c = buttons.find((x) => x.name === name);
  if (!c) return;
  // A question only while a game is on (with none, nothing is lost).
  if (!c.button.confirm || !state || state.stage === "none" || state.stage === "over") {
    command(c.name, c.button.args || {});
    return;
  }
  asking = c;
  labelButtons();
  $("confirm").classList.remove("hidden");
  $("confirm-yes").focus();
}

$("confirm-yes").onclick = () => {
  $("confirm").classList.add("hidden");
  const c = asking;
  asking = null;
  if (c) command(c.name, c.button.args || {});
};
$("confirm-no").onclick = () => { $("confirm").classList.add("hidden"); asking = null; };

// ------------------------------------------------------------------ keyboard play
function moveFocus(from, dx, dy) {
  const { c, r } = gridPlace(from);
  const { cols, rows } = gridSize();
  const nc = Math.min(cols, Math.max(1, c + dx));
  const nr = Math.min(rows, Math.max(1, r + dy));
  const to = pits.findIndex((_, i) => { const g = gridPlace(i); return g.c === nc && g.r === nr; });
  if (to >= 0) focusPit(to);
}

function focusPit(i) {
  pits.forEach((p) => (p.el.tabIndex = -1));
  pits[i].el.tabIndex = 0;
  pits[i].el.focus();
}

document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = (ev.target && ev.target.tagName) || "";
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag) || $("howto").open) return;
  const focused = pits.findIndex((p) => p.el === document.activeElement);
  const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (focused >= 0 && arrows[ev.key]) {
    moveFocus(focused, ...arrows[ev.key]);
    ev.preventDefault();
    return;
  }
  if (focused >= 0 && (ev.key === "Enter" || ev.key === " ")) {
    press(focused, ev.shiftKey); // Shift+Enter holds the focused pit
    ev.preventDefault();
    return;
  }
  const key = ev.key;
  let pit = SOUTH_CODES.indexOf(ev.code);
  if (pit < 0 && NORTH_CODES.includes(ev.code)) pit = 19 - NORTH_CODES.indexOf(ev.code);
  if (pit >= 0 && key !== "?") {
    press(pit, ev.shiftKey);
    ev.preventDefault();
    return;
  }
  if (key === "?") { openHowto(); ev.preventDefault(); return; }
  const keyed = buttons.find((c) => c.button.key === key);
  if (keyed) { runButton(keyed.name); ev.preventDefault(); }
});

// ------------------------------------------------------------------ how to play
async function openHowto() {
  const dialog = $("howto");
  if (!dialog.dataset.loaded) {
    try {
      $("howto-body").textContent = t("Loading…");
      const r = await fetch("/static/howto.html");
      $("howto-body").innerHTML = await r.text(); // the board's own static file, not a value
      applyI18n($("howto-body"));
      dialog.dataset.loaded = "1";
    } catch (e) {
      $("howto-body").textContent = t("The rules could not be loaded; try again.");
    }
  }
  dialog.showModal();
  $("howto-close").focus();
}
$("btn-howto").onclick = openHowto;
$("howto-close").onclick = () => $("howto").close();

// ------------------------------------------------------------------ language
// The button cycles the languages the venue enabled; the choice is this device's (kept),
// and a visitor who never chose follows the board's own language (S9+S10 held).
$("btn-lang").onclick = async () => {
  const langs = ((client.hello && client.hello.languages) || []).map((l) => l.code);
  if (langs.length < 2) return;
  const next = langs[(langs.indexOf(I18N.lang) + 1) % langs.length];
  rememberLanguage(next);
  await client.chooseLanguage(next);
  relabel();
};

function roleWord(hello) {
  if (hello.role === "seat") return SEAT_WORDS.you(hello.seat);
  return hello.role === "control" ? WORDS.roleControl : WORDS.roleWatch;
}

function relabel() {
  const langs = (client.hello && client.hello.languages) || [];
  const btn = $("btn-lang");
  btn.textContent = I18N.name;
  btn.classList.toggle("hidden", langs.length < 2);
  if (client.hello) $("role").textContent = roleWord(client.hello);
  $("conn").setAttribute("aria-label", $("conn").classList.contains("up") ? t("connected") : t("disconnected"));
  renderMoves.last = null;
  labelButtons();
  layout();
  if (state) render(state);
  refresh();
}
client.on("relabel", relabel);
onLanguage(() => { if (client.hello) relabel(); });

buildBoard();
seatSetup();
narrow.addEventListener("change", layout);
window.kiothiTwin = {
  get state() { return state; },
  get lastFrame() { return lastFrame; },
  shown() { return pits.map((p) => p.el.dataset.leds || "000000".repeat(leds)); },
  client,
};
