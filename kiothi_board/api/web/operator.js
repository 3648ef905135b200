// The operator page: new game, mode, level, pace, variants, palette, brightness, token.
"use strict";

const client = new KiothiClient(["new_game", "game_over", "settings", "position"]);
const $ = (id) => document.getElementById(id);
const VARIANTS = {
  V1: N_("Each player may lift up to two pits in the opening"),
  V2: N_("No opening: start sowing at once"),
  V3: N_("A long sowing skips the pit it started from"),
  V4: N_("Sowing from any pit protects it, whoever sows"),
  V5: N_("Only pits that hold seeds at the start are protected"),
  V6: N_("To capture, the last lap must have crossed rows"),
  V7: N_("The landing seed is safe in a never-sown pit"),
  V8: N_("A never-sown pit stops a corner capture run"),
};
for (const v of Object.keys(VARIANTS)) {
  const label = document.createElement("label");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.value = v;
  const small = document.createElement("small");
  small.textContent = `(${v})`;
  label.append(box, " ", document.createElement("span"), " ", small);
  $("variants").appendChild(label);
}
function labelVariants() {
  document.querySelectorAll("#variants label").forEach((label) => {
    label.querySelector("span").textContent = t(VARIANTS[label.querySelector("input").value]);
  });
}
labelVariants();

// The page's own sentences, together (one table to translate).
const WORDS = {
  get control() { return t("This device may play and change the settings."); },
  get watch() { return t("From this device you can watch. To play or change settings, enter the board's access code."); },
  get watchSim() { return t("This is the simulator. To play or change settings from this page, enter the access code the simulator printed in its terminal (\u201cits access code for this run is \u2026\u201d)."); },
  get codeHint() { return t("The access code is the board's token (api.token) or its staff PIN (api.staff_pin, digits), both kept in /etc/kiothi-board/config.toml on the board: the install guide, step 6, says how to set them. A PIN opens a session on this device."); },
  get codeHintSim() { return t("The simulator makes a new access code each time it starts (unless api.staff_pin is set in its config); the link it prints with #ticket= gives control too."); },
  get pinWrong() { return t("That access code is not right: check it and try again."); },
  get pinNone() { return t("This board takes no PIN: enter its token, or set api.staff_pin in its config."); },
  get pinBusy() { return t("Too many wrong codes in a short time: wait a minute, then try again."); },
  get pinOk() { return t("Access code accepted: this device may play and change the settings."); },
  get unreachable() { return t("The board could not be reached; check the connection and try again."); },
  get roles() { return { control: t("you may play"), spectator: t("watching") }; },
  get modes() { return { ai: t("against the AI"), two: t("two players"), demo: t("AI against AI (demo)") }; },
  get paces() { return { step: t("step pace"), flow: t("flow pace"), instant: t("instant pace") }; },
  get noGame() { return t("No game."); },
  get over() { return t("over"); },
  toPlay: (side, turn) => t("{side} to play, turn {turn}", { side: tp("side", side === "S" ? "South" : "North"), turn }),
  strength: (name) => t("AI strength {name}", { name }),
  game: (id, what, state) => t("Game {id}: {what} — {state}", { id, what, state }),
  get exhibitLevel() { return t("Exhibition mode is on: visitors at the board play at the visitor level, chosen here by default."); },
  exhibitLights: (pct) => t("Exhibition mode is on: the opening hours' schedule sets the brightness, now {pct}% (exhibit.brightness in the config).", { pct }),
};

function fail(e) { toast(e.message, "err"); }
let lastState = null; // the game's state as last read (a button's question is for a game on)
function act(cmd, args, done) {
  client.request(cmd, args).then((r) => { if (done) toast(done); return r; }).catch(fail);
}

// The levels come from the board (hello.levels): a number and a name, and what a player
// meets at that level in one or two sentences.
let levels = [];
function fillLevels(list) {
  levels = Array.isArray(list) ? list : [];
  const sel = $("level"), keep = sel.value;
  sel.replaceChildren();
  for (const l of levels) {
    const o = document.createElement("option");
    o.value = String(l.level);
    o.textContent = l.level === "adaptive" ? t("{name} (keeps it close)", { name: l.name }) : `${l.level} · ${l.name}`;
    sel.appendChild(o);
  }
  sel.value = keep;
  levelAbout();
}
function levelName(v) {
  const l = levels.find((x) => String(x.level) === String(v));
  return l ? (l.level === "adaptive" ? l.name : `${l.level} (${l.name})`) : String(v);
}
function levelAbout() {
  const l = levels.find((x) => String(x.level) === $("level").value);
  $("level-about").textContent = l ? l.about : "";
}

function fillSettings(s) {
  $("mode").value = s.mode; $("sides").value = s.sides === "N" ? "N" : "S";
  $("level").value = String(s.level); levelAbout(); $("pace").value = s.pace;
  $("palette").value = s.palette; $("brightness").value = Math.round(s.brightness * 100);
  $("bright-v").textContent = `${Math.round(s.brightness * 100)}%`;
  const variant = s.variant || {};
  document.querySelectorAll("#variants input").forEach((c) => (c.checked = !!variant[c.value]));
  $("ply").value = variant.ply_limit || "";
  modeRows();
}

