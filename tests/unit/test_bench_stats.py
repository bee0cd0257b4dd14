"""The benchmark's computing (bench/milestones.py, bench/stats.py) on made-up visit reports."""

from __future__ import annotations

import json

import pytest

from bench import milestones, stats
from tests.support import bench_fakes as fakes


def test_stats_ignores_missing_values_and_gives_median_min_max():
    assert stats.stats([3.0, None, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3}
    assert stats.stats([None]) is None


def test_ratio_stat_pairs_repetitions_and_skips_a_zero_or_missing_denominator():
    r = stats.ratio_stat([2.0, 3.0, 5.0, None], [1.0, 0.0, 2.0, 4.0])
    assert r == {"median": 2.25, "min": 2.0, "max": 2.5, "n": 2}


@pytest.mark.parametrize(
    "path, kind",
    [
        ("/a/b.wasm", "wasm"),
        ("/x.mjs?v=1", "js"),
        ("/f.WOFF2", "font"),
        ("/p/numpy.whl", "whl"),
        ("/index.html", "other"),
    ],
)
def test_file_type(path, kind):
    assert milestones.file_type(path) == kind


def test_bytes_summary_counts_types_wheels_and_304s():
    log = fakes.server_log({"/a.wasm": 100, "/n-1.whl": 30, "/m-2.whl": 20, "/i.html": 5})
    log.append({"path": "/a.wasm", "status": 304, "bytes": 0, "t0": 0, "t1": 0})
    b = milestones.bytes_summary(log)
    assert (b["total"], b["by_type"]["wasm"], b["by_type"]["whl"]) == (155, 100, 50)
    assert b["wheels"] == {"n-1.whl": 30, "m-2.whl": 20}
    assert (b["requests"], b["not_modified"]) == (5, 1)


def test_deck_milestones_from_the_worker_messages():
    m = milestones.deck_milestones(fakes.deck_visit())
    assert (m["core_ready"], m["ready"], m["first_cell"]) == (1400, 1800, 2000)
    # the same statuses on the worker's clock, as bare Pyodide's marks are taken
    assert (m["core_ready_worker"], m["ready_worker"]) == (1300, 1750)
    assert (m["first_figure"], m["first_figure_cell"], m["all_done"]) == (3400, "c2", 3500)
    assert m["mpl_ready"] == 3000  # the drawing run, asked for long before it started
    assert [c["figures"] for c in m["cells"]] == [0, 1]


def test_all_done_is_unknown_while_a_cell_has_no_result():
    v = fakes.deck_visit()
    v["runs"][1]["result"] = None
    m = milestones.deck_milestones(v)
    assert m["all_done"] is None and m["cells"][1]["error"] == "no result"


def test_wheel_needs_asks_the_lock_then_the_wheels_name():
    rows = milestones.wheel_needs({"a-1.whl": ["alpha"]}, {"a-1.whl": 10, "b-2.whl": 20}, ["alpha"], None)
    assert [(r["wheel"], r["imported"], r["baseline_imported"]) for r in rows] == [
        ("b-2.whl", False, None),
        ("a-1.whl", True, None),
    ]


def test_summarize_gives_the_readme_medians_and_ratios():
    doc = stats.summarize(fakes.results(3))
    s = doc["summary"]
    assert s["baseline.cold.core"] == {"median": 2.2, "min": 2.0, "max": 2.4, "n": 3}
    assert s["deck.cold.first_figure"]["median"] == pytest.approx(3.74)
    assert s["deck.warm.ready"]["median"] == pytest.approx(0.72)
    assert s["ratio.cold.first_figure"]["median"] == pytest.approx(3400 / 5100)
    assert s["bytes.deck.cold.wasm"]["median"] == 9 << 20
    assert doc["warm_over_cold"]["deck.first_figure"]["median"] == pytest.approx(0.4 / 1.1)


def test_summarize_compares_cells_with_cpython_on_sums():
    sums = stats.summarize(fakes.results(3))["sums"]
    assert sums["median.cold"] == pytest.approx(0.7) and sums["median.cpython"] == 0.35
    assert sums["ratio_median.cold"] == pytest.approx(2.0) and sums["excluded"] == []


def test_a_cell_that_failed_somewhere_leaves_the_sums():
    r = fakes.results(1)
    r["cpython"][0]["cells"][1]["ok"] = False
    doc = stats.summarize(r)
    assert doc["sums"]["excluded"] == ["c2"] and doc["sums"]["median.cpython"] == 0.1
    assert any("c2 (CPython)" in f for f in doc["failures"])


def test_verdicts():
    v = stats.summarize(fakes.results(3))["verdicts"]
    assert v[1]["ok"] is True  # 3.74 s vs 5.61 s
    assert v[2]["ok"] is True  # warm 1.36 s ≤ 3.74 / 2
    assert v[3]["ok"] is None  # timing left to bench/diagnose/probe.py
    assert v[4] == {"ok": True, "detail": "all imported"}
    assert v[5]["ok"] is True and v[5]["detail"].startswith("2.00× cold")


def test_target_3_misses_when_the_worker_sends_a_numpy_cell_to_wait():
    r = fakes.results(1)
    r["worker_regex"] = r"zeros"
    v = stats.summarize(r)["verdicts"][3]
    assert v["ok"] is False and "c1" in v["detail"]


def test_target_4_names_an_unused_wheel():
    r = fakes.results(1)
    r["deck"]["warm"][0] = fakes.deck_visit(0.4, modules=["sys"])
    v = stats.summarize(r)["verdicts"][4]
    assert v["ok"] is False and "numpy" in v["detail"]


def test_the_document_is_json():
    # what the bench keeps is read back as it was written: only JSON's own kinds (no tuple, no
    # numpy number, no non-text key) and no NaN or infinity, which strict JSON readers refuse
    # (the verdicts are keyed by the target's number, which JSON keeps as text)
    doc = stats.summarize(fakes.results(2))
    kept = json.loads(json.dumps(doc, allow_nan=False))
    assert kept == doc | {"verdicts": {str(n): v for n, v in doc["verdicts"].items()}}
    assert doc["summary"] and doc["verdicts"] and doc["visits"]["deck"]


def _with_pyodide_libs(cpython_seconds, same_seconds, reps=3) -> dict:
    r = fakes.results(reps)
    r["cpython"] = [fakes.cpython_run(cpython_seconds) for _ in range(reps)]
    r["cpython_pyodide_libs"] = [fakes.cpython_run(same_seconds) for _ in range(reps)]
    return r


def test_the_cells_target_is_judged_like_for_like_and_shows_both():
    # the browser's 0.7 s: 1.75× CPython with Pyodide's libraries (0.4 s), 2.8× a newer one's (0.25 s)
    doc = stats.summarize(_with_pyodide_libs((0.05, 0.2), (0.12, 0.28)))
    assert doc["sums_pyodide_libs"]["ratio_median.cold"] == pytest.approx(1.75)
    assert doc["summary"]["cells.pyodide_libs.browser_over_cpython.cold"]["median"] == pytest.approx(1.75)
    v = doc["verdicts"][5]
    assert v["ok"] is True
    assert v["detail"].startswith("like for like (CPython with numpy 2.0, matplotlib 3.8): 1.75× cold")
    assert "against this machine's CPython libraries: 2.80× cold" in v["detail"]


def test_the_cells_target_misses_like_for_like_whatever_the_newer_libraries_give():
    v = stats.summarize(_with_pyodide_libs((0.2, 0.3), (0.1, 0.2)))["verdicts"][5]
    assert v["ok"] is False and "2.33× cold" in v["detail"] and "1.40× cold" in v["detail"]


def test_without_pyodide_libs_the_cells_target_is_against_this_cpython():
    doc = stats.summarize(fakes.results(2))
    assert doc["sums_pyodide_libs"] is None and doc["cpython_pyodide_libs"] is None
    assert doc["verdicts"][5]["detail"].startswith("2.00× cold")


def test_the_like_for_like_cpython_is_made_once_and_named_by_pyodide_s_versions(tmp_path):
    from bench.cpython import pyodide_libs_python

    lock = {"packages": {"numpy": {"version": "2.0.2"}, "matplotlib": {"version": "3.8.4"}}}
    venv = tmp_path / "cpython-numpy-2.0.2-matplotlib-3.8.4"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    (venv / ".complete").write_text("numpy 2.0.2, matplotlib 3.8.4\n")
    assert pyodide_libs_python(lock, tmp_path) == (
        str(venv / "bin" / "python"),
        "numpy 2.0.2, matplotlib 3.8.4",
    )
