// The board's live twin: both rows, every pit's count, every ring's LEDs as lit, the
// guide cue, the turn, captures, the move list and the AI thinking. In sim mode a click
// on a pit is a press on the board.
"use strict";

const client = new KiothiClient([
  "position", "guide", "move", "capture", "game_over", "input", "new_game",
  "wrong", "hint", "settings", "health", "frame",
]);
const boardEl = document.getElementById("board");
const pits = [];
let leds = 0;
let state = null;
let portrait = false;
let refreshTimer = null;

function gridPlace(i) {
  const south = i < 10;
  const k = south ? i + 1 : i - 9;
  if (portrait) return south ? { c: 1, r: k } : { c: 2, r: 11 - k };
  return south ? { c: k, r: 2 } : { c: 11 - k, r: 1 };
}

function buildBoard() {
  boardEl.innerHTML = "";
  pits.length = 0;
  for (let i = 0; i < 20; i++) {
    const el = document.createElement("button");
    el.className = `pit ${i < 10 ? "s" : "n"}`;
    el.dataset.pit = pitName(i);
    el.setAttribute("aria-label", pitName(i));
    el.innerHTML = `<span class="ring"></span><span class="count">0</span><span class="name">${pitName(i)}</span>`;
    el.addEventListener("click", () => pressPit(i));
    boardEl.appendChild(el);
    pits.push({ el, ring: el.querySelector(".ring"), count: el.querySelector(".count"), dots: [] });
  }
  layout();
}

function layout() {
  portrait = window.matchMedia("(max-width: 640px) and (orientation: portrait)").matches;
  boardEl.classList.toggle("portrait", portrait);
  pits.forEach((p, i) => {
    const { c, r } = gridPlace(i);
    p.el.style.gridColumn = c;
    p.el.style.gridRow = r;
    placeLeds(i);
  });
}

function placeLeds(i) {
  // LED 0 is at the ring's top as its owner sees it, then clockwise: North's owner sits
  // across the board, so their top points down on screen.
  const base = (i < 10 ? 0 : 180) + (portrait ? 90 : 0);
  pits[i].dots.forEach((d, k) => {
    d.style.transform = `rotate(${base + (360 * k) / leds}deg)`;
  });
}

function ensureLeds(n) {
  if (n === leds) return;
  leds = n;
  pits.forEach((p, i) => {
    p.ring.innerHTML = "";
    p.dots = [];
    for (let k = 0; k < n; k++) {
      const spoke = document.createElement("span");
      spoke.className = "led";
      spoke.innerHTML = "<i></i>";
      p.ring.appendChild(spoke);
      p.dots.push(spoke);
    }
    placeLeds(i);
  });
}

function drawFrame(frame) {
  frame.forEach((hex, i) => {
    const p = pits[i];
    for (let k = 0; k < p.dots.length; k++) {
      const c = hex.substr(k * 6, 6);
      const dot = p.dots[k].firstChild;
      if (dot.dataset.c === c) continue;
      dot.dataset.c = c;
      if (c === "000000") {
        dot.style.background = "";
        dot.style.boxShadow = "";
        dot.classList.remove("on");
      } else {
        dot.style.background = `#${c}`;
        dot.style.boxShadow = `0 0 6px 1px #${c}`;
        dot.classList.add("on");
      }
    }
  });
}

function pressPit(i) {
  if (!client.hello || !client.hello.sim) return;
  if (client.hello.role !== "control") {
    toast("Spectating: add the board's token on the operator page to play.", "warn");
    return;
  }
  client.request("press", { pit: pitName(i) }).catch((e) => toast(e.message, "err"));
}

const SIDE = { S: "South", N: "North" };

function cueText(st) {
  if (!st || st.stage === "none") return "Start a game from the operator page.";
  if (st.check) return "Board check: press pits whose count is wrong, then leave the check.";
  const g = st.guide;
  const mover = SIDE[st.position.to_move];
  if (g && g.kind !== "done") {
    switch (g.kind) {
      case "lift": return `Lift all the seeds from ${g.pit}`;
      case "relay": return `Relay: the lap ended on a full pit — lift ${g.pit} again`;
      case "drop": return `Drop one seed in ${g.pit} (${g.hand} in hand)`;
      case "capture": return `Capture: take the seeds from ${g.pit}`;
      case "set": return `Set ${g.pit} to the count its ring shows`;
    }
  }
  if (st.stage === "open") {
    if (st.ai_to_move) return `${mover} (AI) is choosing an opening`;
    if (st.lifted) return `Place the seeds from ${st.lifted} one by one on any pits`;
    return `${mover}: opening — lift one of your pits to redistribute, or hold a pit to pass`;
  }
  if (st.stage === "turn") {
    if (st.ai_to_move) return `${mover} (AI) to move`;
    return `${mover}: press a pit to sow (${st.position.legal.join(" ")})`;
  }
  if (st.stage === "over") return "Game over";
  return "";
}

