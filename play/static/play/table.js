// The table: drawn from the table model the server computes (goat.games.table.table_model, served at
// /play/{id}/table/ and put in the page as it loads). The game stream and a move's answer say that the
// game moved on; the script then asks for the model of the new version and fills the page with it.
// Every word, caption, count, note, total and legend is the model's: nothing here knows a rule of the
// game or says anything of its own but the countdown of the clock. A model without a part (an older
// server) leaves that part of the page as it is.

import { api, ApiError, newKey } from "./api.js";
import { tablePath } from "./lobby.js";
import { element, partsNodes, say, t, tileElement } from "./words.js";

// the statuses of an ended game, and of one played to a result, as the engine names them
// (goat.engine.status ENDED and PLAYED, served by the page)
let ENDED = new Set();
let PLAYED = new Set();
const TICK_MS = 250;
const RETRY_MS = 500;

function byId(id) {
  return document.getElementById(id);
}

function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function text(value) {
  return value === undefined || value === null ? "" : String(value);
}

// The seats: a name (a link), what the player is (you, computer), their tiles and points, as words.
function drawSeats(model) {
  if (!Array.isArray(model.seats) || !model.seats.every((s) => s && Array.isArray(s.name))) return;
  byId("seats").replaceChildren(...model.seats.map((s) => {
    const li = element("li", { "data-seat": text(s.seat) }, element("strong", { class: "player" }, ...partsNodes(s.name)));
    if (s.tags) li.append(document.createTextNode(` (${s.tags})`));
    li.append(element("span", { class: "counts" },
      element("span", { class: "tile-count", text: text(s.tiles_text) }), document.createTextNode(" · "),
      element("span", { class: "points", text: text(s.points_text) })));
    li.classList.toggle("to-move", Boolean(s.to_move));
    li.classList.toggle("goat", Boolean(s.goat));
    li.classList.toggle("winner", Boolean(s.winner));
    li.classList.toggle("partner", Boolean(s.partner));
    if (s.team !== undefined && s.team !== null) li.dataset.team = String(s.team);
    return li;
  }));
}

function drawLine(model) {
  const line = model.line;
  if (!line || !Array.isArray(line.tiles)) return;
  byId("line").replaceChildren(...(line.tiles.length ? line.tiles.map(tileElement)
    : (line.empty_text ? [element("span", { class: "felt-note", text: line.empty_text })] : [])));
  byId("line-ends").textContent = text(line.ends_text);
}

function drawNotes(model) {
  if (!Array.isArray(model.notes)) return;
  byId("table-notes").replaceChildren(...model.notes.map((n) => {
    const li = element("li", { class: "note", "data-seq": text(n.seq), "data-type": text(n.type) }, ...partsNodes(n.parts));
    if (n.count) li.dataset.count = String(n.count);
    return li;
  }));
}

function drawResult(model) {
  if (!("result" in model)) return;
  const box = byId("result-box");
  const result = model.result;
  if (!result) {
    box.replaceChildren();
    return;
  }
  const lines = [element("h3", { id: "result-heading", text: text(result.heading) })];
  for (const [key, cls] of [["reason", ""], ["winners", ""], ["goats", ""], ["rating", "meta"]]) {
    if (Array.isArray(result[key]) && result[key].length) {
      lines.push(element("p", { id: `result-${key}`, class: cls }, ...partsNodes(result[key])));
    }
  }
  box.replaceChildren(element("div", { id: "result", class: "result", "data-status": text(result.status) }, ...lines));
}

