"""The phone's targets (bench/phone.py) from made-up documents, the opening slide's cells done
(bench/milestones.py), the memory peaks' summary (bench/stats.py) and the phone profile."""

from __future__ import annotations

from bench import milestones, phone, stats
from bench.profiles import PROFILES


def doc(**medians) -> dict:
    """A document whose summary has these medians (dots in keys written as __)."""
    return {"summary": {k.replace("__", "."): {"median": v} for k, v in medians.items()}}


def test_phone_targets_held_and_missed_with_the_margin():
    v = phone.verdicts(
        doc(
            deck__cold__first_figure=12.0,
            baseline__cold__figure=30.0,
            deck__cold__tbt=0.25,
            deck__cold__longest_task=0.3,
            deck__cold__heap_wasm_peak_mb=180.0,
            deck__cold__renderer_peak_mb=540.0,
        )
    )
    assert v["F1"]["ok"] is True and "0.40×" in v["F1"]["detail"]
    assert v["F2"]["ok"] is False and "250.00 ms" in v["F2"]["detail"] and "+50.00 ms" in v["F2"]["detail"]
    assert "longest task 300 ms" in v["F2"]["detail"]
    # F3 reads JS heaps + wasm (issue 49), the renderer's resident peak only printed beside it
    assert v["F3"]["ok"] is True and "-20.00 MB" in v["F3"]["detail"] and "VmHWM" in v["F3"]["detail"]
    assert phone.verdicts(doc(deck__cold__renderer_peak_mb=150.0))["F3"]["ok"] is None
    assert phone.verdicts(None) == {}
    assert phone.verdicts(doc())["F1"]["ok"] is None


def test_the_lecture_target_needs_half_the_cpu_and_every_slide_s_results():
    assert phone.lecture_verdict(40.0, 100.0, [])["ok"] is True
    assert phone.lecture_verdict(60.0, 100.0, [])["ok"] is False
    late = phone.lecture_verdict(40.0, 100.0, ["near/active:el-dato-de-partida"])
    assert late["ok"] is False and "el-dato-de-partida" in late["detail"]
    assert phone.lecture_verdict(None, 100.0, [])["ok"] is None
    assert "(F4)" in phone.render({"F4": late}) and "MISSES" in phone.render({"F4": late})


def test_a_lecture_miss_is_bounded_only_when_running_no_cell_would_miss_too():
    # 10 of the 11 CPU s are paid whatever runs: with no cell, 10/13 = 0.77× > 0.5×
    floor = phone.lecture_verdict(11.0, 13.0, [], floor_cpu=10.0)
    assert floor["ok"] is False and "0.77×" in floor["bounded"]
    assert "BOUNDED" in phone.render({"F4": floor}) and "MISSES" not in phone.render({"F4": floor})
    # a floor under the limit: the policy could still win, so a plain miss
    assert "bounded" not in phone.lecture_verdict(11.0, 13.0, [], floor_cpu=5.0)
    # a slide reached without its results is the policy's fault, whatever the floor
    assert "bounded" not in phone.lecture_verdict(11.0, 13.0, ["near/active:x"], floor_cpu=10.0)
    assert phone.lecture_verdict(6.0, 13.0, [], floor_cpu=10.0)["ok"] is True


def test_the_opening_slide_s_cells_done_is_their_last_first_result():
    first = {"a": {"result": 5.0}, "b": {"result": 7.0}, "c": {"result": 9.0}}
    assert milestones.current_done({"currentCellIds": ["a", "b"]}, first) == 7.0
    assert milestones.current_done({"currentCellIds": ["a", "x"]}, first) is None
    assert milestones.current_done({}, first) is None


def test_memory_peaks_are_summarized_in_megabytes():
    rows = {
        "cold": [
            {"renderer_peak": 150e6, "js_heap_peak": 20e6, "heap_wasm_peak": 90e6},
            {"renderer_peak": 170e6},
        ]
    }
    s = stats.memory_summary(rows)
    assert s["deck.cold.heap_wasm_peak_mb"]["median"] == 90.0
    assert s["deck.cold.renderer_peak_mb"]["median"] == 160.0
    assert s["deck.cold.js_heap_peak_mb"]["n"] == 1


