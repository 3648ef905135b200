// The operator page: new game, mode, level, pace, variants, palette, brightness, token.
"use strict";

const client = new KiothiClient(["new_game", "game_over", "settings", "position"]);
const $ = (id) => document.getElementById(id);
const VARIANTS = {
  V1: "two lifts", V2: "no opening", V3: "skip origin", V4: "any sowing sows",
  V5: "empty pits sown", V6: "last lap crosses", V7: "landing seed safe", V8: "unsown ends chain",
};
for (const [v, text] of Object.entries(VARIANTS)) {
  const label = document.createElement("label");
  label.innerHTML = `<input type="checkbox" value="${v}"> ${v} <small>${text}</small>`;
  $("variants").appendChild(label);
}

function fail(e) { toast(e.message, "err"); }
function act(cmd, args, done) {
  client.request(cmd, args).then((r) => { if (done) toast(done); return r; }).catch(fail);
}

function fillSettings(s) {
  $("mode").value = s.mode; $("sides").value = s.sides === "N" ? "N" : "S";
  $("level").value = s.level; $("level-v").textContent = s.level; $("pace").value = s.pace;
  $("palette").value = s.palette; $("brightness").value = Math.round(s.brightness * 100);
  $("bright-v").textContent = `${Math.round(s.brightness * 100)}%`;
  const variant = s.variant || {};
  document.querySelectorAll("#variants input").forEach((c) => (c.checked = !!variant[c.value]));
  $("ply").value = variant.ply_limit || "";
  modeRows();
}

async function refresh(fill) {
  try {
    const [{ settings }, { state }, { games }] = await Promise.all([
      client.request("settings.get"), client.request("state"), client.request("games.list", { limit: 10 }),
    ]);
    // The form is filled once per connection: refilling on every event would undo what
    // the operator is in the middle of choosing.
    if (fill === true) fillSettings(settings);
    const line = state.stage === "none" ? "No game." :
      `Game ${state.game_id}: ${state.settings.mode}, level ${state.settings.level}, ${state.settings.pace} pace — ` +
      (state.stage === "over" ? "over" : `${state.position.to_move === "S" ? "South" : "North"} to play, ply ${state.position.ply}`);
    $("game-line").textContent = line;
    $("games").innerHTML = "";
    for (const g of games) {
      const tr = document.createElement("tr");
      const r = g.result;
      const res = r ? `${r.winner ? (r.winner === "S" ? "South" : "North") + " won" : "draw"} ${r.captured[0]}–${r.captured[1]}` : "unfinished";
      tr.innerHTML = `<td>${g.id}</td><td>${res}</td><td>${r ? r.end : ""}</td>`;
      $("games").appendChild(tr);
    }
  } catch (e) { /* reconnecting */ }
}

client.on("open", (hello) => {
  $("conn").classList.add("up");
  $("role").textContent = hello.role; $("role").className = `badge ${hello.role}`;
  $("access-note").textContent = hello.role === "control"
    ? "This device may control the board." : "From this device you are a spectator. Enter the board's token to control it.";
  refresh(true);
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
$("level").oninput = () => ($("level-v").textContent = $("level").value);
$("brightness").oninput = () => ($("bright-v").textContent = `${$("brightness").value}%`);
$("save-token").onclick = () => { localStorage.setItem("kiothi-token", $("token").value); $("token").value = ""; client.ws.close(); };
$("forget-token").onclick = () => { localStorage.removeItem("kiothi-token"); client.ws.close(); };

function gameArgs() {
  const variant = {};
  document.querySelectorAll("#variants input:checked").forEach((c) => (variant[c.value] = true));
  if ($("ply").value) variant.ply_limit = Number($("ply").value);
  const mode = $("mode").value;
  return { mode, sides: mode === "two" ? "SN" : mode === "demo" ? "" : $("sides").value,
    level: Number($("level").value), pace: $("pace").value, variant };
}
$("start").onclick = async () => {
  const args = gameArgs();
  try {
    await client.request("settings.set", args);  // remembered as the next game's defaults
    const r = await client.request("new_game", args);
    toast(`Game ${r.game_id} started`);
  } catch (e) { fail(e); }
};
$("undo").onclick = () => act("undo", {}, "Undone");
$("hint").onclick = () => act("hint", {}, "Hint asked for");
$("check").onclick = () => act("check", {}, null);
$("end").onclick = () => { if (confirm("End the game by agreement?")) act("end", {}, "Game ended"); };
$("resign").onclick = () => { if (confirm("Resign for the side to move?")) act("resign", {}, "Resigned"); };
$("save-lights").onclick = () => act("settings.set", {
  palette: $("palette").value, brightness: Number($("brightness").value) / 100,
}, "Lights applied");
