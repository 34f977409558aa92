// The lobby: open games and my games from the API, the new-game form, join buttons, and the player feed
// (GET /api/stream/) that says when a game starts, when it is my turn, when a game ends or a rematch is offered,
// and when a game of the lobby changes (`lobby`): the open games follow it live.

import { api, newKey } from "./api.js";
import { fitSeats } from "./seats.js";
import { element, named, playerLink, say, t } from "./words.js";

export function tablePath(id) {
  return `/play/${id}/`;
}

// a paired table (goat-pairs): the seat a joiner takes chooses the partner (the seat opposite). The
// new-game form's ruleset options mark the paired rulesets (data-paired).
const PAIRED = new Set(Array.from(document.querySelectorAll("option[data-paired]"), (option) => option.value));

async function join(id, seat) {
  try {
    const body = seat === undefined ? {} : { seat };
    await api("POST", `/api/games/${id}/join/`, { body, headers: { "Idempotency-Key": newKey() } });
    window.location.assign(tablePath(id));
  } catch (error) {
    say(t("error", { detail: error.message }));
  }
}

function joinButton(id) {
  const button = element("button", { type: "button", class: "join", text: t("join"), "data-join": id });
  button.addEventListener("click", () => join(id));
  return button;
}

// At a goat-pairs table, a button per free seat, named by who sits opposite (the partner it chooses).
function seatButtons(game) {
  const held = new Map(game.seats.map((s) => [s.seat, s.player]));
  const out = [];
  for (let seat = 0; seat < game.seat_count; seat += 1) {
    if (held.has(seat)) continue;
    const partner = held.get((seat + 2) % game.seat_count);
    const label = partner ? t("sit_opposite", { player: partner }) : t("sit_at", { number: seat + 1 });
    const button = element("button", { type: "button", class: "join", text: label, "data-join": game.id,
      "data-seat": seat });
    button.addEventListener("click", () => join(game.id, seat));
    out.push(button);
  }
  return out;
}

function gameRow(game, withJoin) {
  const meta = element("span", { class: "meta" }, document.createTextNode(`${named("ruleset", game.ruleset)} · `));
  game.seats.forEach((s, i) => {
    meta.append(...(i ? [document.createTextNode(", ")] : []), playerLink(s.player));
    if (s.computer) meta.append(document.createTextNode(` (${t("computer")})`));
  });
  // the clock, when the summary says it (an older server's does not)
  if (typeof game.move_time === "number") {
    meta.append(document.createTextNode(` · ${game.move_time ? t("move_time", { seconds: game.move_time }) : t("no_clock")}`));
  }
  const free = game.seat_count - game.seats.length;
  if (free > 0) meta.append(document.createTextNode(` · ${t("free_seats", { n: free })}`));
  const row = element("li", { class: "game-row", "data-game": game.id },
    element("a", { class: "game-link", href: tablePath(game.id), text: t("game", { game: game.id }) }),
    meta,
    element("span", { class: `badge ${game.status}`, text: named("status", game.status) }));
  if (withJoin) row.append(...(PAIRED.has(game.ruleset) ? seatButtons(game) : [joinButton(game.id)]));
  return row;
}

async function fillList(list, path, withJoin, emptyKey) {
  const { data } = await api("GET", path);
  const rows = data.results.map((game) => gameRow(game, withJoin));
  list.replaceChildren(...(rows.length ? rows : [element("li", { class: "empty", text: t(emptyKey) })]));
}

const OPEN_GAMES = "/api/games/?status=waiting&open=true";