def test_the_phone_profile_emulates_a_phone():
    p = PROFILES["phone"]
    options = p.options({"width": 1280, "height": 720})
    assert options["viewport"] == {"width": 390, "height": 844}
    assert options["device_scale_factor"] == 3 and options["is_mobile"] and options["has_touch"]
    assert p.cpu_slowdown == 6 and "deviceMemory" in p.init_script and p.sample_memory
    assert PROFILES["aula"].options({"width": 1280, "height": 720}) == {
        "viewport": {"width": 1280, "height": 720}
    }


class _Feed:
    """Answers each call with the next of ``values``."""

    def __init__(self, *values):
        self.values = list(values)

    def next(self):
        return self.values.pop(0)


def test_the_memory_watch_peaks_the_sum_of_js_heaps_and_wasm_as_sampled():
    from bench.browser import MemoryWatch

    heap, wasm, workers_js = _Feed(10e6, 5e6, 5e6), _Feed(50e6, 60e6, 60e6), _Feed(0, 30e6)

    class Cdp:
        def send(self, method):
            assert method == "Runtime.getHeapUsage"
            return {"usedSize": heap.next()}

    class Worker:
        def evaluate(self, expression):
            return wasm.next()

    class Page:
        _bench_cdp, workers = Cdp(), [Worker()]

        def evaluate(self, expression):
            return {"uasm": 0, "uasm_workers": workers_js.next()}

    watch = MemoryWatch(Page(), uasm_every=2)
    for _ in range(3):
        watch.sample()
    # samples: 10+0+50, 5+0+60 (no uasm this time: the last workers' reading), 5+30+60
    assert watch.peaks["heap_wasm_peak"] == 95e6
    assert watch.peaks["wasm_peak"] == 60e6 and watch.peaks["js_heap_peak"] == 10e6
    assert watch.peaks["worker_js_peak"] == 30e6


def test_a_first_figure_miss_is_bounded_by_the_network_only_when_its_bytes_alone_miss():
    def phone_doc(before: float, figure: float) -> dict:
        medians = doc(
            deck__cold__first_figure=figure,
            baseline__cold__figure=20.0,
            bytes__deck__cold__before_figure=before,
        )
        return medians

    rate = PROFILES["phone"].down_bytes_per_s
    # 14 s of bytes at 9 Mbit/s before the figure: 0.70× of bare Pyodide's 20 s before any run
    slow = phone.first_figure_verdict(phone_doc(14.0 * rate, 16.0))
    assert slow["ok"] is False and slow["bounded_by"] == "the network" and "0.70×" in slow["bounded"]
    assert "bounded by the network" in phone.render({"F1": slow})
    # 8 s of bytes: a faster deck could hold it, so a plain miss
    fast_link = phone.first_figure_verdict(phone_doc(8.0 * rate, 16.0))
    assert (
        fast_link["ok"] is False and "bounded" not in fast_link and "8.0 s of the link" in fast_link["detail"]
    )
    assert phone.first_figure_verdict(phone_doc(14.0 * rate, 11.0))["ok"] is True
    # a profile with no throttled link: the ratio alone
    assert "bounded" not in phone.first_figure_verdict(phone_doc(14.0 * rate, 16.0), "local")


def test_the_first_figure_s_bytes_stop_where_the_offline_fill_begins():
    origin = 1_000_000.0  # ms since the epoch
    visit = {
        "cellIds": ["a"],
        "timeOrigin": origin,
        "marks": {},
        "statuses": [],
        "runs": [{"id": 1, "cellId": "a", "started": 100.0, "result": 9000.0}],
        "figures": [{"id": 1, "t": 5000.0, "cellId": "a"}],
        "server": [
            {"t0": origin / 1000 + 1, "path": "/vendor/numpy.whl", "bytes": 100, "status": 200},
            {"t0": origin / 1000 + 3, "path": "/sw.js", "bytes": 7, "status": 200},
            {"t0": origin / 1000 + 4, "path": "/static/wheels/jedi.whl", "bytes": 900, "status": 200},
            {"t0": origin / 1000 + 6, "path": "/late.js", "bytes": 50, "status": 200},
        ],
    }
    assert [e["path"] for e in stats.figure_requests(visit)] == ["/vendor/numpy.whl"]
    # no service worker asked for: everything before the figure
    no_sw = visit | {"server": [e for e in visit["server"] if e["path"] != "/sw.js"]}
    assert [e["path"] for e in stats.figure_requests(no_sw)] == [
        "/vendor/numpy.whl",
        "/static/wheels/jedi.whl",
    ]
