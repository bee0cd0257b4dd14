#!/usr/bin/env python3
"""The page's cold start alone: navigation → page ready (deck.js publishes window.deck), this
tree's deck beside another commit's, alternating, in one run.

    python bench/diagnose/ready.py --before REF [--reps 8] [--profile local]

Each visit is cold (a new browser profile) and ends at page ready: no cell is run, and Python's
start is not waited for (bench/instrument.js, mode "page"). bench/startup.py's P1 is the same
moment within its full visits; this takes seconds per visit, so that a change to the page's
start can be compared with enough repetitions to see through the machine's noise.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.diagnose.common import parser  # noqa: E402
from bench.session import session  # noqa: E402


def main() -> int:
    ap = parser(__doc__)
    ap.set_defaults(reps=8, next_pyodide=None)
    args = ap.parse_args()
    if not args.before:
        ap.error("--before REF: the commit to compare with")
    ready: dict[str, list[float]] = {"this tree": [], args.before: []}
    with session(args) as s:
        targets = [("this tree", s.deck_url), (args.before, s.before_url)]
        for rep in range(args.reps):
            for name, url in targets if rep % 2 == 0 else targets[::-1]:
                folder = s.folder(f"{name.replace(' ', '-')}-{rep}")  # a new profile: cold
                v = s.browser.visit(folder, url, s.log, {"mode": "page", "timeoutMs": s.timeout_ms})
                at = v.get("marks", {}).get("deckReady")
                if at is None:
                    raise SystemExit(f"{name}, visit {rep + 1}: the page never got ready: {v.get('error')}")
                ready[name].append(at)
                print(f"visit {rep + 1}/{args.reps}, {name}: page ready at {at:.0f} ms", flush=True)
    print(f"\ncold page ready, {args.reps} visits each (profile {args.profile}); median [min–max]:")
    for name, values in ready.items():
        print(f"  {name:>12}: {statistics.median(values):6.0f} ms  [{min(values):.0f}–{max(values):.0f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