// The scoresheet: the same table as table/_scoresheet.html draws on the game page, from the same model.
function drawScoresheet(model) {
  const sheet = model.scoresheet;
  const table = byId("rounds");
  if (!sheet || !Array.isArray(sheet.rows) || !table) return;
  const heads = sheet.heads || {};
  const pot = Boolean(sheet.show_fish_pot);
  const th = (label, props = {}) => element("th", { scope: "col", ...props }, ...(Array.isArray(label) ? partsNodes(label) : [document.createTextNode(text(label))]));
  const head = element("tr", {}, th(heads.round), th(heads.how),
    ...(sheet.columns || []).map((c) => th(c.head, { "data-seat": text(c.seat) })), ...(pot ? [th(heads.fish_pot)] : []));
  const rows = sheet.rows.map((r) => {
    const row = element("tr", { class: r.end === "fish" ? "round-result fish-round" : "round-result",
      "data-round": text(r.round), "data-end": text(r.end) },
    element("th", { scope: "row", text: text(r.round) }), element("td", { class: "how" }, ...partsNodes(r.how)),
    ...(r.cells || []).map((c) => {
      const classes = ["cell", ...(c.went_out ? ["went-out"] : []), ...(c.round_winner ? ["round-winner"] : [])];
      const cell = element("td", { class: classes.join(" "), "data-seat": text(c.seat) },
        element("span", { class: "gained", text: text(c.gained) }), document.createTextNode(" "),
        element("strong", { class: "total", text: text(c.shown_total) }));
      if (c.shown_remembered) cell.append(document.createTextNode(" "), element("span", { class: "remembered", text: c.shown_remembered }));
      if (c.shown_share) cell.append(document.createTextNode(" "), element("span", { class: "partners-share", text: c.shown_share }));
      if (c.round_winner) cell.append(document.createTextNode(" "), element("span", { class: "winner-mark", title: text(heads.round_winner), text: "★" }));
      return cell;
    }));
    if (pot) row.append(element("td", { class: "pot", text: text(r.fish_pot) }));
    return row;
  });
  const total = element("tr", { class: "total" }, element("th", { scope: "row", text: text(heads.total) }), element("td"),
    ...(sheet.totals || []).map((s) => element("td", { "data-seat": text(s.seat) }, element("strong", { text: text(s.shown) }))),
    ...(pot ? [element("td", { class: "pot", text: text(sheet.fish_pot) })] : []));
  table.replaceChildren(element("thead", {}, head), element("tbody", {}, ...rows), element("tfoot", {}, total));
}

