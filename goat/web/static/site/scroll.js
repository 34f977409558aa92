// A wide table in a narrow window says that it scrolls: each `.scroll` box whose content is wider than the
// box gets the class `overflows` and, just before it, the page's cue (`<body data-scroll-cue>`, in the
// page's language) as a visible line. Checked on load, on resize and whenever the page redraws a part.

const cue = document.body.dataset.scrollCue || "";
let queued = false;

function mark() {
  queued = false;
  for (const box of document.querySelectorAll(".scroll")) {
    const wide = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("overflows", wide);
    const before = box.previousElementSibling;
    const shown = before && before.classList.contains("scroll-cue");
    if (wide && !shown && cue) {
      const note = document.createElement("p");
      note.className = "scroll-cue";
      note.textContent = `⇆ ${cue}`;
      box.before(note);
    } else if (!wide && shown) {
      before.remove();
    }
  }
}

function later() {
  if (queued) return;
  queued = true;
  window.requestAnimationFrame(mark);
}

mark();
window.addEventListener("resize", later);
new MutationObserver((changes) => {
  if (changes.some((c) => ![...c.addedNodes, ...c.removedNodes].every((n) => n.classList && n.classList.contains("scroll-cue")))) later();
}).observe(document.body, { childList: true, subtree: true });
