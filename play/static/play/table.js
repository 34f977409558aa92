// The table: the game view as the server gives it (GET /api/games/{id}/, then the game stream), drawn.
// The legal moves are the view's `legal_moves`, one button each; results, rounds and scores are the
// server's. Nothing here knows a rule of the game.

import { api, ApiError, newKey } from "./api.js";
import { tablePath } from "./lobby.js";
import { element, linked, named, playerLink, say, t, tileElement } from "./words.js";

// the statuses of an ended game, and of one played to a result, as the engine names them
// (goat.engine.status ENDED and PLAYED, served by the page)
let ENDED = new Set();
let PLAYED = new Set();
const TICK_MS = 250;

function byId(id) {
  return document.getElementById(id);
}

function seatName(view, seat) {
  const entry = view.seats[seat];
  return (entry && entry.player) || t("free_seat");
}

function players(view, seats) {
  return seats.map((s) => view.seats[s] && view.seats[s].player);
}

function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export function startTable(section) {
  const id = Number(section.dataset.gameId);
  ENDED = new Set(section.dataset.ended.split(" "));
  PLAYED = new Set(section.dataset.played.split(" "));
  let view = null;
  let stream = null;
  let clockAt = null; // performance.now() at which the player to move runs out of time
  let roundsShown = null; // the (round, status) the scoresheet was last fetched for
  let roundsAsked = 0; // scoresheet requests sent: only the last one's answer is drawn
  let sending = false;

  function drawSeats() {
    const list = byId("seats");
    const result = view.result;
    list.replaceChildren(...view.seats.map((s) => {
      const tags = [];
      if (s.seat === view.your_seat) tags.push(t("you"));
      if (s.computer) tags.push(t("computer"));
      const li = element("li", { "data-seat": s.seat },
        element("strong", { class: "player" }, playerLink(s.player)),
        document.createTextNode(tags.length ? ` (${tags.join(", ")})` : ""),
        element("span", { class: "counts" },
          element("span", { class: "tile-count", text: t("tiles", { n: s.tiles }) }),
          document.createTextNode(" · "),
          element("span", { class: "points", text: t("points", { n: s.points }) })));
      if (view.status === "running" && view.turn === s.seat) li.classList.add("to-move");
      if (result && result.goats.includes(s.seat)) li.classList.add("goat");
      if (result && result.winners.includes(s.seat)) li.classList.add("winner");
      return li;
    }));
  }

  // The bazaar's note: who took tiles from it in the update just shown (your own by name). It stays while
  // the one who drew plays, and goes with the next turn's update or a new deal.
  let drawers = [];
  function noteDraws(events, next) {
    const note = byId("bazaar-note");
    const drawn = new Map();
    for (const e of events) {
      if (e.type === "round_dealt") drawn.clear();
      if (e.type !== "tile_drawn") continue;
      if (!drawn.has(e.seat)) drawn.set(e.seat, []);
      drawn.get(e.seat).push(e.data.tile);
    }
    if (!drawn.size) {
      const played = events.filter((e) => e.type === "tile_played").map((e) => e.seat);
      const dealt = events.some((e) => e.type === "round_dealt");
      if (!dealt && played.length === 1 && drawers.includes(played[0])) return;
      drawers = [];
      note.hidden = true;
      return;
    }
    drawers = [...drawn.keys()];
    const lines = [...drawn].map(([seat, tiles]) => {
      if (seat === next.your_seat && tiles.every(Boolean)) {
        return element("span", { class: "drawn mine", text: t("drew_mine", { tiles: tiles.join(", ") }) });
      }
      const [before, after] = t("drew", { player: "\u0000", n: tiles.length }).split("\u0000");
      const player = next.seats[seat] && next.seats[seat].player;
      return element("span", { class: "drawn" }, document.createTextNode(before), playerLink(player),
        document.createTextNode(after ?? ""));
    });
    note.replaceChildren(...lines.flatMap((line, i) => (i ? [document.createTextNode(" "), line] : [line])));
    note.hidden = false;
  }

  function drawMoves() {
    const moves = byId("moves");
    const count = {};
    for (const m of view.legal_moves) count[m.tile] = (count[m.tile] || 0) + 1;
    const buttons = view.legal_moves.map((m) => {
      const twoEnds = count[m.tile] > 1;
      const end = t(m.end === "left" ? "left_end" : "right_end");
      const label = t(twoEnds ? `play_tile_${m.end}` : "play_tile", { tile: m.tile });
      const button = element("button", { type: "button", class: "move", "aria-label": label, title: label,
        "data-tile": m.tile, "data-end": m.end }, tileElement(m.tile));
      if (twoEnds) button.append(element("span", { class: "end", text: end }));
      button.disabled = sending;
      button.addEventListener("click", () => play(m));
      return button;
    });
    moves.replaceChildren(...(buttons.length ? buttons : [element("span", { class: "felt-note", text: t("no_moves") })]));
  }

  function drawResult() {
    const box = byId("result");
    if (!ENDED.has(view.status)) {
      box.hidden = true;
      return;
    }
    const lines = [element("h3", { text: t("game_over") })];
    const result = view.result;
    if (!PLAYED.has(view.status) || !result) {
      lines.push(element("p", { text: t("cancelled") }));
    } else {
      lines.push(element("p", { id: "result-reason", text: t(`reason_${result.reason}`) }));
      lines.push(element("p", { id: "result-winners" }, ...linked(result.winners.length === 1 ? "winner" : "winners", {}, { players: players(view, result.winners) })));
      if (result.goats.length) {
        lines.push(element("p", { id: "result-goats" }, ...linked(result.goats.length === 1 ? "goat" : "goats", {}, { players: players(view, result.goats) })));
      }
      if (view.rated === false) {
        lines.push(element("p", { class: "meta", text: t("unrated") }));
      } else {
        const points = [document.createTextNode(`${t("rating_points")}: `)];
        result.rating_points.forEach((p, seat) => {
          if (seat) points.push(document.createTextNode(", "));
          points.push(playerLink(players(view, [seat])[0]), document.createTextNode(` ${p > 0 ? "+" : ""}${p}`));
        });
        lines.push(element("p", { class: "meta" }, ...points));
      }
    }
    box.replaceChildren(...lines);
    box.hidden = false;
  }

  function drawState() {
    const state = byId("table-state");
    state.classList.remove("my-turn");
    if (view.status === "waiting") {
      const taken = view.seats.filter((s) => s.player).length;
      state.textContent = `${t("waiting")}: ${t("seats_taken", { taken, seats: view.seats.length })}`;
    } else if (ENDED.has(view.status)) {
      state.textContent = t("game_over");
    } else if (view.turn !== null && view.turn === view.your_seat) {
      state.textContent = t("your_turn");
      state.classList.add("my-turn");
    } else if (view.turn !== null) {
      state.replaceChildren(...linked("turn_of", {}, { player: players(view, [view.turn]) }));
    }
    const meta = [named("ruleset", view.ruleset), named("status", view.status), t("round", { round: view.round }),
      `${t("bazaar")}: ${view.bazaar}`];
    if (view.rated === false) meta.push(t("unrated"));
    byId("table-meta").textContent = meta.join(" · ");
    const seated = view.your_seat !== null;
    byId("rematch").hidden = !(seated && PLAYED.has(view.status));
    byId("leave").hidden = !(seated && view.status === "waiting");
    byId("resign").hidden = !(seated && view.status === "running");
    byId("moves-box").hidden = !(seated && view.status === "running");
    byId("replay-link").hidden = !PLAYED.has(view.status);
  }

  function drawClock() {
    const clock = byId("clock");
    if (clockAt === null || view.status !== "running") {
      clock.textContent = view.status === "running" ? t("no_clock") : "";
      clock.classList.remove("low");
      return;
    }
    const left = clockAt - performance.now();
    clock.textContent = `${seatName(view, view.turn)}: ${clockText(left)}`;
    clock.classList.toggle("low", left < 10000);
  }

  async function drawRounds() {
    const key = `${view.round}/${view.status}`;
    if (roundsShown === key || view.status === "waiting") return;
    roundsShown = key;
    const asked = ++roundsAsked;
    let sheet;
    try {
      sheet = (await api("GET", `/api/games/${id}/scoresheet/`)).data;
    } catch (error) {
      roundsShown = null;
      return;
    }
    if (asked !== roundsAsked) return; // a later request is under way: its answer is the newer one
    const table = byId("rounds");
    const head = element("tr", {}, element("th", { scope: "col", text: t("round", { round: "" }).trim() }),
      element("th", { scope: "col", text: "" }),
      ...view.seats.map((s) => element("th", { scope: "col" }, playerLink(s.player))));
    const rows = sheet.rounds.map((r) => {
      const how = linked(r.end === "out" ? "went_out" : "fish", {}, { player: players(view, [r.seat]) });
      return element("tr", { class: "round-result", "data-round": r.round },
        element("th", { scope: "row", text: String(r.round) }), element("td", {}, ...how),
        ...r.round_points.map((p) => element("td", { text: String(p) })));
    });
    const total = element("tr", { class: "total" }, element("th", { scope: "row", text: t("total") }),
      element("td", { text: "" }), ...sheet.totals.map((s) => element("td", { text: String(s.points) })));
    table.replaceChildren(element("thead", {}, head), element("tbody", {}, ...rows, total));
  }

  function render(next) {
    if (view && next.version < view.version) return; // an older answer than the one shown
    view = next;
    section.dataset.version = String(view.version); // the version drawn (tests wait on it)
    clockAt = view.remaining_ms === null || view.remaining_ms === undefined ? null
      : performance.now() + view.remaining_ms;
    drawState();
    drawSeats();
    const line = byId("line");
    line.replaceChildren(...(view.line.tiles.length ? view.line.tiles.map(tileElement)
      : [element("span", { class: "felt-note", text: t("line_empty") })]));
    byId("hand").replaceChildren(...view.hand.map(tileElement));
    drawMoves();
    drawResult();
    drawClock();
    drawRounds();
    if (ENDED.has(view.status) && stream) {
      stream.close(); // the server closes it after the last update; no reconnecting
      stream = null;
    }
  }

  async function reload() {
    render((await api("GET", `/api/games/${id}/`)).data);
  }

  async function play(move) {
    if (sending) return;
    sending = true;
    drawMoves();
    try {
      const { data } = await api("POST", `/api/games/${id}/moves/`, {
        body: { tile: move.tile, end: move.end },
        headers: { "If-Match": `"${view.version}"`, "Idempotency-Key": newKey() },
      });
      render(data.game);
    } catch (error) {
      if (error instanceof ApiError && error.status !== 412) say(t("error", { detail: error.message }));
      await reload().catch(() => {});
    } finally {
      // The stream may have drawn a later version while the move was on its way (with the buttons
      // disabled); then the answer is older than the view and render draws nothing, so the buttons
      // are drawn again here, enabled, from the newest view.
      sending = false;
      drawMoves();
    }
  }

  async function command(path, confirmKey) {
    if (confirmKey && !window.confirm(t(confirmKey))) return null;
    try {
      return (await api("POST", path, { body: {} })).data;
    } catch (error) {
      say(t("error", { detail: error.message }));
      return null;
    }
  }

  function follow() {
    stream = new EventSource(`/api/games/${id}/stream/`);
    // data-live: the stream has spoken, so every later command reaches the page as an update (tests wait on it)
    stream.addEventListener("state", (e) => {
      section.dataset.live = "true";
      render(JSON.parse(e.data));
    });
    stream.addEventListener("update", (e) => {
      section.dataset.live = "true";
      const update = JSON.parse(e.data);
      if (!view || update.version > view.version) noteDraws(update.events || [], update.game);
      render(update.game);
    });
    stream.addEventListener("open", () => say(""));
    stream.addEventListener("error", () => {
      if (!stream) return;
      if (stream.readyState === EventSource.CLOSED) { // refused (not a dropped connection): try again later
        stream = null;
        window.setTimeout(() => { if (!view || !ENDED.has(view.status)) follow(); }, 5000);
      }
      say(t("connection_lost"));
    });
  }

  byId("rematch").addEventListener("click", async () => {
    const game = await command(`/api/games/${id}/rematch/`);
    if (game) window.location.assign(tablePath(game.id));
  });
  byId("leave").addEventListener("click", async () => {
    if (await command(`/api/games/${id}/leave/`)) window.location.assign("/play/");
  });
  byId("resign").addEventListener("click", async () => {
    const game = await command(`/api/games/${id}/resign/`, "resign_confirm");
    if (game) render(game);
  });
  window.setInterval(() => { if (view) drawClock(); }, TICK_MS);
  reload().catch((error) => say(t("error", { detail: error.message })));
  follow();
}
