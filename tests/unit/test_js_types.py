"""static/js type-checks: `tsc` (checkJs, noEmit) over the page's modules (tsconfig.json, DOM)
and the worker's (tsconfig.worker.json, WebWorker), against the typedefs of static/js/types.js
and the minimal ambient types of static/js/ambient.d.ts; and with strictNullChecks over every
module but the live hall's six (tsconfig.strict.json) and over the worker's. Each `switch` over a message union ends in
`assertNever` (static/js/never.js), so these checks also prove that runtime.js and worker.js
handle every message type of `FromWorker` and `ToWorker`. TypeScript is a devDependency
(package.json), installed by `npm ci` (scripts/setup.sh)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"


@pytest.mark.parametrize("project", ["tsconfig.json", "tsconfig.worker.json", "tsconfig.strict.json"])
def test_static_js_type_checks(project: str):
    if not TSC.exists():
        pytest.skip("node_modules lacks typescript: run `npm ci` (scripts/setup.sh does)")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, str(TSC), "-p", project, "--pretty", "false"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and "error TS" not in errors, f"tsc -p {project}:\n{errors}"
