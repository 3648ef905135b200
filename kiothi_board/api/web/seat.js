// A seat on the web (the twin opened by a `#seat=` link): this page plays one side against
// the person at the physical board. It may press its own pits on its own turn (a `move`,
// or in the opening a lift and where each seed goes), offer or accept an agreement or a
// takeback, and resign; nothing else. The board guides its player's hand through the
// seat's moves. Loaded before twin.js, whose globals (client, state, say, $) it uses.
"use strict";

const SEAT_WORDS = {
  you: (s) => t("you play {side}", { side: side(s) }),
  get noGame() { return t("No game yet: the player at the board starts one."); },
  yourMove: (pits) => t("Your move: press one of your pits ({pits}) to sow it.", { pits }),
  get yourOpening() { return t("Your opening: press one of your pits to lift its seeds, then a pit for each seed; or press Pass."); },
  placing: (pit, n) => tn("Place the seeds from {pit}: press a pit for each seed, {n} left.",
    "Place the seeds from {pit}: press a pit for each seed, {n} left.", n, { pit }),
  get waiting() { return t("Waiting for the move at the board."); },
  get guiding() { return t("The player at the board is sowing your move on the board."); },
  get notYours() { return t("Not now: it is the board's turn."); },
  otherPit: (pit, s) => t("{pit} is not yours: you play {side}.", { pit, side: side(s) }),
  get empty() { return t("That pit is empty: choose one with seeds."); },
  get theirEnd() { return t("The player at the board offers to end the game by agreement: press Accept, or play on."); },
  get theirUndo() { return t("The player at the board asks to take back the last move: press Accept, or play on."); },
  get ownEnd() { return t("You offered to end the game by agreement: waiting for the answer."); },
  get ownUndo() { return t("You asked to take back the last move: waiting for the answer."); },
  get offerEnd() { return t("Offer to end by agreement"); },
  get acceptEnd() { return t("Accept: end by agreement"); },
  get offerUndo() { return t("Ask to take back"); },
  get acceptUndo() { return t("Accept the takeback"); },
  get boardHere() { return t("The board is online"); },
  get boardGone() { return t("The board is offline: this page reconnects by itself"); },
};

let seatOpening = null; // the lift being placed: { pit, left, places }

function isSeat() {
  return !!(client.hello && client.hello.role === "seat");
}

function seatSide() {
  return isSeat() ? client.hello.seat : null;
}

function seatTurn(st) {
  return !!(st && st.position && ["turn", "open"].includes(st.stage) && st.position.to_move === seatSide());
}

function seatPress(i, hold) {
  const st = state;
  const name = pitName(i);
  if (!seatTurn(st)) { say(SEAT_WORDS.notYours); return; }
  if (st.stage === "open") { seatOpen(st, i, hold); return; }
  if (name[0] !== seatSide()) { say(SEAT_WORDS.otherPit(name, seatSide())); return; }
  client.request("move", { pit: name }).catch((e) => say(e.message));
}

function seatOpen(st, i, hold) {
  // The opening (R3): lift one of your pits, then press a pit for each of its seeds; a hold
  // (or Pass) passes. The whole action goes to the board at once, as the AI's does.
  const name = pitName(i);
  if (hold && !seatOpening) { seatSend("pass"); return; }
  if (!seatOpening) {
    if (name[0] !== seatSide()) { say(SEAT_WORDS.otherPit(name, seatSide())); return; }
    const seeds = st.position.board[i];
    if (!seeds) { say(SEAT_WORDS.empty); return; }
    seatOpening = { pit: name, left: seeds, places: [] };
  } else {
    seatOpening.places.push(name);
    seatOpening.left -= 1;
    if (seatOpening.left === 0) {
      const action = `${seatOpening.pit}>${seatOpening.places.join(",")}`;
      seatOpening = null;
      seatSend(action);
    }
  }
  render(st);
}

function seatSend(action) {
  seatOpening = null;
  client.request("opening", { action }).catch((e) => say(e.message));
}

function seatLine(st, line) {
  // The seat's own line: the board's speaks to the hand at the board ("lift all 6 seeds").
  if (!st || st.stage === "none") return SEAT_WORDS.noGame;
  if (st.stage === "over") return watcherLine(st, line);
  const offer = st.offer;
  const mine = offer && offer.side === seatSide();
  const about = !offer ? null : offer.kind === "end" ? (mine ? SEAT_WORDS.ownEnd : SEAT_WORDS.theirEnd)
    : (mine ? SEAT_WORDS.ownUndo : SEAT_WORDS.theirUndo);
  let now;
  if (seatTurn(st) && st.stage === "open") {
    now = seatOpening ? SEAT_WORDS.placing(seatOpening.pit, seatOpening.left) : SEAT_WORDS.yourOpening;
  } else if (seatTurn(st)) now = SEAT_WORDS.yourMove((st.position.legal || []).join(" "));
  else if (st.guide && st.position.to_move === seatSide()) now = SEAT_WORDS.guiding;
  else now = SEAT_WORDS.waiting;
  return about ? `${about} ${now}` : now;
}

function seatPitHint(st, name) {
  // What a screen reader adds to the pit's name and count for the seat.
  if (!seatTurn(st)) return null;
  if (st.stage === "open") return seatOpening ? WORDS.mayPlace : name[0] === seatSide() ? WORDS.mayLift : null;
  return (st.position.legal || []).includes(name) ? WORDS.maySow : null;
}

function seatRender(st) {
  // The seat's buttons: an offer, or the other player's offer to accept; pass; resign.
  const box = $("seat-actions");
  if (!box) return;
  box.classList.toggle("hidden", !isSeat());
  $("seat-keys").classList.toggle("hidden", !isSeat());
  $("play-keys").classList.toggle("hidden", isSeat());
  if (!isSeat()) return;
  const playing = !!(st && st.position && !["none", "over"].includes(st.stage));
  const offer = st && st.offer;
  const theirs = (kind) => offer && offer.kind === kind && offer.side !== seatSide();
  $("seat-end").textContent = theirs("end") ? SEAT_WORDS.acceptEnd : SEAT_WORDS.offerEnd;
  $("seat-undo").textContent = theirs("undo") ? SEAT_WORDS.acceptUndo : SEAT_WORDS.offerUndo;
  for (const id of ["seat-end", "seat-undo", "seat-resign"]) $(id).disabled = !playing;
  $("seat-pass").classList.toggle("hidden", !(seatTurn(st) && st.stage === "open" && !seatOpening));
  $("seat-presence").textContent = $("conn").classList.contains("up") ? SEAT_WORDS.boardHere : SEAT_WORDS.boardGone;
}

function seatSetup() {
  $("seat-end").onclick = () => client.request("end").catch((e) => say(e.message));
  $("seat-undo").onclick = () => client.request("undo").catch((e) => say(e.message));
  $("seat-pass").onclick = () => seatSend("pass");
  $("seat-resign").onclick = () => { $("seat-confirm").classList.remove("hidden"); $("seat-confirm-yes").focus(); };
  $("seat-confirm-yes").onclick = () => {
    $("seat-confirm").classList.add("hidden");
    client.request("resign").catch((e) => say(e.message));
  };
  $("seat-confirm-no").onclick = () => { $("seat-confirm").classList.add("hidden"); $("seat-resign").focus(); };
}