function render(st) {
  state = st;
  const on = st.stage !== "none" && st.position;
  const counts = on ? (st.board || st.position.board) : new Array(20).fill(0);
  pits.forEach((p, i) => {
    p.count.textContent = counts[i];
    p.el.classList.toggle("expect", !!on && st.expect === pitName(i));
    p.el.classList.toggle("clickable", !!(client.hello && client.hello.sim));
  });
  const turnEl = document.getElementById("turn");
  if (!on) {
    turnEl.textContent = "No game";
    turnEl.className = "turn";
  } else if (st.stage === "over") {
    turnEl.textContent = "Game over";
    turnEl.className = "turn over";
  } else {
    const side = st.position.to_move;
    turnEl.textContent = `${SIDE[side]} to ${st.stage === "open" ? "open" : "move"}${st.ai_to_move ? " · AI" : ""}`;
    turnEl.className = `turn ${side === "S" ? "south" : "north"}`;
  }
  document.getElementById("cue").textContent = cueText(st);
  document.getElementById("thinking").classList.toggle("hidden", !st.thinking);
  const cap = on ? st.position.captured : [0, 0];
  document.getElementById("cap-s").textContent = cap[0];
  document.getElementById("cap-n").textContent = cap[1];
  const moves = document.getElementById("moves");
  moves.innerHTML = "";
  (st.actions || []).forEach((a, k) => {
    const li = document.createElement("li");
    li.textContent = a;
    li.className = k % 2 === 0 ? "s" : "n";
    moves.appendChild(li);
  });
  moves.scrollTop = moves.scrollHeight;
  const over = document.getElementById("over");
  const res = st.result;
  if (st.stage === "over" && res) {
    const who = res.winner ? `${SIDE[res.winner]} wins` : "A draw";
    over.innerHTML = `<b>${who}</b><span>${res.captured[0]} – ${res.captured[1]} · ${st.ended || res.end}</span>`;
    over.classList.remove("hidden");
  } else over.classList.add("hidden");
}

async function refresh() {
  refreshTimer = null;
  try {
    const r = await client.request("state");
    render(r.state);
  } catch (e) {
    /* reconnecting */
  }
}

function scheduleRefresh() {
  // Events arrive in bursts (a move is several); one state read per burst is enough.
  if (!refreshTimer) refreshTimer = setTimeout(refresh, 30);
}

client.on("open", async (hello) => {
  document.getElementById("conn").classList.add("up");
  document.getElementById("sim").classList.toggle("hidden", !hello.sim);
  const role = document.getElementById("role");
  role.textContent = hello.role;
  role.className = `badge ${hello.role}`;
  document.querySelectorAll(".control-only").forEach((e) => e.classList.toggle("hidden", hello.role !== "control"));
  ensureLeds(hello.board.leds_per_ring);
  try {
    const f = await client.request("frame");
    ensureLeds(f.leds_per_ring);
    drawFrame(f.frame);
    lastFrame = f.frame;
  } catch (e) { /* next frame event will do */ }
  refresh();
});
client.on("close", () => document.getElementById("conn").classList.remove("up"));
let lastFrame = null;
client.on("frame", (e) => { ensureLeds(e.leds_per_ring); drawFrame(e.frame); lastFrame = e.frame; });
for (const t of ["position", "guide", "new_game", "game_over", "move", "settings"]) client.on(t, scheduleRefresh);
client.on("wrong", (e) => {
  const i = pits.findIndex((p) => p.el.dataset.pit === e.pit);
  if (i < 0) return;
  pits[i].el.classList.remove("shake");
  void pits[i].el.offsetWidth;
  pits[i].el.classList.add("shake");
});
client.on("hint", (e) => toast(`Hint: ${e.pit}`));
client.on("input", (e) => {
  const p = pits.find((q) => q.el.dataset.pit === e.pit);
  if (!p) return;
  p.el.classList.remove("pulse");
  void p.el.offsetWidth;
  p.el.classList.add("pulse");
});
client.on("capture", (e) => toast(`Captured ${e.captures.map((c) => `${c.seeds} from ${c.pit}`).join(", ")}`));
client.on("notice", (t) => toast(t, "warn"));

document.getElementById("btn-undo").onclick = () => client.request("undo").catch((e) => toast(e.message, "err"));
document.getElementById("btn-hint").onclick = () => client.request("hint").catch((e) => toast(e.message, "err"));
document.getElementById("btn-new").onclick = () => client.request("new_game").catch((e) => toast(e.message, "err"));

buildBoard();
ensureLeds(16);
window.matchMedia("(max-width: 640px) and (orientation: portrait)").addEventListener("change", layout);
window.kiothiTwin = { get state() { return state; }, get lastFrame() { return lastFrame; }, client };
