// Live pages (docs/site.md). The page is whole without this script; with it, an element #live whose
// data-live-stream names a stream (the game stream, the tournament stream) follows it with
// EventSource, and on each message fetches the page's main part again (the same URL with
// ?part=main, rendered by the same template on the server) and swaps it in: nothing of the game or
// the tournament is computed here. The stream closes when data-live-final names the status a
// message reports. Also: the clock counts down between messages, and the replay's links step
// without reloading the page (arrow keys too).

const root = document.getElementById("live");

function partUrl(href) {
  const url = new URL(href, window.location.href);
  url.searchParams.set("part", "main");
  return url;
}

let loading = null;
let again = false;

// Fetch the main part of `href` (default: this page) and swap it in; one fetch at a time, and one
// more after it when messages came meanwhile.
async function refresh(href) {
  if (loading) { again = true; return loading; }
  loading = (async () => {
    try {
      const response = await fetch(partUrl(href || window.location.href), {credentials: "same-origin"});
      if (response.ok) {
        const part = document.createElement("template");
        part.innerHTML = await response.text();
        const inner = part.content.getElementById("live");  // a page whose main part carries #live itself
        root.replaceChildren(...(inner ? inner.childNodes : part.content.childNodes));
        root.dispatchEvent(new CustomEvent("live:updated", {bubbles: true}));
        startClock();
      }
    } finally {
      loading = null;
    }
    if (again) { again = false; await refresh(); }
  })();
  return loading;
}

function statusOf(data) {
  return data.status || (data.game && data.game.status) || (data.tournament && data.tournament.status) || null;
}

function follow(url) {
  const final = (root.dataset.liveFinal || "").split(" ").filter(Boolean);
  const source = new EventSource(url);
  const onMessage = (event) => {
    let data = {};
    try { data = JSON.parse(event.data); } catch (e) { return; }
    // how many messages this page has heard (also tells a test that the stream is being followed)
    root.dataset.liveHeard = String(parseInt(root.dataset.liveHeard || "0", 10) + 1);
    const known = root.dataset.liveVersion;
    if (!(event.type === "state" && known !== undefined && String(data.version) === known)) {
      refresh();
    }
    if (final.includes(statusOf(data))) { source.close(); }
  };
  source.addEventListener("state", onMessage);
  source.addEventListener("update", onMessage);
}

let clockTimer = null;

function startClock() {
  if (clockTimer) { clearInterval(clockTimer); clockTimer = null; }
  const clock = document.getElementById("clock");
  if (!clock) { return; }
  const secs = clock.querySelector(".secs");
  const until = Date.now() + parseInt(clock.dataset.remainingMs, 10);
  clockTimer = setInterval(() => {
    const left = Math.max(0, Math.floor((until - Date.now()) / 1000));
    if (secs) { secs.textContent = String(left); }
    if (left === 0) { clearInterval(clockTimer); clockTimer = null; }
  }, 250);
}

function replayStep(link) {
  refresh(link.href).then(() => window.history.replaceState(null, "", link.href));
}

if (root) {
  if (root.dataset.liveStream && "EventSource" in window) { follow(root.dataset.liveStream); }
  startClock();
  root.addEventListener("click", (event) => {
    const link = event.target.closest("#replay a[href^='?step=']");
    if (link && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      replayStep(link);
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !document.getElementById("replay")) { return; }
    if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) { return; }
    const id = {ArrowLeft: "replay-prev", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last"}[event.key];
    const link = id && document.getElementById(id);
    if (link) { event.preventDefault(); replayStep(link); }
  });
}
