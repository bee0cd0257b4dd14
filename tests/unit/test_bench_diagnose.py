"""The pure parts of bench/diagnose/: the probe's waits, thread groups, CPU windows, tables."""

from __future__ import annotations

import pytest

from bench.diagnose import detail, probe, threads


def probe_visit() -> dict:
    """Probes at 1000 (started at 1010) and 1150 (started at 1400, 100 ms behind cell x)."""
    runs = [
        {"id": 1, "cellId": "p", "running": 1010, "result": 1020},
        {"id": 2, "cellId": "x", "running": 1200, "result": 1300, "background": True},
        {"id": 3, "cellId": "p", "running": 1400, "result": 1410},
        {"id": 4, "cellId": "fig", "requested": 900, "running": 1500, "result": 1600},
    ]
    return {
        "runs": runs,
        "probes": [{"requested": 1000, "runId": 1}, {"requested": 1150, "runId": 3}],
        "idle": [],
        "marks": {"ready": 900},
        "figures": [{"id": 4, "t": 1590}],
    }


def test_a_probes_wait_leaves_out_other_cells_and_the_idle_wait():
    p = probe.analyze(probe_visit())
    assert (p["n"], p["idle_wait"], p["mpl_ready"]) == (2, 10, 1500)
    assert p["worst"] == pytest.approx(250 - 100 - 10) and p["worst_at"] == 250
    assert p["blocked"] == 1
    assert "x (pre-run) 0.10 s" in p["cause"] and "waited 0.25 s" in p["cause"]


def test_the_probe_table_gives_target_3s_verdict():
    text = probe.render("p", [probe.analyze(probe_visit())])
    assert "target 3 MISSES: worst unexplained wait 140 ms" in text and "1/2 probes" in text


@pytest.mark.parametrize(
    "ptype, comm, main, group",
    [
        ("renderer", "whatever", True, "renderer: page main thread"),
        ("renderer", "DedicatedWorker thread", False, threads.WORKER),
        ("renderer", "V8 DefaultWorke", False, "renderer: thread pool (V8 wasm compile, GC)"),
        ("renderer", "Compositor", False, "renderer: compositor/raster"),
        ("renderer", "Chrome_ChildIOT", False, "renderer: other threads"),
        ("", "chromium", True, "browser process"),
        ("utility", "x", False, "utility (network)"),
    ],
)
def test_thread_group(ptype, comm, main, group):
    assert threads.thread_group(ptype, comm, main) == group


def test_cpu_between_takes_the_nearest_samples_and_starts_new_groups_at_zero():
    samples = [[0, {"a": 1.0}], [250, {"a": 1.5}], [500, {"a": 2.5, "b": 0.3}]]
    assert threads.cpu_between(samples, 10, 490) == {"a": 1.5, "b": 0.3}
    assert threads.cpu_between(samples, 500, 100) == {}


def test_median_delta_skips_missing_milestones():
    rows = [{"a": 0, "b": 1000}, {"a": 0, "b": 3000}, {"a": None, "b": 1}]
    assert threads.median_delta(rows, "a", "b") == 2.0


def test_detail_table():
    text = detail.render(
        {
            "steps": [{"name": "import numpy", "ms": 300, "compileMs": 120, "compiled": 40}],
            "marks": {},
            "diag": {"moduleImports": [[150, "matplotlib.pyplot"]]},
        }
    )
    assert "120 ms (40 mod.)" in text and "1 take > 100 ms" in text
    assert detail.render({"error": "boom"}).endswith("! boom")


def test_the_cpu_and_steps_tables():
    samples = [[0, {threads.WORKER: 0.0}], [2000, {threads.WORKER: 1.5}]]
    cols = [(who, kind) for who in ("baseline", "deck") for kind in ("cold", "warm")]
    raw = {c: [{"cpu_samples": samples}] for c in cols}
    rows = {c: [{"zero": 0.0, "core": 2000, "core_ready": 2000, "worker_created": 500}] for c in cols}
    t = threads.Table()
    threads.cpu_table(t, rows, raw, "core ready", {"baseline": "core", "deck": "core_ready"})
    threads.steps_table(t, rows)
    text = str(t)
    worker = next(line for line in text.splitlines() if line.strip().startswith(threads.WORKER))
    assert "navigation → core ready" in text and worker.split()[-4:] == ["1.50"] * 4
    created = next(line for line in text.splitlines() if "navigation → worker created" in line)
    assert created.split()[-2:] == ["0.50", "0.50"]


def test_a_trace_is_read_up_to_the_python_worker_s_first_event():
    from bench.diagnose import trace

    def meta(tid, name, pid=1):
        return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}

    def slice_(name, ts, dur, tid=10, pid=1):
        return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}

    nav = {
        "ph": "R",
        "name": "navigationStart",
        "pid": 1,
        "tid": 10,
        "ts": 1_000_000,
        "args": {"data": {"documentLoaderURL": "http://127.0.0.1/index.html"}},
    }
    events = [
        meta(10, "CrRendererMain"),
        meta(20, "DedicatedWorker thread"),
        meta(30, "ServiceWorker thread", pid=2),
        nav,
        slice_("RunTask", 1_050_000, 40_000),
        slice_("DocumentLoader::CommitNavigation", 1_050_000, 30_000),
        slice_("RunTask", 1_100_000, 100_000),
        slice_("HTMLDocumentParser::PumpTokenizerIfPossible", 1_100_000, 60_000),
        slice_("ParseHTML", 1_110_000, 20_000),  # inside the pump: counted once
        slice_("HTMLParserScriptRunner ExecuteScript", 1_170_000, 25_000),
        slice_("FetchEvent", 1_020_000, 15_000, tid=30, pid=2),
        slice_("RunTask", 1_300_000, 50_000),  # after the worker began: not counted
        {"ph": "X", "name": "WorkerThread::Start", "pid": 1, "tid": 20, "ts": 1_250_000, "dur": 1},
    ]
    r = trace.summarize(events)
    assert r["worker_ms"] == 250 and r["commit_ms"] == 50 and r["main_tasks_ms"] == 140
    assert r["main_by_kind_ms"] == {"commit": 30, "parse HTML": 60, "run scripts": 25, "other": 25}
    assert r["service_worker_ms"] == 15
    assert trace.summarize([meta(10, "CrRendererMain")]) == {"error": "no navigationStart in the trace"}
