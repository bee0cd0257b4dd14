"""The benchmark's printed table (bench/table.py) and its command line (bench/startup.py)."""

from __future__ import annotations

import json

import pytest

from bench import startup, stats, table
from tests.support import bench_fakes as fakes


def test_fmt_stat_shows_the_spread_only_for_several_values():
    assert table.fmt_stat({"median": 1.234, "min": 1.0, "max": 2.0, "n": 3}) == "1.23 [1.00–2.00]"
    assert table.fmt_stat({"median": 2.0, "min": 2.0, "max": 2.0, "n": 1}, unit="×") == "2.00×"
    assert table.fmt_stat(None) == "—"


@pytest.mark.parametrize("n, text", [(None, "—"), (512, "512 B"), (3 << 10, "3 KiB"), (5 << 20, "5.00 MiB")])
def test_fmt_bytes(n, text):
    assert table.fmt_bytes(n) == text


def render(reps=3) -> str:
    r = fakes.results(reps)
    return table.render(stats.summarize(r), r["meta"], r["cpython"][0])


def test_the_readme_table_has_the_readme_columns_and_rows():
    text = render()
    assert "| | bare Pyodide cold | deck cold | bare Pyodide warm | deck warm |" in text
    # the deck's core ready on its worker's clock, like bare Pyodide's (the fake worker said it
    # 0.1 s × scale before the page heard it)
    assert "| core ready (in the worker) | 2.20 | 1.43 | 1.60 | 0.52 |" in text
    assert "| first code cell's result | — | 2.20 | — | 0.80 |" in text
    assert "| all 2 cells done | — | 3.85 | — | 1.40 |" in text


def test_every_section_and_target_is_printed():
    text = render()
    for title in (
        "Times from navigation",
        "Deck / baseline",
        "Bytes sent by the server",
        "Cells' own run time",
        "Targets",
    ):
        assert title in text
    for key in range(1, 6):
        assert f"({key}) " in text
    assert "(3) n/a" in text and "(5) HOLDS" in text


def test_a_noisy_machine_is_flagged():
    r = fakes.results(1)
    r["deck"]["cold"][0]["foreign_cores"] = 0.9
    text = table.render(stats.summarize(r), r["meta"], r["cpython"][0])
    assert "NOISY" in text and "--nice -5" in text


def test_comparison_gives_the_change_in_percent():
    new = {"a": {"median": 1.5}, "b": {"median": 1.0}, "c": None}
    text = table.comparison(new, {"a": {"median": 1.0}}, "old.json")
    assert "Compared with old.json" in text and "+50%" in text and "  b " not in text


def test_report_writes_a_small_summary_and_reprints_it(tmp_path, capsys):
    out = tmp_path / "run.json"
    startup.report(fakes.results(3), out, None)
    printed = capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert "raw" not in doc and set(doc["profiles"]["local"]["verdicts"]) == {"1", "2", "3", "4", "5"}
    # small: no raw traces (a run's traces are megabytes); each metric and target adds a little:
    # first_output and W1 24 → 25 kB, last_visit_all and W0 → 27 kB, the bytes before the first
    # figure (F1's floor) → 27,1 kB
    assert doc["table"] in printed and out.stat().st_size < 28_000
    startup.main(["--report", str(out), "--compare", str(out)])
    again = capsys.readouterr().out
    assert doc["table"] in again and "+0%" in again


def test_the_committed_results_still_reprint(capsys):
    path = startup.RESULTS / "startup-2026-11-29-fonts.json"
    startup.main(["--report", str(path)])
    assert "first figure" in capsys.readouterr().out


def test_reps_must_be_positive():
    with pytest.raises(SystemExit):
        startup.parse_args(["--reps", "0"])


def test_the_like_for_like_sums_are_printed_when_measured():
    r = fakes.results(2)
    r["cpython_pyodide_libs"] = [fakes.cpython_run((0.15, 0.35)) for _ in range(2)]
    text = table.render(stats.summarize(r), r["meta"], r["cpython"][0])
    assert "like for like, CPython 3.11 with Pyodide's numpy 2.0 and matplotlib 3.8:" in text
    assert "1.4×" in text.split("like for like, CPython")[1].splitlines()[1]
    assert "like for like" not in render()
