"""What every benchmark script sets up: a snapshot built into a temporary folder, the baseline
beside it, the counting server, Playwright's Chromium under a profile; and their options."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import prepare
from bench.browser import Browser
from bench.profiles import PROFILES
from bench.server import RequestLog, start_server
from dpdeck.serve.browser import chromium_path


def add_common_args(ap: argparse.ArgumentParser, profiles: tuple[str, ...] = ("local",)) -> None:
    """The shared options; ``profiles``: the default --profile (several: the script measures
    each in turn, one after the other in the same run)."""
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each visit (default 3)")
    many = len(profiles) > 1
    ap.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        nargs="+" if many else None,
        default=list(profiles) if many else profiles[0],
        help=f"network and CPU conditions of the visits (default {' '.join(profiles)})",
    )
    ap.add_argument("--dist", type=Path, help="benchmark this built dist/ instead of building one")
    ap.add_argument("--timeout", type=float, default=180, help="seconds per visit (default 180)")
    ap.add_argument(
        "--quiet-wait",
        type=float,
        default=5,
        help="before each visit, wait up to this many seconds for other processes to "
        "leave the CPU (default 5; 0: don't)",
    )
    ap.add_argument(
        "--deck-query",
        metavar="QUERY",
        help="open the deck as index.html?QUERY (e.g. nosw: without its service worker)",
    )
    ap.add_argument(
        "--before",
        metavar="REF",
        help="also measure the deck as git commit REF has it (e.g. main), built the same way, "
        "cold and warm, beside this tree's: before and after in one run",
    )
    ap.add_argument(
        "--before-query",
        metavar="QUERY",
        help="also measure the deck opened as index.html?QUERY (without --before: this tree's) "
        "as the deck before, cold and warm: an A/B of a page option in one run (e.g. bootpackages)",
    )
    ap.add_argument(
        "--next-pyodide",
        metavar="VERSION",
        default="314.0.7",
        help="also time a newer bare Pyodide's core ready (npm pyodide@VERSION, installed into "
        "the benchmark's cache; default 314.0.7; '' skips it)",
    )
    ap.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run the benchmark and its browser at this niceness increment (e.g. -5 as "
        "root: other work on a shared machine then disturbs it less)",
    )


@dataclass
class Session:
    args: argparse.Namespace
    work: Path
    snap: Path
    site: Path
    config: dict
    lock: dict
    url: str
    log: RequestLog
    browser: Browser
    started: float

    @property
    def timeout_ms(self) -> int:
        return int(self.args.timeout * 1000)

    @property
    def base_url(self) -> str:
        return self.url + "bench-baseline/index.html"

    @property
    def deck_url(self) -> str:
        q = self.args.deck_query
        return self.url + "index.html" + (f"?{q}" if q else "")

    @property
    def before_url(self) -> str:
        """The deck as ``--before`` has it (built into ``before/``, a sub-path of the same site),
        or without it this tree's; opened with ``--before-query`` if given."""
        q = getattr(self.args, "before_query", None) or self.args.deck_query
        folder = "before/" if self.args.before else ""
        return self.url + folder + "index.html" + (f"?{q}" if q else "")

    @property
    def next_url(self) -> str:
        return self.url + f"bench-baseline-{self.args.next_pyodide}/index.html"

    def folder(self, name: str) -> Path:
        """A browser profile folder that does not exist yet: the next visit in it is cold."""
        path = self.work / f"profile-{name}"
        shutil.rmtree(path, ignore_errors=True)
        return path


def renice(increment: int) -> None:
    if increment:
        try:
            os.nice(increment)  # inherited by Playwright's driver and Chromium
        except OSError as exc:
            print(f"warning: --nice {increment} refused ({exc}); running at normal priority", file=sys.stderr)


def build(work: Path, args) -> tuple[Path, Path, dict, dict]:
    print("building the deck (a snapshot of deck/, static/, templates/, pyodide_pkg/)…", flush=True)
    snap = prepare.snapshot_project(work)
    try:
        site = prepare.build_site(snap, work / "site", args.dist)
    except Exception as exc:  # noqa: BLE001 - a DeckError or anything else: say it plainly
        raise SystemExit(f"error: the build failed: {exc}") from exc
    config = prepare.read_deck_config(site)
    prepare.install_baseline(site, config, int(args.timeout * 1000))
    if getattr(args, "before", None):
        print(f"building the deck as {args.before} has it (before)…", flush=True)
        prepare.build_site(prepare.snapshot_ref(work, args.before), site / "before", None)
    if getattr(args, "next_pyodide", None):
        prepare.install_next_pyodide(site, config, args.next_pyodide, int(args.timeout * 1000))
    return snap, site, config, prepare.read_lock(site, config)


@contextlib.contextmanager
def session(args):
    """Build, serve and open the browser; clean everything up afterwards."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit(
            "error: the benchmark needs the test extras (Playwright, numpy, matplotlib), which "
            "`scripts/serve.sh` alone does not install. Run\n"
            "    scripts/setup.sh\n"
            "(or: .venv/bin/pip install -e '.[test]'), then\n"
            "    .venv/bin/python bench/startup.py"
        ) from None

    renice(args.nice)
    started, work = time.time(), Path(tempfile.mkdtemp(prefix="dpdeck-bench-"))
    try:
        snap, site, config, lock = build(work, args)
        log = RequestLog()
        server, url = start_server(site, log)
        try:
            with sync_playwright() as pw:
                browser = Browser(
                    pw,
                    chromium_path(),
                    int(args.timeout * 1000),
                    args.quiet_wait,
                    PROFILES[profile_names(args)[0]],
                )
                yield Session(args, work, snap, site, config, lock, url, log, browser, started)
        finally:
            server.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def profile_names(args) -> list[str]:
    """The --profile value(s) as a list."""
    return list(args.profile) if isinstance(args.profile, (list, tuple)) else [args.profile]


def chromium_version() -> str:
    try:
        out = subprocess.run(
            [chromium_path() or "chromium", "--version"], capture_output=True, text=True, timeout=30
        ).stdout
        return out.strip().splitlines()[-1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "chromium ?"


def visit_note(v: dict) -> str:
    notes = [] if v.get("foreign_cores") is None else [f"other processes {v['foreign_cores']:.2f} cores"]
    notes += [str(v["error"])[:120]] if v.get("error") else []
    return f"{v['wall']:.1f} s" + (f" ({'; '.join(notes)})" if notes else "")
