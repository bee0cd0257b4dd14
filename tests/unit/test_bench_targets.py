"""bench/targets.py: a target held, missed, or missed and bounded by the runtime (with its
margin and its reason), and how bench/hall.py, bench/stats.py and bench/table.py use it for P2,
P4 and the cells against CPython."""

from __future__ import annotations

import json
from pathlib import Path

from bench import hall, stats, table, targets
from tests.support import bench_fakes as fakes

ROOT = Path(__file__).resolve().parents[2]


def doc(**medians) -> dict:
    return {"summary": {k.replace("__", "."): {"median": v} for k, v in medians.items()}, "offline": []}


def test_only_a_missed_target_is_bounded_and_its_margin_stays():
    missed = targets.bounded({"ok": False, "detail": "6.51 s (+0.99 s)"}, "the runtime")
    assert targets.status(missed) == "bounded" and targets.word(missed) == "BOUNDED"
    assert missed["ok"] is False and missed["detail"] == "6.51 s (+0.99 s)"  # still not held
    held = targets.bounded({"ok": True, "detail": "(-0.10 s)"}, "the runtime")
    assert "bounded" not in held and targets.status(held) == "held" and targets.word(held) == "HOLDS"
    unmeasured = targets.bounded({"ok": None, "detail": "not measured"}, "the runtime")
    assert targets.status(unmeasured) == "n/a" and targets.word(unmeasured).strip() == "n/a"
    assert targets.status({"ok": False, "detail": "x"}) == "missed"  # an older result: no mark


def test_a_bounded_line_gives_the_margin_then_the_reason():
    text = targets.line("P2", targets.bounded({"ok": False, "detail": "+0.99 s"}, "a snapshot"), "first cell")
    first, second = text.split("\n")
    assert first == "  (P2) BOUNDED  first cell: +0.99 s"
    assert second.strip() == "bounded by the runtime: a snapshot"
    assert (
        targets.line("P1", {"ok": False, "detail": "+0.12 s"}, "page ready")
        == "  (P1) MISSES  page ready: +0.12 s"
    )


def test_p2_and_p4_missed_are_bounded_by_the_snapshot_and_p1_is_plainly_missed():
    v = hall.verdicts(
        {
            "aula": doc(deck__cold__first_cell=6.51, deck__cold__core_ready=5.02, deck__cold__deck_ready=3.2),
            "local": doc(
                deck__warm__first_figure=4.08, deck__cold__first_figure=4.69, deck__cold__deck_ready=0.7
            ),
        }
    )
    assert targets.status(v["P2"]) == "bounded" and "(+0.99 s)" in v["P2"]["detail"]
    assert targets.status(v["P4"]) == "bounded" and "0.87×" in v["P4"]["detail"]
    assert v["P2"]["bounded"] == v["P4"]["bounded"] == targets.RUNTIME_BOUNDS["snapshot"]
    assert targets.status(v["P1"]) == "missed"  # page ready is the page's own work
    held = hall.verdicts({"aula": doc(deck__cold__first_cell=5.4, deck__cold__core_ready=5.02)})["P2"]
    assert targets.status(held) == "held"


def test_the_cells_against_cpython_missed_are_bounded_by_simd():
    r = fakes.results(1)
    r["cpython"][0]["cells"] = [dict(c, seconds=c["seconds"] / 10) for c in r["cpython"][0]["cells"]]
    d = stats.summarize(r)
    v = d["verdicts"][5]
    assert targets.status(v) == "bounded" and v["bounded"] == targets.RUNTIME_BOUNDS["simd"]
    assert "× cold" in v["detail"]  # the ratio, the margin, as measured
    text = table.render(d, r["meta"], r["cpython"][0])
    assert "(5) BOUNDED  cells in the browser within 2.0× of CPython" in text
    assert "bounded by the runtime: numpy in Pyodide" in text
    json.dumps(d["verdicts"], default=str)


def test_the_hall_table_prints_bounded_and_the_before_run_s_status():
    v = hall.verdicts({"aula": doc(deck__cold__first_cell=6.51, deck__cold__core_ready=5.02)})
    v["before"] = hall.verdicts({"aula": doc(deck__cold__first_cell=6.42, deck__cold__core_ready=4.97)})
    t = table.Table()
    table.hall_targets(t, v)
    text = str(t)
    assert "(P2) BOUNDED  aula: cold first cell result" in text and "pyodide/pyodide#5195" in text
    assert "before: bounded: first cell result after core ready: 6.42 s" in text


def test_the_bounds_name_the_pyodide_the_deck_ships_and_their_upstream_issues():
    shipped = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    assert targets.PYODIDE == shipped, (
        "a new Pyodide: check whether its bounds still hold (docs/benchmark.md)"
    )
    assert "pyodide/pyodide#5195" in targets.RUNTIME_BOUNDS["snapshot"]
    assert "pyodide/pyodide#3646" in targets.RUNTIME_BOUNDS["simd"]
    bench_doc = (ROOT / "docs" / "benchmark.md").read_text()
    for issue in (
        "pyodide/pyodide/issues/5195",
        "pyodide/pyodide/issues/6418",
        "pyodide/pyodide/issues/3646",
    ):
        assert issue in bench_doc
