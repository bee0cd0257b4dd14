#!/usr/bin/env python3
"""Does a profile's network throttling reach the Python worker's fetches?

    python bench/diagnose/throttle.py [--profile aula]

One cold bare-Pyodide visit under the profile. The wasm, the stdlib and the wheels are fetched
by the page's dedicated worker, not by the page: if the page's network emulation did not apply
to the worker, they would arrive at localhost speed. The counting server sees how long each
large response took to leave it (the browser reads a throttled response only as fast as the
emulated link allows, so the server's send time follows it, less the sockets' buffers); this
prints, per file over 5 MB, that time against the time the profile's bandwidth needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.diagnose.common import parser, timed_visit  # noqa: E402
from bench.profiles import PROFILES  # noqa: E402
from bench.session import session  # noqa: E402

LARGE = 5_000_000  # smaller responses fit in the sockets' buffers: sent at once whatever the link


def throttled_share(entries: list[dict], down_bytes_per_s: float) -> list[tuple[str, int, float, float]]:
    """Per large response: (path, bytes, seconds it took to send, seconds the bandwidth needs)."""
    return [
        (e["path"], e["bytes"], e["t1"] - e["t0"], e["bytes"] / down_bytes_per_s)
        for e in entries
        if (e["bytes"] or 0) >= LARGE
    ]


def main(argv=None) -> int:
    args = parser(__doc__).parse_args(argv)
    profile = PROFILES[args.profile]
    with session(args) as s:
        v = timed_visit(s, f"baseline cold under {profile.name}", s.folder("throttle"), s.base_url)
    rate = profile.down_bytes_per_s or float("inf")
    rows = throttled_share(v["server"], rate)
    print(f"\n{'file':60} {'MB':>6} {'sent in':>8} {'link needs':>10}")
    for path, size, took, needs in rows:
        print(f"{path[-60:]:60} {size / 1e6:6.1f} {took:7.2f}s {needs:9.2f}s")
    marks = v.get("marks", {})
    print(
        f"\ncore ready {marks.get('core-ready', 0) / 1000:.2f} s, "
        f"numpy ready {marks.get('numpy-ready', 0) / 1000:.2f} s"
    )
    slow = [r for r in rows if r[2] >= 0.5 * r[3]]
    verdict = "throttled" if rows and len(slow) == len(rows) else "NOT throttled (all or some)"
    print(f"worker fetches: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
