"""The page's pure JS modules (scheduler, watchdog, follow, provenance, pool…) under node's built-in
test runner: thousands of seeded random interleavings of runs, stops, cancels, restarts and
matplotlib's load. Each ``tests/js/*.test.mjs`` file is an item of its own (issue 48, item 16):
a failure names its file, and the others still run."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

FILES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "js").glob("*.test.mjs"))


def test_every_node_test_file_is_collected():
    assert len(FILES) >= 20, FILES


@pytest.mark.parametrize("path", FILES)
def test_node_model_tests_pass(path):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js ≥ 20) is needed for the JS model tests")
    done = subprocess.run([node, "--test", path], cwd=ROOT, capture_output=True, text=True, timeout=300)
    summary = [line for line in done.stdout.splitlines() if "interleavings" in line or line.startswith("# ")]
    print("\n".join(summary))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# pass 0\n" not in done.stdout, "the file ran no test"
