"""The Firefox the pinned puppeteer-core drives (tests/browser/engines/drivers.py, FIREFOX_MIN):
scripts/setup.sh --test installed firefox-esr only when missing, and an ESR 140.12 already there
failed 3 engine tests (issue 48, item 13). An older one is now named, with what to run."""

from __future__ import annotations

import subprocess

from tests.browser.engines import drivers
from tests.support.paths import ROOT


def _firefox(tmp_path, said: str) -> str:
    binary = tmp_path / "firefox"
    binary.write_text(f"#!/bin/sh\necho '{said}'\n")
    binary.chmod(0o755)
    return str(binary)


def test_an_older_firefox_is_named_with_what_to_run(tmp_path, monkeypatch):
    old = _firefox(tmp_path, "Mozilla Firefox 140.12.0esr")
    assert drivers.firefox_major(old) == 140
    monkeypatch.setattr(drivers, "FIREFOX", old)
    (said,) = [x for x in drivers.missing("firefox") if "Firefox ≥" in x]
    assert f"Firefox ≥ {drivers.FIREFOX_MIN} for the pinned puppeteer-core: {old} is 140" in said
    assert "bash scripts/setup.sh --test upgrades firefox-esr" in said


def test_a_recent_firefox_is_enough(tmp_path, monkeypatch):
    monkeypatch.setattr(
        drivers, "FIREFOX", _firefox(tmp_path, f"Mozilla Firefox {drivers.FIREFOX_MIN}.8.0esr")
    )
    assert not [x for x in drivers.missing("firefox") if "Firefox" in x]
    assert drivers.firefox_major(str(tmp_path / "absent")) is None


def test_setup_reads_the_same_minimum_and_upgrades_below_it():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    (line,) = [x.strip() for x in setup.splitlines() if x.strip().startswith("firefox_min=$(")]
    done = subprocess.run(
        ["bash", "-c", f"{line}; echo $firefox_min"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.strip() == str(drivers.FIREFOX_MIN)
    assert "(( $(firefox_major) < firefox_min ))" in setup and "need+=(firefox-esr)" in setup
