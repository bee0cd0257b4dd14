"""What the diagnose scripts share: their options and a visit that says how it went."""

from __future__ import annotations

import argparse

from bench.session import add_common_args, visit_note


def parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    add_common_args(ap)
    ap.set_defaults(reps=1)
    return ap


def timed_visit(s, label: str, folder, url: str, cfg: dict | None = None, watch=None) -> dict:
    print(f"{label}…", end=" ", flush=True)
    v = s.browser.visit(folder, url, s.log, cfg, watch)
    print(visit_note(v), flush=True)
    return v