// What staff must know about the store (quarantined games, a salvaged file, a full disk):
// `health` names it, and the board plays on meanwhile.
async function storeProblems() {
  try {
    const health = await client.request("health");
    const store = health.store || {};
    const problems = Array.isArray(store.problems) ? store.problems : [];
    $("store-panel").hidden = store.status !== "degraded";
    $("store-problems").replaceChildren(...problems.map((p) => {
      const li = document.createElement("li"); li.textContent = p; return li;
    }));
  } catch (e) { /* reconnecting */ }
}

async function refresh(fill) {
  try {
    const [{ settings }, { state }, { games }] = await Promise.all([
      client.request("settings.get"), client.request("state"), client.request("games.list", { limit: 10 }),
    ]);
    // The form is filled once per connection: refilling on every event would undo what
    // the operator is in the middle of choosing.
    if (fill === true) fillSettings(settings);
    lastState = state;
    $("game-line").textContent = gameLine(state);
    // Stored fields are text, never markup (a damaged or hostile record shows as it is).
    $("games").replaceChildren(...games.map((g) => {
      const tr = document.createElement("tr");
      for (const text of gameCells(g, state.game_id)) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      return tr;
    }));
  } catch (e) { /* reconnecting */ }
  storeProblems();  // after the form is filled: its requests must not delay that
}

// How a game ended (R13 and the rules' own ends), in words.
const ENDS = {
  "no-moves": N_("no moves left"), repetition: N_("position repeated"),
  "ply-limit": N_("turn limit reached"), agreement: N_("by agreement"), abandoned: N_("abandoned"),
  resign: N_("resigned"),
};
function endWords(r) {
  if (r.end === "resign" && (r.by === "S" || r.by === "N")) return t("{side} resigned", { side: tp("side", r.by === "S" ? "South" : "North") });
  return ENDS[r.end] ? t(ENDS[r.end]) : String(r.end ?? "");
}
// A row of the recent games: its number, the result, how it ended.
function gameCells(g, current) {
  const r = g.result;
  if (!r) return [String(g.id), g.id === current ? t("in progress") : t("unfinished"), ""];
  const captured = Array.isArray(r.captured) ? r.captured : [];
  const score = `${captured[0]}–${captured[1]}`;
  const won = r.winner === "S" || r.winner === "N"
    ? t("{side} won {score}", { side: tp("side", r.winner === "S" ? "South" : "North"), score }) : t("draw {score}", { score });
  return [String(g.id), r.end === "abandoned" ? t("no winner") : won, endWords(r)];
}

function gameLine(state) {
  // "Game 4: against the AI, AI strength 2 (Casual), step pace — South to play, turn 3".
  if (state.stage === "none") return WORDS.noGame;
  const s = state.settings;
  const what = [WORDS.modes[s.mode] || s.mode];
  if (s.mode !== "two") what.push(WORDS.strength(levelName(s.level)));
  what.push(WORDS.paces[s.pace] || s.pace);
  const now = state.stage === "over" ? WORDS.over : WORDS.toPlay(state.position.to_move, state.position.ply + 1);
  return WORDS.game(state.game_id, what.join(", "), now);
}

// Exhibition mode: visitors get the visitor level, and the schedule sets the brightness,
// so the form offers that level and shows the one brightness in force.
async function applyExhibit(fill) {
  let ex = null;
  try { ex = (await client.request("exhibit")).exhibit; } catch (e) { ex = null; }
  const on = !!(ex && ex.enabled);
  $("exhibit-level").hidden = !on;
  $("exhibit-lights").hidden = !on;
  $("brightness").disabled = on;
  if (!on) return;
  $("exhibit-level").textContent = WORDS.exhibitLevel;
  if (fill && levels.some((l) => l.level === "adaptive")) { $("level").value = "adaptive"; levelAbout(); }
  const pct = Math.round(ex.brightness * 100);
  $("brightness").value = pct;
  $("bright-v").textContent = `${pct}%`;
  $("exhibit-lights").textContent = WORDS.exhibitLights(pct);
}

// The game's buttons are the board's command table's (`help`: each command's `button`, in
// its words' message ids, and whether this session may run it): a command with a button
// for this page appears here with no change to this script. Who may run it is the board's
// to say: a refused press is answered in words (how to get control).
let buttons = [];
async function fillButtons() {
  let commands = [];
  try { commands = (await client.request("help")).commands; } catch (e) { return; }
  buttons = commands.filter((c) => c.button && c.button.pages.includes("operator"))
    .sort((a, b) => a.button.rank - b.button.rank);
  $("game-buttons").replaceChildren(...buttons.map((c) => {
    const b = document.createElement("button");
    b.dataset.cmd = c.name;
    b.dataset.allowed = String(c.allowed);
    if (c.button.danger) b.className = "danger";
    b.onclick = () => pressButton(c.name);
    return b;
  }));
  labelButtons();
}
function labelButtons() {
  for (const b of $("game-buttons").children) {
    const c = buttons.find((x) => x.name === b.dataset.cmd);
    if (c) b.textContent = t(c.button.label);
  }
}
function pressButton(name) {
  const c = buttons.find((x) => x.name === name);
  if (!c) return;
  const k = c.button;
  // Asked unless the page knows no game is on (then the board's answer says so).
  const idle = lastState && (lastState.stage === "none" || lastState.stage === "over");
  if (k.confirm && !idle && !confirm(t(k.confirm))) return;
  act(c.name, k.args || {}, k.done ? t(k.done) : null);
}