// The open games after a `lobby` event {game, status, summary}: a game still waiting comes with its summary
// (as the game list shows it), so its row is put in, replaced or taken out here, without a request: it is
// open to me while it has a free seat and I hold none of its seats. A game that left the lobby (started,
// cancelled) goes. Without a summary (game null: the feed healed from a lost subscription; anything may have
// changed) the list is read again, one read at a time and one more if events came during it.
function lobbyFollower(list) {
  const me = document.getElementById("whoami")?.textContent;
  let reading = false;
  let again = false;
  async function reread() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        await fillList(list, OPEN_GAMES, true, "none_open");
      } while (again);
    } catch (error) {
      say(t("error", { detail: error.message }));
    } finally {
      reading = false;
    }
  }
  function showEmpty() {
    if (list.querySelector("li[data-game]")) return;
    list.replaceChildren(element("li", { class: "empty", text: t("none_open") }));
  }
  return ({ game, status, summary }) => {
    if (game !== null && status !== "waiting") {
      list.querySelector(`li[data-game="${game}"]`)?.remove();
      showEmpty();
      return;
    }
    if (!summary) {
      reread();
      return;
    }
    const old = list.querySelector(`li[data-game="${game}"]`);
    const open = summary.seats.length < summary.seat_count && !summary.seats.some((s) => s.player === me);
    if (!open) {
      old?.remove();
      showEmpty();
      return;
    }
    const row = gameRow(summary, true);
    if (old) {
      old.replaceWith(row);
      return;
    }
    list.querySelector("li.empty")?.remove();
    const later = [...list.querySelectorAll("li[data-game]")].find((li) => Number(li.dataset.game) < game);
    list.insertBefore(row, later || null); // newest first, as the list is read
  };
}

export async function refreshLobby() {
  const open = document.getElementById("open-games");
  const mine = document.getElementById("my-games");
  try {
    await Promise.all([
      open && fillList(open, OPEN_GAMES, true, "none_open"),
      mine && fillList(mine, "/api/players/me/games/", false, "none_mine"),
    ]);
  } catch (error) {
    say(t("error", { detail: error.message }));
  }
}

function setUpForm(form) {
  const submit = form.querySelector("button[type=submit]");
  submit.disabled = false; // the form needs the script: it posts JSON to the API
  fitSeats(form.elements.ruleset, form.elements.seats, form.elements.computer_players);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const body = {
      ruleset: fields.get("ruleset"),
      seats: Number(fields.get("seats")),
      options: { move_time: Number(fields.get("move_time")) },
    };
    const computers = Number(fields.get("computer_players") || 0);
    if (computers > 0) {
      body.computer_players = computers;
      body.computer_level = fields.get("computer_level");
    }
    submit.disabled = true;
    try {
      const { data } = await api("POST", "/api/games/", { body, headers: { "Idempotency-Key": newKey() } });
      window.location.assign(tablePath(data.id));
    } catch (error) {
      say(t("error", { detail: error.message }));
      submit.disabled = false;
    }
  });
}

// The player feed. `current` is the game on the table (its own stream shows it), or null.
function followFeed(current) {
  const open = document.getElementById("open-games");
  // the lobby's events only where the open games are shown (each is sent to every feed that asks)
  const feed = new EventSource(open ? "/api/stream/?lobby=1" : "/api/stream/");
  const link = (id) => element("a", { href: tablePath(id), text: t("game", { game: id }) });
  feed.addEventListener("game_started", (e) => {
    const { game } = JSON.parse(e.data);
    if (game !== current) say(t("game_started", { game }), link(game));
    refreshLobby();
  });
  feed.addEventListener("your_turn", (e) => {
    const { game } = JSON.parse(e.data);
    if (game !== current) say(t("your_turn_at", { game }), link(game));
  });
  feed.addEventListener("game_ended", () => refreshLobby());
  if (open) {
    const follow = lobbyFollower(open);
    feed.addEventListener("lobby", (e) => follow(JSON.parse(e.data)));
    // the feed listens from its hello on: the list is live (a hook for styles and tests)
    feed.addEventListener("hello", () => { open.dataset.live = "true"; });
  }
  feed.addEventListener("rematch_offered", (e) => {
    const data = JSON.parse(e.data);
    say(t("rematch_offered", { player: data.from }), joinButton(data.game));
    refreshLobby();
  });
  return feed;
}

export function startLobby(current) {
  const form = document.getElementById("new-game");
  if (form) setUpForm(form);
  for (const button of document.querySelectorAll("button[data-join]")) {
    const seat = button.dataset.seat === undefined ? undefined : Number(button.dataset.seat);
    button.addEventListener("click", () => join(Number(button.dataset.join), seat));
  }
  return followFeed(current);
}
