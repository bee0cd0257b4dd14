"""mypy over dpdeck/ (pyproject.toml's [tool.mypy]): clean, strict over the hall's memory, and
able to fail: a back-end that breaks the Store protocol is an error (issue 48, item 7)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

from tests.support.paths import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _mypy(*args: str, config: str = "pyproject.toml") -> subprocess.CompletedProcess:
    # the cache beside the sources (.mypy_cache, ignored by git): the second run on is seconds;
    # MYPYPATH: this checkout's dpdeck, whatever the venv has installed
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", config, *args],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_mypy_finds_nothing_in_dpdeck():
    done = _mypy()
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_a_store_that_breaks_the_protocol_is_an_error(tmp_path):
    """A back-end whose method answers another type than ``Store`` declares, given where a
    Store is expected (as hall/run.py gives SqliteStore and RedisStore), is a type error."""
    program = (
        "from dpdeck.hall.store import SqliteStore, Store\n"
        "class Drifted(SqliteStore):\n"
        "    async def round(self, poll: str) -> str:\n"
        "        return 'one'\n"
        "store: Store = Drifted('hall.sqlite3')\n"
    )
    (tmp_path / "drifted.py").write_text(program, encoding="utf-8")
    done = _mypy(str(tmp_path / "drifted.py"))
    assert done.returncode == 1, done.stdout
    assert 'Incompatible types in assignment (expression has type "Drifted", variable has type "Store")' in (
        done.stdout
    )


def test_no_module_is_excused():
    """Issue 48, item 7: mypy runs clean over every module; none is excused (``ignore_errors``)
    nor has its errors silenced by a bare ``# type: ignore``."""
    assert [o["module"] for o in CONFIG["overrides"] if o.get("ignore_errors")] == []
    bare = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted((ROOT / "dpdeck").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"#\s*type:\s*ignore(?!\[)", line)
    ]
    assert bare == []