// The lines this script writes, in the page's language of the moment.
function labelAccess(hello) {
  $("role").textContent = WORDS.roles[hello.role] || hello.role; $("role").className = `badge ${hello.role}`;
  $("access-note").textContent = hello.role === "control" ? WORDS.control : hello.sim ? WORDS.watchSim : WORDS.watch;
  $("access-hint").textContent = hello.sim ? WORDS.codeHintSim : WORDS.codeHint;
  fillLevels(hello.levels);
}
client.on("open", (hello) => {
  $("conn").classList.add("up");
  labelAccess(hello);
  fillButtons();
  refresh(true).then(() => applyExhibit(true));
});
// The board's language changed mid-visit (S9+S10, a page that never chose): every line the
// script wrote is written again; the form keeps what the operator is choosing.
onLanguage(() => {
  labelVariants();
  labelButtons();
  if (!client.hello) return;
  labelAccess(client.hello);
  refresh(false).then(() => applyExhibit(false));
});
client.on("close", () => $("conn").classList.remove("up"));
client.on("notice", (t) => toast(t, "warn"));
for (const t of ["new_game", "game_over", "settings"]) client.on(t, () => refresh(false));

function modeRows() {
  // Only a game against the AI has a human side to choose; two humans need no AI level.
  $("sides-row").classList.toggle("hidden", $("mode").value !== "ai");
  $("level-row").classList.toggle("hidden", $("mode").value === "two");
}
$("mode").onchange = modeRows;
$("level").onchange = levelAbout;
$("brightness").oninput = () => ($("bright-v").textContent = `${$("brightness").value}%`);
// The access code is the board's token, or (digits only) the staff PIN, which the board
// exchanges for a session cookie: the PIN itself is never stored in the browser.
async function useCode(code) {
  if (!/^[0-9]{8,12}$/.test(code)) {
    localStorage.setItem("kiothi-token", code);
    client.ws.close();
    return;
  }
  try {
    const r = await fetch("/session", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin: code }), credentials: "same-origin",
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      const code = body.error && body.error.code;
      const none = body.error && /accepts no/.test(body.error.message || "");
      toast(code === "rate_limited" ? WORDS.pinBusy : none ? WORDS.pinNone : WORDS.pinWrong, "warn");
      return;
    }
    toast(WORDS.pinOk);
    client.ws.close();
  } catch (e) {
    toast(WORDS.unreachable, "warn");
  }
}
$("save-token").onclick = () => { const code = $("token").value; $("token").value = ""; useCode(code); };
$("forget-token").onclick = () => { localStorage.removeItem("kiothi-token"); client.ws.close(); };

function gameArgs() {
  const variant = {};
  document.querySelectorAll("#variants input:checked").forEach((c) => (variant[c.value] = true));
  if ($("ply").value) variant.ply_limit = Number($("ply").value);
  const mode = $("mode").value;
  return { mode, sides: mode === "two" ? "SN" : mode === "demo" ? "" : $("sides").value,
    level: $("level").value === "adaptive" ? "adaptive" : Number($("level").value), pace: $("pace").value, variant };
}
$("start").onclick = async () => {
  const args = gameArgs();
  try {
    await client.request("settings.set", args);  // remembered as the next game's defaults
    const r = await client.request("new_game", args);
    toast(t("Game {id} started", { id: r.game_id }));
  } catch (e) { fail(e); }
};
// A seat on the web: a one-time link for one side (`seat_link`), then a game whose other
// side that seat plays (`new_game` with `web`); the board guides its player through the
// web player's moves.
$("seat-link").onclick = async () => {
  try {
    const r = await client.request("seat_link", { side: $("seat-side").value });
    $("seat-url").value = `${location.origin}/${r.link}`;
    $("seat-url").select();
    toast(t("Seat link made: send it to the web player"));
  } catch (e) { fail(e); }
};
$("seat-start").onclick = async () => {
  const { pace, variant } = gameArgs();
  try {
    const r = await client.request("new_game", { mode: "two", web: $("seat-side").value, pace, variant });
    toast(t("Game {id} started", { id: r.game_id }));
  } catch (e) { fail(e); }
};
$("save-lights").onclick = () => act("settings.set", $("brightness").disabled
  ? { palette: $("palette").value }  // the exhibition's schedule keeps the brightness
  : { palette: $("palette").value, brightness: Number($("brightness").value) / 100 }, t("Lights applied"));
