// The page's words in its language: the server puts them in a JSON island (<script type="application/json">).

const island = document.getElementById("play-strings");
const words = island ? JSON.parse(island.textContent) : {};

// words[key] with %(name)s replaced from params
export function t(key, params = {}) {
  const text = words[key] || key;
  return text.replace(/%\((\w+)\)s/g, (_, name) => (name in params ? String(params[name]) : ""));
}

// A stored value (a status, a ruleset) in the page's words; a value without one, humanised ("chess 960").
export function named(kind, code) {
  return words[`${kind}_${code}`] || String(code).replace(/[-_]/g, " ");
}

// A domino as the page draws it: two halves, its name ("3-5") as its accessible label and title.
export function tileElement(name) {
  const [a, b] = name.split("-");
  const tile = document.createElement("span");
  tile.className = a === b ? "tile double" : "tile";
  tile.setAttribute("role", "img");
  tile.setAttribute("aria-label", name);
  tile.title = name;
  tile.dataset.tile = name;
  for (const pips of [a, b]) {
    const half = document.createElement("span");
    half.className = "half";
    half.setAttribute("aria-hidden", "true");
    half.textContent = pips;
    tile.append(half);
  }
  return tile;
}

export function element(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key.startsWith("aria-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

// A link to a player's page (every name is a link), or the plain name where there is no player.
export function playerLink(name) {
  if (!name) return document.createTextNode(t("free_seat"));
  const link = document.createElement("a");
  link.href = (words.player_url || "/players/NAME/").replace("NAME", encodeURIComponent(name));
  link.textContent = name;
  return link;
}

const status = document.getElementById("play-status");

// A message in the status line (role=status), with optional nodes after it (a link, a button).
export function say(message, ...nodes) {
  if (!status) return;
  status.replaceChildren(document.createTextNode(message), ...nodes.flatMap((n) => [" ", n]));
  status.hidden = !message;
}
