"""The tree passes its linters: ruff (format and lint, pyproject.toml's [tool.ruff]) over the
Python, ESLint (eslint.config.mjs) over the JavaScript. The type check is test_js_types.py.

ruff comes with the test extras (scripts/setup.sh installs them), ESLint from package.json's
devDependencies (`npm ci`). On a machine without them the tests skip, except under CI (the
environment variable CI set), where a missing linter is a failure: CI must not pass unlinted.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
ESLINT_PATHS = [
    "static/js",
    "tests/js",
    "dpdeck",
    "tests/browser/engines",
    "bench",
    "eslint.config.mjs",
]


def missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing under CI: scripts/setup.sh --test installs it")
    pytest.skip(f"{what} is missing: run scripts/setup.sh --test")


def ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        missing("ruff")
    return [exe]


def run(cmd: list, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_python_is_formatted():
    done = run(ruff() + ["format", "--check", "--diff", "."])
    assert done.returncode == 0, "run `ruff format .`:\n" + (done.stdout + done.stderr)[-4000:]


def test_python_passes_ruff_lint():
    done = run(ruff() + ["check", "--output-format", "concise", "."])
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def test_javascript_passes_eslint():
    node = shutil.which("node")
    if node is None or not ESLINT.exists():
        missing("ESLint (node_modules/eslint, from `npm ci`)")
    done = run([node, ESLINT, "--max-warnings", "0", *ESLINT_PATHS])
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


SCREEN = 80  # lines: a laptop's editor at a readable size, the deck's largest bodies are ~77
SKIP_DIRS = {".venv", "node_modules", "dist", "dist-pdf", ".git"}


def body_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body, from its first statement after the docstring to its end."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    return 0 if not body else body[-1].end_lineno - body[0].lineno + 1


def test_python_functions_fit_on_one_screen():
    """Docstrings may be long (they state the guarantee); the code under them may not. The JS
    side has the same limit as ESLint's max-lines-per-function (eslint.config.mjs)."""
    long = []
    for path in sorted(ROOT.rglob("*.py")):
        if SKIP_DIRS & set(path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and body_lines(node) > SCREEN:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({body_lines(node)} lines)")
    assert not long, f"split these (more than {SCREEN} lines of code):\n" + "\n".join(long)
