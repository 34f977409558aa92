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

// A domino as the server draws it (table/_tile.html): a copy of the tile of that name from the page's
// tile set (<template id="tile-set">), with its name ("3-5") as its accessible label and title.
const tileSet = document.getElementById("tile-set");

export function tileElement(name) {
  const drawn = tileSet && tileSet.content.querySelector(`[data-tile="${CSS.escape(name)}"]`);
  if (!drawn) throw new Error(`no tile ${name} in the page's tile set`);
  return drawn.cloneNode(true);
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

// t(key, params) as nodes, each player named in it a link: `players` maps a parameter to its usernames
// (several are joined by ", ").
export function linked(key, params, players) {
  const marks = Object.fromEntries(Object.keys(players).map((name, i) => [name, `\u0000${i}\u0000`]));
  const nodes = [];
  t(key, { ...params, ...marks }).split(/\u0000(\d+)\u0000/).forEach((part, i) => {
    if (i % 2 === 0) {
      if (part) nodes.push(document.createTextNode(part));
      return;
    }
    Object.values(players)[Number(part)].forEach((player, j) => {
      if (j) nodes.push(document.createTextNode(", "));
      nodes.push(playerLink(player));
    });
  });
  return nodes;
}

// A sentence of the table model (goat.games.table: parts of words and names) as nodes, each name a link
// to its player's page. Anything else in a part (an older or newer server's) is left out, never shown raw.
export function partsNodes(parts) {
  if (!Array.isArray(parts)) return [];
  return parts.map((part) => {
    if (part && part.player) {
      const link = document.createElement("a");
      link.className = part.computer ? "player-link computer" : "player-link";
      link.href = part.url || (words.player_url || "/players/NAME/").replace("NAME", encodeURIComponent(part.player));
      link.textContent = part.text || part.player;
      return link;
    }
    return document.createTextNode(part && typeof part.text === "string" ? part.text : "");
  });
}

const status = document.getElementById("play-status");

// A message in the status line (role=status), with optional nodes after it (a link, a button).
export function say(message, ...nodes) {
  if (!status) return;
  status.replaceChildren(document.createTextNode(message), ...nodes.flatMap((n) => [" ", n]));
  status.hidden = !message;
}
