#!/usr/bin/env python3
"""Start-up and run-speed benchmark: the live deck against a bare Pyodide page, and CPython.

    python bench/startup.py [--profile aula local] [--reps N] [--compare OLD.json] [--out FILE]

One run, served from localhost (dpdeck.serve.server: COOP/COEP, immutable /vendor/ and /static-*/,
precompressed files negotiated), headless Debian Chromium driven by Playwright, under each
--profile of conditions in turn (bench/profiles.py: aula, a hall's Wi-Fi and a slow laptop;
local):

- baseline: bench/baseline.html, a bare page served from the same dist files whose module
  worker does loadPyodide -> loadPackage(numpy) -> loadPackage(matplotlib) -> one small figure as
  SVG (bench/baseline-worker.js);
- deck: the built deck; bench/instrument.js (an init script) timestamps the Python worker's
  messages and presses Run on every cell in deck order as soon as the page is ready;
- each of baseline and deck cold (a new profile: fresh user-data-dir) and warm (the same profile
  launched again: the HTTP cache, and the wasm code cache, are used), --reps times; the deck
  a third time too (its service worker serves from its own cache from then on), and last with
  the network off (offline: every cell must run from the service worker's cache);
- bytes per file type and per wheel, counted by the server as sent (compressed or not);
- the deck's prelude and cells under CPython through pyodide_pkg/cellrunner, in a fresh process
  per repetition, for the browser/CPython ratio of the cells' own run time.

Prints, per profile, the README's table and the details behind it, then the hall's targets
(bench/hall.py), and writes a summary (no raw traces) as
JSON to bench/results/startup-<date>.json (--out to choose). Investigations that go deeper (the
browser's threads, the matplotlib probe, a module-by-module visit) are in bench/diagnose/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# import bench's modules as bench.*, never by their bare names from the script's folder
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != HERE]


def require_extras() -> None:
    """The benchmark drives a browser and runs the cells under CPython: say what to install
    when the test extras are missing (after `scripts/serve.sh` alone, say)."""
    import importlib.util

    missing = [
        m for m in ("playwright", "numpy", "matplotlib", "jinja2") if importlib.util.find_spec(m) is None
    ]
    if missing:
        venv = ROOT / ".venv" / "bin" / "python"
        raise SystemExit(
            f"error: {sys.executable} lacks {', '.join(missing)}: the benchmark needs the test "
            "extras. Run\n    scripts/setup.sh\nthen\n"
            f"    {venv if venv.exists() else '.venv/bin/python'} bench/startup.py"
        )


if __name__ == "__main__":
    require_extras()

from bench import hall, milestones, phone, prepare, stats, table  # noqa: E402
from bench.cpython import pyodide_libs_python, run_cpython  # noqa: E402
from bench.profiles import PROFILES  # noqa: E402
from bench.session import (  # noqa: E402
    add_common_args,
    chromium_version,
    profile_names,
    session,
    visit_note,
)
from dpdeck.build.pyodide_dist import cache_dir  # noqa: E402

RESULTS = HERE / "results"
# run after every cell in the deck's warm visits: which top-level modules got imported
DIAG_CODE = "import sys\nsorted({m.split('.')[0] for m in sys.modules})"


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(ap, profiles=("aula", "local"))
    ap.add_argument("--compare", type=Path, help="an earlier results JSON to compare with")
    ap.add_argument(
        "--out", type=Path, help="where to write the JSON (default bench/results/startup-<date>.json)"
    )
    ap.add_argument(
        "--no-third",
        action="store_true",
        help="skip the deck's third visit (its service worker, if any, serves from its "
        "own cache only from the third visit on)",
    )
    ap.add_argument(
        "--no-offline",
        action="store_true",
        help="skip the deck's last visit with the network off (the offline target)",
    )
    ap.add_argument(
        "--report",
        type=Path,
        metavar="RESULTS.json",
        help="print the table of an earlier run again (with --compare: compare them)",
    )
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    return args


def git_describe() -> str:
    def git(*cmd):
        return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True).stdout

    try:
        return git("rev-parse", "--short", "HEAD").strip() + (
            "+dirty" if git("status", "--porcelain").strip() else ""
        )
    except OSError:
        return "?"


def make_meta(s, cpython: list[dict]) -> dict:
    return {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "chromium": chromium_version(),
        "pyodide": s.lock["info"]["version"],
        "cores": os.cpu_count(),
        "deck_title": s.config.get("deckId"),
        "cells": len(cpython[0]["cells"]),
        "static": s.config["assets"]["static"].rstrip("/"),
        "git": git_describe(),
        "machine": platform.platform(),
        "python": platform.python_version(),
        "niceness": os.nice(0),
        "deck_query": s.args.deck_query,
        "profile": s.browser.profile.name,
        "reps": s.args.reps,
        "before": s.args.before,
        "before_query": s.args.before_query,
        "next_pyodide": s.args.next_pyodide or None,
        "load_average": os.getloadavg(),
    }


def visit_kinds(target: str, args) -> tuple[str, ...]:
    """The baselines and the deck before: cold, warm. The deck: cold, warm, third, then offline
    (the network off from before navigation: what its service worker cached in the visits
    before)."""
    if target != "deck":
        return ("cold", "warm")
    return (
        ("cold", "warm") + (() if args.no_third else ("third",)) + (() if args.no_offline else ("offline",))
    )


def visit_target(s, target: str, rep: int, results: dict) -> None:
    """Cold, warm (and third) visits of one target on one new browser profile."""
    folder = s.folder(f"{target}-{rep}")
    for kind in visit_kinds(target, s.args):
        print(f"rep {rep + 1}/{s.args.reps}: {target} {kind}…", end=" ", flush=True)
        if target in ("baseline", "next"):
            v = s.browser.visit(folder, s.base_url if target == "baseline" else s.next_url, s.log)
        else:
            cfg = {
                "mode": "presenter",
                "timeoutMs": s.timeout_ms,
                "diag": DIAG_CODE if kind == "warm" else "",
            }
            url = s.deck_url if target == "deck" else s.before_url
            v = s.browser.visit(folder, url, s.log, cfg, offline=kind == "offline")
        results[target][kind].append(v)
        print(visit_note(v), flush=True)


def measure_all(s) -> dict:
    """Each profile in turn (the same build, server and CPython runs): profile → raw results."""
    print(f"CPython: prelude and cells, {s.args.reps}× in fresh processes…", flush=True)
    cpython = run_cpython(s.snap, s.args.reps)
    python, label = pyodide_libs_python(s.lock, cache_dir())
    if python:
        print(f"CPython with Pyodide's libraries ({label}): the same, {s.args.reps}×…", flush=True)
    else:
        print(f"warning: {label}; the cells are compared with this CPython only", flush=True)
    same_libs = run_cpython(s.snap, s.args.reps, python=python) if python else []
    runs = {}
    for name in profile_names(s.args):
        s.browser.profile = PROFILES[name]
        print(f"profile {name}: {s.browser.profile.description}", flush=True)
        runs[name] = measure(s, cpython, same_libs)
        if s.args.before or s.args.before_query:  # the deck before, against the same baseline visits
            what = " ".join(
                f"{w}" for w in (s.args.before, s.args.before_query and f"?{s.args.before_query}") if w
            )
            meta = runs[name]["meta"] | {"profile": f"{name}, the deck before ({what})"}
            runs[f"{name}:before"] = runs[name] | {"deck": runs[name].pop("before"), "meta": meta}
    return runs


def measure(s, cpython: list[dict], same_libs: list[dict]) -> dict:
    """Every visit of one profile: the raw results (``same_libs``: CPython's runs with Pyodide's
    numpy and matplotlib, or none)."""
    results = {
        "meta": make_meta(s, cpython),
        "cpython": cpython,
        "cpython_pyodide_libs": same_libs,
        "lock_imports": milestones.lock_imports(s.lock),
        "worker_regex": prepare.worker_regex(s.site, s.config),
        "baseline": {"cold": [], "warm": []},
        "deck": {"cold": [], "warm": [], "third": [], "offline": []},
        "before": {"cold": [], "warm": []},
        "next": {"cold": [], "warm": []},
    }
    targets = (
        ["baseline", "deck"]
        + (["before"] if s.args.before or s.args.before_query else [])
        + (["next"] if s.args.next_pyodide else [])
    )
    for rep in range(s.args.reps):
        # alternate the order, so neither side always runs on a machine warmed by the other
        for target in targets if rep % 2 == 0 else targets[::-1]:
            visit_target(s, target, rep, results)
    if not (s.args.before or s.args.before_query):
        del results["before"]
    results["meta"]["elapsed_s"] = round(time.time() - s.started, 1)
    return results


def rounded(x):
    """Floats to 4 decimals (ms and s alike): exact enough, and small."""
    if isinstance(x, float):
        return round(x, 4)
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded(v) for v in x]
    return x


KEPT = ("summary", "verdicts", "cells", "sums", "wheels", "offline", "visits")


def summaries(doc: dict) -> dict:
    """profile → flat summary, of a results JSON of one profile (older runs) or of several."""
    if "profiles" in doc:
        return {p: d["summary"] for p, d in doc["profiles"].items()}
    return {doc["meta"].get("profile", "local"): doc["summary"]}


def comparisons(new: dict, old_path: Path) -> str:
    """Per profile both runs measured, the metric-by-metric change."""
    old = summaries(json.loads(old_path.read_text()))
    return "\n".join(
        table.comparison(s, old[p], f"{old_path} ({p})") for p, s in summaries(new).items() if p in old
    )


def report(runs: dict, out: Path | None, compare_with: Path | None) -> None:
    """Print the tables of each profile, the hall's targets (and the comparison); write the
    summaries and the tables as JSON. ``runs``: profile → raw results (or one raw result)."""
    if "meta" in runs:
        runs = {runs["meta"].get("profile", "local"): runs}
    docs = {p: stats.summarize(r) for p, r in runs.items()}
    hall_verdicts = hall.verdicts({p: d for p, d in docs.items() if ":" not in p})
    before = {p.split(":")[0]: d for p, d in docs.items() if p.endswith(":before")}
    if before:
        hall_verdicts["before"] = hall.verdicts(before)
    nxt = hall.next_pyodide({p: d for p, d in docs.items() if ":" not in p}, s_next(runs))
    if nxt:
        hall_verdicts["next_pyodide"] = nxt
    text = table.render_profiles(
        {p: (docs[p], r["meta"], r["cpython"][0] if r["cpython"] else {}) for p, r in runs.items()},
        hall_verdicts,
    )
    phone_verdicts = phone.verdicts(docs.get("phone"))
    if phone_verdicts:
        text += "\n" + phone.measures(docs.get("phone")) + "\n" + phone.render(phone_verdicts)
    for name in [p for p in docs if p.startswith("phone:")]:  # A/B: the other side too
        text += f"\n\n# {runs[name]['meta']['profile']}\n" + phone.measures(docs[name])
        text += "\n" + phone.render(phone.verdicts(docs[name], runs[name]["meta"]["profile"]))
    elapsed = max(r["meta"].get("elapsed_s", 0) for r in runs.values())
    text += f"\n\n(benchmark ran {elapsed:.0f} s)"
    payload = {
        "meta": next(iter(runs.values()))["meta"],
        "profiles": {p: {"meta": runs[p]["meta"]} | {k: docs[p][k] for k in KEPT} for p in runs},
        "hall": hall_verdicts,
    } | ({"phone": phone_verdicts} if phone_verdicts else {})
    if compare_with:
        text += "\n" + comparisons(payload, compare_with)
    print(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rounded(payload | {"table": text}), ensure_ascii=False, indent=1) + "\n")
        print(f"\nwrote {out}")


def s_next(runs: dict) -> str | None:
    """The newer Pyodide's version the run measured, if any."""
    return next((r["meta"].get("next_pyodide") for r in runs.values() if r["meta"].get("next_pyodide")), None)


def reprint(path: Path, compare_with: Path | None) -> None:
    """An earlier run's table again (and, with --compare, against another run)."""
    doc = json.loads(path.read_text())
    print(doc["table"])
    if compare_with:
        print(comparisons(doc, compare_with))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        reprint(args.report, args.compare)
        return 0
    with session(args) as s:
        runs = measure_all(s)
    out = args.out or RESULTS / f"startup-{dt.date.today().isoformat()}.json"
    report(runs, out, args.compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
