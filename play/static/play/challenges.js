// The play page's challenges (play/_challenges.html, docs/play.md "Challenges"): the form that challenges
// players (or makes a table by link), the incoming list with its badge and the player's own challenges,
// kept live by the player feed's `challenge` events. When a challenge the player is in starts its game,
// the page goes to the table.

import { api, ApiError, newKey } from "./api.js";
import { fitSeats } from "./seats.js";
import { element, named, t } from "./words.js";

const section = document.getElementById("challenges");
const me = section ? section.dataset.me : "";
const tablePath = (id) => `/play/${id}/`;
// the challenge events that close it (a challenge's, not a game's: the game statuses come from the page)
const CLOSING = { declined: true, cancelled: true, expired: true };

function say(text) {
  const status = document.getElementById("play-status");
  if (!status) return;
  status.textContent = text;
  status.hidden = false;
}

function badgeUpdate() {
  const badge = document.getElementById("challenges-badge");
  const count = document.querySelectorAll("#incoming-challenges li[data-challenge-id]").length;
  badge.textContent = String(count);
  badge.hidden = count === 0;
}

function emptyUpdate(list, key) {
  const rows = list.querySelectorAll("li[data-challenge-id]").length;
  const empty = list.querySelector("li.empty");
  if (rows && empty) empty.remove();
  if (!rows && !empty) list.append(element("li", { class: "empty", text: t(key) }));
}

function remove(id) {
  for (const row of document.querySelectorAll(`li[data-challenge-id="${id}"]`)) row.remove();
  emptyUpdate(document.getElementById("incoming-challenges"), "none_incoming");
  emptyUpdate(document.getElementById("outgoing-challenges"), "none_outgoing");
  badgeUpdate();
}

async function act(id, verb, body = {}) {
  try {
    const { data } = await api("POST", `/api/challenges/${id}/${verb}/`, { body });
    if (data.game) window.location.assign(tablePath(data.game));
    else if (verb !== "accept") remove(id);
    else document.querySelector(`li[data-challenge-id="${id}"] button[data-accept]`)?.setAttribute("disabled", "");
  } catch (error) {
    say(error instanceof ApiError ? error.message : String(error));
    if (error instanceof ApiError && error.status === 409) remove(id);
  }
}

function row(challenge, incoming) {
  const who = incoming
    ? t("from_player", { player: challenge.challenger }) + (challenge.challenger_bot ? ` (${t("bot")})` : "")
    : challenge.opponents.map((o) => o.player + (o.bot ? ` (${t("bot")})` : "")).join(", ") || t("anyone");
  const meta = `${who} · ${named("ruleset", challenge.ruleset)} · ${t(challenge.rated ? "ch_rated" : "ch_unrated")}`;
  const item = element("li", { class: "challenge" }, element("span", { class: "meta", text: meta }), " ");
  item.dataset.challengeId = String(challenge.id);
  const button = (verb, key) => {
    const b = element("button", { type: "button", text: t(key) });
    b.dataset[verb] = String(challenge.id);
    return b;
  };
  if (incoming) item.append(button("accept", "accept"), " ", button("decline", "decline"));
  else {
    if (challenge.link) item.append(element("a", { href: challenge.link, class: "challenge-link", text: t("link") }), " ");
    item.append(button("cancel", "cancel"));
  }
  return item;
}

function add(challenge, incoming) {
  if (document.querySelector(`li[data-challenge-id="${challenge.id}"]`)) return;
  const list = document.getElementById(incoming ? "incoming-challenges" : "outgoing-challenges");
  list.prepend(row(challenge, incoming));
  emptyUpdate(list, incoming ? "none_incoming" : "none_outgoing");
  badgeUpdate();
}

function setUpForm(form) {
  fitSeats(form.elements.ruleset, form.elements.seats);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const opponents = form.opponents.value.split(/[,\s]+/).filter(Boolean);
    const body = { opponents, ruleset: form.ruleset.value, rated: form.rated.checked,
                   options: { move_time: Number(form.move_time.value) } };
    if (form.seats.value) body.seats = Number(form.seats.value);
    try {
      const { data } = await api("POST", "/api/challenges/", { body, headers: { "Idempotency-Key": newKey() } });
      add(data, false);
      say(t("challenge_sent"));
      const share = document.getElementById("challenge-share");
      share.hidden = !data.link;
      if (data.link) document.getElementById("challenge-link").value = data.link;
    } catch (error) {
      say(error instanceof ApiError ? error.message : String(error));
    }
  });
  form.querySelector("button[type=submit]").disabled = false;
}

// "Play again with the same people" on a table: one challenge for the whole old table (the first to
// press makes it, each other press accepts it, the last one starts the game).
async function again(button) {
  try {
    const { data } = await api("POST", "/api/challenges/", { body: { again_of: Number(button.dataset.game) } });
    if (data.game) window.location.assign(tablePath(data.game));
    else {
      if (data.challenger === me) add(data, false);
      else remove(data.id);
      button.disabled = true;
      say(t("again_waiting"));
    }
  } catch (error) {
    say(error instanceof ApiError ? error.message : String(error));
  }
}

function follow(feed) {
  feed.addEventListener("challenge", (e) => {
    const { event, by, challenge } = JSON.parse(e.data);
    const mine = challenge.challenger === me;
    const isNamed = challenge.opponents.some((o) => o.player === me);
    if (event === "started" && challenge.game && (mine || isNamed)) {
      window.location.assign(tablePath(challenge.game));
    } else if (event === "created" && isNamed && !mine) {
      add(challenge, true);
      say(t("challenge_from", { player: challenge.challenger }));
    } else if (CLOSING[event]) {
      remove(challenge.id);
      if (event === "declined" && mine) say(t("challenge_declined", { player: by }));
    }
  });
  feed.addEventListener("hello", () => { section.dataset.live = "true"; });
  const againButton = document.getElementById("challenge-again");
  if (againButton) {
    feed.addEventListener("game_ended", (e) => {
      if (JSON.parse(e.data).game === Number(againButton.dataset.game)) againButton.hidden = false;
    });
  }
}

export function startChallenges(feed) {
  if (!section) return;
  const form = document.getElementById("challenge-form");
  if (form) setUpForm(form);
  section.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.id === "challenge-again") again(button);
    else if (button.dataset.accept) act(button.dataset.accept, "accept");
    else if (button.dataset.decline) act(button.dataset.decline, "decline", { reason: "generic" });
    else if (button.dataset.cancel) act(button.dataset.cancel, "cancel");
  });
  if (feed) follow(feed);
  badgeUpdate();
}
