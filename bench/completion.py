"""The editor's completion, timed (issue 22): what loading the engine costs, and the latency of
the first completion once it is loaded, under the ``local`` and ``aula`` profiles.

    .venv/bin/python -m bench.completion [--dist DIR] [--profiles local aula] [--repeat 5]

One fresh Chromium context a profile (a cold visit), the deck served cross-origin isolated from
127.0.0.1, opened with ``?noprerun`` so that Python is idle once ready. Measured in the page:

- ``engine``: from an editor's first focus (what loads jedi) to the first query jedi answers:
  the wheels' fetch, their sha256, unpacking, ``import jedi`` in a gap, and the warm-up queries
  queued before it (``np.``, ``census.``); and the bytes of the wheels (``config.editor.wheels``);
- ``first``: the first completion once loaded (``census.``, jedi over the live namespace), as
  the runtime's round trip, and as a person sees it: a "." typed → the list shows ``columns``;
- ``then``: the median round trip of ``--repeat`` further completions (``np.random.``,
  ``gaussian_m``, a keyword argument).

The full start-up bench (bench/startup.py) is not needed for this: completion starts after the
deck is up. Prints a table and writes bench/results/completion.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.profiles import PROFILES
from dpdeck.build.site import Project, build
from dpdeck.serve.browser import VIEWPORT, launch
from dpdeck.serve.server import serve_in_thread

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "completion.json"
QUERIES = [("np.random.", 1, 10), ("gaussian_m", 1, 10), ("laplace_mech(1, sensitivity=1, eps", 1, 34)]


def _wait(page, expression: str, timeout: float, arg=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = page.evaluate(expression, arg)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(expression)


ENGINE_JS = """async () => {
  const t = performance.now();
  const view = window.deck.cells[0].editor.view;
  view.focus();
  for (;;) {
    const r = await window.deck.runtime.query("complete", "np.ran", 1, 6, 10000);
    if (r && r.ready && r.answer) return performance.now() - t;
    await new Promise((ok) => setTimeout(ok, 50));
  }
}"""

ROUND_TRIP_JS = """async ([code, line, column]) => {
  const t = performance.now();
  const r = await window.deck.runtime.query("complete", code, line, column, 10000);
  return {ms: performance.now() - t, items: r && r.answer ? r.answer.items.length : -1};
}"""

TYPED_JS = """async () => {
  const cell = window.deck.cells[0];
  const view = cell.editor.view;
  cell.code = "census";
  view.focus();
  const end = view.state.doc.length;
  const t = performance.now();
  view.dispatch({changes: {from: end, insert: "."}, selection: {anchor: end + 1}, userEvent: "input.type"});
  for (;;) {
    const labels = [...cell.root.querySelectorAll(".cm-tooltip-autocomplete .cm-completionLabel")].map((e) => e.textContent);
    if (labels.includes("columns")) return performance.now() - t;
    if (performance.now() - t > 20000) return null;
    await new Promise((ok) => requestAnimationFrame(ok));
  }
}"""


def measure(browser, url: str, profile_name: str, repeat: int) -> dict:
    profile = PROFILES[profile_name]
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    profile.apply(context, page)
    try:
        page.goto(url + "?noprerun")
        _wait(page, "window.deck && ['ready'].includes(window.deck.runtime.state)", 300)
        wheels = page.evaluate("window.deck.config.editor.wheels.reduce((n, w) => n + w.bytes, 0)")
        engine_ms = page.evaluate(ENGINE_JS)
        first = page.evaluate(ROUND_TRIP_JS, ["census.", 1, 7])
        typed_ms = page.evaluate(TYPED_JS)
        rest = [page.evaluate(ROUND_TRIP_JS, list(QUERIES[i % len(QUERIES)]))["ms"] for i in range(repeat)]
    finally:
        context.close()
    return {
        "profile": profile_name,
        "wheelBytes": wheels,
        "engineLoadMs": round(engine_ms),
        "firstCompletionMs": round(first["ms"]),
        "firstCompletionItems": first["items"],
        "typedToListMs": None if typed_ms is None else round(typed_ms),
        "medianCompletionMs": round(statistics.median(rest)) if rest else None,
        "repeat": repeat,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, help="a built deck (default: build one into a temporary folder)")
    parser.add_argument("--profiles", nargs="+", default=["local", "aula"], choices=sorted(PROFILES))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-completion-") as scratch:
        dist = args.dist
        if dist is None:
            dist = Path(scratch) / "dist"
            build(Project(ROOT), dist=dist)
        server, url = serve_in_thread(dist, isolate=True)
        results = []
        try:
            with sync_playwright() as pw:
                browser = launch(pw)
                for name in args.profiles:
                    results.append(measure(browser, url, name, args.repeat))
                    print(json.dumps(results[-1]))
                browser.close()
        finally:
            server.shutdown()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1))
    print(f"\n{'profile':8} {'wheels':>8} {'engine load':>12} {'first':>7} {'typed→list':>11} {'median':>7}")
    for r in results:
        print(
            f"{r['profile']:8} {r['wheelBytes'] / 1e6:>6.2f}MB {r['engineLoadMs']:>10} ms "
            f"{r['firstCompletionMs']:>4} ms {r['typedToListMs']!s:>8} ms {r['medianCompletionMs']!s:>4} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
