// A student's device in the live hall, on any engine: run inside an audience page (served by the
// hall, `?noprerun&nosw`) by the engines' drivers like scenario.js, one async arrow function
// called with the options and inpage.js's helpers.
// The presenter is played by this script itself: it posts the presenter's moves to the hall with
// the token the test passes (`options.token`), as the presenter's page does, and the page must
// follow each one through the hall's event stream. Then the student moves away (following
// pauses, «Volver con el profesor (diapositiva N)» appears), and its button brings it back.
// Report: {engine, steps: [{name, ok, seconds, details, error?}]}, as scenario.js's.
async (options = {}, { now, waitFor }) => {
  const opt = { liveTimeout: 60, followTimeout: 3, ...options };
  const report = { engine: { userAgent: navigator.userAgent }, steps: [] };

  async function step(name, body) {
    const entry = { name, ok: false, seconds: null, details: {} };
    report.steps.push(entry);
    const t = now();
    if (report.steps.some((s) => s !== entry && !s.ok)) { entry.error = "not run: a step before failed"; return; }
    try { await body(entry.details); entry.ok = true; } catch (e) { entry.error = String(e && e.message || e); }
    entry.seconds = Math.round(now() - t) / 1000;
  }

  const hall = () => window.deck.hall;
  const here = () => { const i = window.deck.reveal.getIndices(); return [i.h, i.v || 0, i.f ?? -1]; };
  const same = (a, b) => a.every((x, k) => x === b[k]);
  let seq = 0;

  /** The presenter's move, as its page sends it (live.js publish). */
  async function present([indexh, indexv, indexf]) {
    seq = Math.max(Date.now(), seq + 1);
    const response = await fetch("_hall/state", {
      method: "POST",
      headers: { Authorization: `Bearer ${opt.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ seq, indexh, indexv, indexf }),
    });
    if (!response.ok) throw new Error(`the hall refused the presenter's move: ${response.status}`);
  }

  await step("live", async (d) => {
    await waitFor("the hall's stream", () => window.deck && hall() && hall().state === "live", opt.liveTimeout);
    d.devices = hall().devices;
    d.following = hall().following;
    if (hall().presenter || !hall().following) throw new Error(`a new audience page ${JSON.stringify(d)}`);
  });

  await step("follow", async (d) => {
    d.lagsMs = [];
    for (const target of opt.targets) {
      const t = now();
      await present(target);
      await waitFor(`slide ${JSON.stringify(target)} (at ${JSON.stringify(here())})`, () => same(here(), target),
                    opt.followTimeout);
      d.lagsMs.push(Math.round(now() - t));
    }
  });

  await step("pause-and-return", async (d) => {
    const last = opt.targets[opt.targets.length - 1];
    window.deck.reveal.next();
    await waitFor("following to pause", () => hall().following === false, opt.followTimeout);
    const back = document.querySelector("#hall-status .hall-return");
    d.button = back && !back.hidden ? back.textContent : null;
    const number = window.deck.reveal.getSlides().indexOf(window.deck.reveal.getSlide(last[0], last[1])) + 1;
    const at = window.deck.reveal.getIndices();
    // a step to the next fragment of the same slide: the presenter is behind, on this slide
    const expected = at.h === last[0] && (at.v ?? 0) === (last[1] ?? 0)
      ? "Volver con el profesor (más atrás en esta diapositiva)"
      : `Volver con el profesor (diapositiva ${number})`;
    if (d.button !== expected) throw new Error(`the way back: ${d.button}`);
    back.click();
    await waitFor("the presenter's slide again", () => same(here(), last) && hall().following, opt.followTimeout);
  });
  return report;
}
