// The printed deck (`build.py pdf`, reveal.js's ?print-pdf): what a page of paper shows instead
// of what a screen does. A poll prints its question, its rule and the result of its «Simular una
// sala» cell (a hall simulated in the browser, computed by the pre-run); the time and duration
// of each run are left out (deck.css). `build.py pdf --solutions` then loads each exercise's
// solution into its editor and runs it judged (dpdeck/serve/pdf.py), and `--notes` asks reveal.js
// for the speaker notes on a page of their own (?showNotes=separate-page).

import { paintPending } from "./static-code.js";

/** Open every poll's simulated hall, so that the pre-run's figure is on the page; every cell's
 *  code highlighted (static-code.js highlights when the page is idle). */
export function preparePrint() {
  paintPending();
  for (const lab of /** @type {NodeListOf<HTMLDetailsElement>} */ (document.querySelectorAll("details.poll-lab"))) {
    lab.open = true;
  }
}