export function startTable(section) {
  const id = Number(section.dataset.gameId);
  const modelUrl = section.dataset.modelUrl;
  ENDED = new Set(section.dataset.ended.split(" "));
  PLAYED = new Set(section.dataset.played.split(" "));
  let model = null; // the table model drawn
  let clock = null; // {at: performance.now() when the player to move runs out of time, seat}
  let stream = null;
  let sending = false;
  let asking = null; // the model request under way
  let wanted = 0; // the newest version the server has told of
  let lastView = null; // the newest game view received

  // The viewer's moves: the model's buttons with their words; from a model without them (an older
  // server), the view's legal moves, each button named by its tile and, where it fits both ends, an arrow.
  function drawMoves() {
    if (!model) return;
    let moves = model.moves;
    if (!Array.isArray(moves)) {
      if (!lastView || !Array.isArray(lastView.legal_moves) || lastView.version !== model.version) return;
      const count = {};
      for (const m of lastView.legal_moves) count[m.tile] = (count[m.tile] || 0) + 1;
      moves = lastView.legal_moves.map((m) => ({ ...m, label: m.tile,
        end_text: count[m.tile] > 1 ? (m.end === "left" ? "←" : "→") : "" }));
    }
    const buttons = moves.map((m) => {
      const button = element("button", { type: "button", class: "move", "aria-label": text(m.label), title: text(m.label),
        "data-tile": m.tile, "data-end": m.end }, tileElement(m.tile));
      if (m.end_text) button.append(element("span", { class: "end", text: m.end_text }));
      button.disabled = sending;
      button.addEventListener("click", () => play(m));
      return button;
    });
    byId("moves").replaceChildren(...(buttons.length ? buttons
      : (model.no_moves ? [element("span", { class: "felt-note", text: model.no_moves })] : [])));
  }

  function drawActions() {
    const status = model.status;
    const seat = model.your_seat !== undefined ? model.your_seat : (lastView ? lastView.your_seat : null);
    const seated = seat !== null && seat !== undefined;
    byId("rematch").hidden = !(seated && PLAYED.has(status));
    byId("leave").hidden = !(seated && status === "waiting");
    byId("resign").hidden = !(seated && status === "running");
    byId("moves-box").hidden = !(seated && status === "running");
    byId("replay-link").hidden = !PLAYED.has(status);
  }

  function drawClock() {
    const shown = byId("clock");
    if (!model || model.status !== "running" || !clock) {
      shown.textContent = model && model.status === "running" && model.no_clock ? model.no_clock : "";
      shown.classList.remove("low");
      return;
    }
    const left = clock.at - performance.now();
    const seat = (model.seats || []).find((s) => s.seat === clock.seat);
    const name = seat ? seat.name.map((p) => p.text || "").join("") : "";
    shown.textContent = `${name}${name ? ": " : ""}${clockText(left)}`;
    shown.classList.toggle("low", left < 10000);
  }

  // A game view (GET, a move's answer, the stream): its clock, and the model of its version.
  function viewed(view) {
    if (!view || typeof view.version !== "number") return;
    if (!lastView || view.version >= lastView.version) lastView = view;
    if (!model || view.version >= model.version) {
      clock = view.remaining_ms === null || view.remaining_ms === undefined ? null
        : { at: performance.now() + view.remaining_ms, seat: view.turn };
    }
    if (view.version > wanted) wanted = view.version;
    ask();
  }

  async function ask() {
    if (asking || (model && model.version >= wanted)) return;
    const before = model ? model.version : -1;
    asking = api("GET", modelUrl);
    let failed = false;
    try {
      draw((await asking).data);
    } catch (error) {
      failed = true;
      if (!(error instanceof ApiError)) say(t("connection_lost"));
    } finally {
      asking = null;
    }
    // a newer version was told of meanwhile: ask at once; an answer that did not move on (or failed)
    // is asked again a little later, never in a tight loop
    if (model && model.version < wanted) {
      window.setTimeout(ask, failed || model.version === before ? RETRY_MS : 0);
    }
  }

  function draw(next) {
    if (!next || typeof next !== "object") return;
    // older than shown, or the version shown (a model is the same for the same version and viewer)
    if (model && typeof next.version === "number" && next.version <= model.version) return;
    model = { ...(model || {}), ...next };
    if (typeof model.version === "number") {
      section.dataset.version = String(model.version); // the version drawn (tests wait on it)
      if (model.version > wanted) wanted = model.version;
    }
    if (typeof next.meta === "string") byId("table-meta").textContent = next.meta;
    if (Array.isArray(next.state_line)) {
      const state = byId("table-state");
      state.replaceChildren(...partsNodes(next.state_line));
      state.classList.toggle("my-turn", model.status === "running" && model.turn === model.your_seat);
    }
    drawResult(next);
    drawNotes(next);
    drawSeats(next);
    drawLine(next);
    if (Array.isArray(next.hand)) byId("hand").replaceChildren(...next.hand.map(tileElement));
    drawMoves();
    drawScoresheet(next);
    drawActions();
    drawClock();
    if (ENDED.has(model.status) && stream) {
      stream.close(); // the server closes it after the last update; no reconnecting
      stream = null;
    }
  }

  async function play(move) {
    if (sending) return;
    sending = true;
    drawMoves();
    try {
      const { data } = await api("POST", `/api/games/${id}/moves/`, {
        body: { tile: move.tile, end: move.end },
        headers: { "If-Match": `"${model.version}"`, "Idempotency-Key": newKey() },
      });
      viewed(data.game);
    } catch (error) {
      if (error instanceof ApiError && error.status !== 412) say(t("error", { detail: error.message }));
      // the game as it is now: its version says whether there is a newer model to draw
      await api("GET", `/api/games/${id}/`).then(({ data }) => viewed(data)).catch(() => {});
    } finally {
      // The stream may have drawn a later version while the move was on its way (with the buttons
      // disabled); the buttons are drawn again here, enabled, from the newest model.
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
      viewed(JSON.parse(e.data));
    });
    stream.addEventListener("update", (e) => {
      section.dataset.live = "true";
      viewed(JSON.parse(e.data).game);
    });
    stream.addEventListener("open", () => say(""));
    stream.addEventListener("error", () => {
      if (!stream) return;
      if (stream.readyState === EventSource.CLOSED) { // refused (not a dropped connection): try again later
        stream = null;
        window.setTimeout(() => { if (!model || !ENDED.has(model.status)) follow(); }, 5000);
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
    if (game) viewed(game);
  });
  window.setInterval(() => { if (model) drawClock(); }, TICK_MS);
  const island = byId("table-model");
  draw(island ? JSON.parse(island.textContent) : null);
  api("GET", `/api/games/${id}/`).then(({ data }) => viewed(data)).catch((error) => say(t("error", { detail: error.message })));
  follow();
}
