// The admin replay's keys and slider: ← previous, → next, Home first, End last. A file, not an inline
// script, for the Content-Security-Policy; the step and the last step come from #content-main's data.
(function () {
  var main = document.getElementById("content-main");
  var step = parseInt(main.dataset.step, 10), last = parseInt(main.dataset.version, 10);
  function go(n) { n = Math.max(0, Math.min(last, n)); if (n !== step) { window.location.search = "?step=" + n; } }
  document.getElementById("step-slider").addEventListener("change", function (e) { go(parseInt(e.target.value, 10)); });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.target && e.target.tagName === "INPUT" && e.target.type !== "range") { return; }
    var to = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last}[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
})();
