"""static/js type-checks: `tsc` (checkJs, noEmit) over the page's modules (tsconfig.json, DOM)
and the worker's (tsconfig.worker.json, WebWorker), against the typedefs of static/js/shared/types.js
and the minimal ambient types of static/js/page/ambient.d.ts, both with strictNullChecks (a value
that may be missing is checked before use). Each `switch` over a message union ends in
`assertNever` (static/js/shared/never.js), so these checks also prove that runtime.js and worker.js
handle every message type of `FromWorker` and `ToWorker`. TypeScript is a devDependency
(package.json), installed by `npm ci` (scripts/setup.sh)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"


@pytest.mark.parametrize("project", ["tsconfig.json", "tsconfig.worker.json"])
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


def _probe_errors(tmp_path, probe):
    """tsc over ``probe`` with the page's config: its error lines about the probe, and the run."""
    config = tmp_path / "tsconfig.json"
    config.write_text(
        f'{{"extends": "{ROOT / "tsconfig.json"}", "include": ["{probe}", "{ROOT / "static/js/page/ambient.d.ts"}"]}}'
    )
    done = subprocess.run(
        [shutil.which("node"), str(TSC), "-p", str(config), "--pretty", "false"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in done.stdout.splitlines() if "probe.js" in line and "error TS" in line]
    return errors, done


def test_tsc_refuses_a_hall_post_that_the_wire_does_not_declare(tmp_path):
    """live.js's ``post`` takes the route's name and its body as ``HallPosts`` (generated from
    dpdeck/wire/hall.py) says: a body without a declared field, with a field of another type,
    or to a route the hall does not have, is a type error, found before the page runs."""
    if not TSC.exists() or shutil.which("node") is None:
        pytest.skip("needs node and typescript (scripts/setup.sh installs them)")
    probe = tmp_path / "probe.js"
    probe.write_text(
        f'import {{ Hall }} from "{ROOT / "static/js/page/live.js"}";\n'
        "/** @param {Hall} hall */\n"
        "export async function probe(hall) {\n"
        '  await hall.post("answer", { token: "t", poll: "p", answer: 1 });\n'
        '  await hall.post("answer", { token: "t", poll: "p" });\n'
        '  await hall.post("solved", { token: "t", exercise: 3 });\n'
        '  await hall.post("vote", { poll: "p" });\n'
        "}\n",
        encoding="utf-8",
    )
    errors, done = _probe_errors(tmp_path, probe)
    assert [line.split("(")[1].split(",")[0] for line in errors] == ["5", "6", "7"], done.stdout


def test_tsc_refuses_a_hall_url_or_result_that_the_wire_does_not_declare(tmp_path):
    """wire.js (generated from dpdeck/wire/hall.py) types the page's every call of the hall:
    a route it does not declare, a query field of another route, or a result the route never
    answers is a type error (issue 48, item 4)."""
    if not TSC.exists() or shutil.which("node") is None:
        pytest.skip("needs node and typescript (scripts/setup.sh installs them)")
    probe = tmp_path / "probe.js"
    probe.write_text(
        f'import {{ hallUrl, resultOf }} from "{ROOT / "static/js/page/wire.js"}";\n'
        "export function probe() {\n"
        '  hallUrl("/", "events", { device: "d" });\n'
        '  hallUrl("/", "vote");\n'
        '  hallUrl("/", "events", { poll: "p" });\n'
        '  return resultOf("answer", 201) === "duplicate" || resultOf("reset", 204) === "duplicate";\n'
        "}\n",
        encoding="utf-8",
    )
    errors, done = _probe_errors(tmp_path, probe)
    assert [line.split("(")[1].split(",")[0] for line in errors] == ["4", "5", "6"], done.stdout
