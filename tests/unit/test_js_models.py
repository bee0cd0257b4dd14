"""The page's pure JS modules (scheduler, watchdog, follow) under node's built-in test runner: thousands
of seeded random interleavings of runs, stops, cancels, restarts and matplotlib's load."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def test_node_model_tests_pass(project_root):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js ≥ 18) is needed for the JS model tests")
    done = subprocess.run(
        [node, "--test", "tests/js/"], cwd=project_root, capture_output=True, text=True, timeout=300
    )
    summary = [line for line in done.stdout.splitlines() if "interleavings" in line or line.startswith("# ")]
    print("\n".join(summary))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
