"""The order the suite's files are handed to pytest-xdist's workers: the longest first.

``scripts/test.sh`` gives each worker whole files (``--dist loadfile``) in the order collected
(``--no-loadscope-reorder``: xdist's default would put the files with the most tests first,
which are the quick unit files, and leave a six-minute browser file for the end of one worker).
Handing out the longest files first (LPT) leaves only short files for the end, so the two
workers finish close together. A file's length is what ``tests/file_seconds.json`` recorded
(seconds, one worker, setup included; ``python -m tests.support.file_order REPORT.xml`` writes
it from a ``--junitxml`` report); a file it does not name counts as its folder's default. The
order decides only which worker runs a file and when: every test still runs, once.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "tests" / "file_seconds.json"
# a file not yet measured: a browser file boots a deck (about a minute), a unit file is quick
DEFAULT_SECONDS = {"tests/browser": 60.0}
OTHER_SECONDS = 5.0


def recorded() -> dict[str, float]:
    """The table: a test file's path from the root → its seconds."""
    if not TABLE.exists():
        return {}
    return {str(k): float(v) for k, v in json.loads(TABLE.read_text(encoding="utf-8")).items()}


def seconds_of(path: str, table: dict[str, float]) -> float:
    """What ``path`` (a test file, from the root) is expected to take."""
    if path in table:
        return table[path]
    for folder, seconds in DEFAULT_SECONDS.items():
        if path.startswith(folder + "/"):
            return seconds
    return OTHER_SECONDS


def longest_first(items: list, table: dict[str, float]) -> list:
    """``items`` (pytest's, each with a ``nodeid``) grouped by file, the longest file first; a
    file's tests keep their order, and files of equal length keep theirs."""
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    ordered = sorted(files, key=lambda f: -seconds_of(f, table))  # stable: ties keep their order
    return [item for f in ordered for item in files[f]]


def from_junit(report: Path) -> dict[str, float]:
    """Each test file's seconds in a pytest ``--junitxml`` report (its test cases' times)."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "")
        # a class's tests: tests.browser.test_x.TestY → the module is the longest existing file
        parts = module.split(".")
        for end in range(len(parts), 0, -1):
            path = "/".join(parts[:end]) + ".py"
            if (ROOT / path).exists():
                seconds[path] += float(case.get("time", 0))
                break
    return dict(seconds)


if __name__ == "__main__":
    table = from_junit(Path(sys.argv[1]))
    TABLE.write_text(
        json.dumps({k: round(v, 1) for k, v in sorted(table.items())}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{TABLE.relative_to(ROOT)}: {len(table)} files, {sum(table.values()):.0f} s in all")
