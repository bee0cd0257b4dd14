// axe-core on one slide of every kind, on any engine (tests/browser/test_student_a11y.py runs it in
// WebKit): run inside the deck's page by the engines' drivers like scenario.js, one async arrow
// function called with the options ({slides, settleTimeout}) and inpage.js's helpers. axe-core's
// source comes before it, in the same function (the test writes both into one scenario file: the
// page's CSP refuses a script added to it). Every cell runs first (the deck's own pre-run), so
// the outputs are there. Report: {userAgent, violations: {slide id: [{id, count, nodes}]}}.
async (options = {}, { sleep, waitFor }) => {
  const opt = { settleTimeout: 600, ...options };
  await waitFor("the deck", () => document.documentElement.dataset.deckReady === "true", 60);
  await waitFor("every cell run", () => window.deck.runtime
    && window.deck.cells.every((c) => c.running === null) && window.deck.runtime.detail === "Python: listo",
  opt.settleTimeout);
  const reveal = window.deck.reveal;
  reveal.configure({ transition: "none" });
  const violations = {};
  for (const id of opt.slides) {
    reveal.slide(...Object.values(reveal.getIndices(document.getElementById(id))));
    await waitFor(`slide ${id}`, () => reveal.getCurrentSlide().id === id, 10);
    await sleep(400);   // its editors (built near the current slide) and figures
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    if (result.violations.length) {
      violations[id] = result.violations.map((v) => ({ id: v.id, count: v.nodes.length,
        nodes: v.nodes.slice(0, 3).map((n) => [n.target.join(" "), n.failureSummary]) }));
    }
  }
  return { userAgent: navigator.userAgent, violations };
}
