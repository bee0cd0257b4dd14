"""bench/pace.py: the deck's fragments per slide, counted as reveal.js steps through them, and
the keys a second a presenter who reads each step aloud can press; and bench/live_load.py's
paces and its delivery target at each, held or missed with the margin."""

from __future__ import annotations

import json

import pytest

from bench import live_load, pace

SLIDES = """
<section id="a"><h2>Uno dos tres</h2><div class="slide-body"><p>cuatro cinco</p></div>
  <aside class="notes">las notas no se leen en voz alta</aside></section>
<section id="b"><h2>Lista</h2><ul>
  <li class="fragment">uno dos</li><li class="fragment">tres <em>cuatro</em> cinco</li>
  <li class="fragment">seis</li></ul><pre><code>print("no se lee")</code></pre></section>
<section id="c"><h2>Pregunta</h2><p>¿Qué?</p>
  <div class="answer fragment" data-fragment-index="1"><p>esto</p></div>
  <p class="fragment" data-fragment-index="1">y esto, con el mismo índice</p>
  <span class="katex"><span class="katex-mathml"><math><annotation>x+y</annotation></math></span>
  <span class="katex-html">x</span></span></section>
"""


def test_fragments_are_counted_per_slide_as_reveal_steps_through_them():
    slides = pace.count_slides(SLIDES)
    assert [s.id for s in slides] == ["a", "b", "c"]
    assert [len(s.steps) for s in slides] == [0, 3, 1]  # one index shared by two elements: one key
    assert slides[1].steps == [2, 3, 1]  # the words each key shows (<em> inside its fragment)
    assert slides[0].arrival_words == 5  # the notes are not read
    assert slides[1].arrival_words == 1  # the code is not read
    assert slides[2].steps == [1 + 6]  # the two elements of index 1 together
    assert slides[2].arrival_words == 3  # "Pregunta", "¿Qué?" and the formula's visible x, once


def test_a_fragment_inside_a_fragment_is_one_step_and_explicit_indices_come_first():
    html = (
        '<section id="s"><p class="fragment">a <span class="fragment">b</span></p>'
        '<p class="fragment" data-fragment-index="2">c</p><p class="fragment" data-fragment-index="0">d</p></section>'
    )
    (slide,) = pace.count_slides(html)
    assert slide.steps == [1, 1, 2]  # index 0 (d), index 2 (c), then the unnumbered one (a b)


def test_keys_come_after_what_each_showed_is_read_aloud():
    slides = pace.count_slides(SLIDES)
    times = pace.key_times(slides, wpm=60.0, min_key_s=0.25)  # a word a second
    # a: 5 words; b: 1 word, then steps of 2, 3 and 1; c: 3 words, then 7
    assert times == [0.0, 5.0, 6.0, 8.0, 11.0, 12.0, 15.0]
    assert pace.densest(times, 1.0) == 1 and pace.densest(times, 3.0) == 2
    assert pace.densest([0.0, 0.25, 0.5, 0.75, 1.0], 1.0) == 4  # the window is half-open
    with pytest.raises(ValueError):
        pace.key_times(slides, wpm=0)


def test_a_step_with_no_words_still_takes_the_fastest_key():
    (slide,) = pace.count_slides(
        '<section><ul><li class="fragment"></li><li class="fragment"></li></ul></section>'
    )
    assert pace.key_times([slide], wpm=150.0, min_key_s=0.25) == [0.0, 0.25, 0.5]


def test_the_pace_gives_the_distribution_and_the_rates():
    p = pace.pace(pace.count_slides(SLIDES), wpm=60.0)
    assert p["slides"] == 3 and p["fragment_steps"] == 4 and p["keys"] == 7
    assert p["steps_per_slide"] == {"0": 1, "1": 1, "3": 1} and p["steps_max_slide"] == "b"
    assert p["read_aloud_s"] == 15.0 and p["keys_per_s_sustained"] == 0.4
    assert p["click_through_keys"] == 4 and p["click_through_s"] == 0.75
    assert p["gap_s"] == {"min": 1.0, "median": 2.5}
    text = "\n".join(pace.describe(p))
    assert "3 slides, 4 fragment steps on 2 of them" in text and "7 keys" in text
    json.dumps(p)


def test_the_deck_itself_is_counted():
    p = pace.pace(pace.count_slides(pace.render_deck()))
    assert p["slides"] > 30 and p["fragment_steps"] > 0
    assert p["keys"] == p["slides"] + p["fragment_steps"]
    assert sum(p["steps_per_slide"].values()) == p["slides"]


def run(**changes) -> dict:
    """One result of bench/live_load.py's ``measure`` (the fields the targets read)."""
    result = {
        "processes": 4,
        "store": "redis",
        "event_loop": "auto",
        "devices": 5000,
        "pace": "bench",
        "seconds": 10.0,
        "moves": 60,
        "move_rate": 6.0,
        "deliveries": 300000,
        "missing": 0,
        "delivery_p95_ms": 120.0,
        "stream_errors": [],
        "baseline": False,
    }
    return {**result, **changes}


def test_the_delivery_target_is_printed_at_each_pace_with_its_margin():
    v = live_load.pace_verdicts(
        [
            run(),
            run(pace="presenter", seconds=60.0, move_rate=1.0, delivery_p95_ms=251.0),
            run(
                pace="presenter",
                seconds=60.0,
                move_rate=1.0,
                devices=500,
                processes=1,
                store="sqlite",
                baseline=True,
                delivery_p95_ms=None,
                deliveries=0,
                missing=30000,
            ),
        ]
    )
    assert list(v) == ["L-bench", "L-presenter", "L-presenter-baseline"]
    assert v["L-bench"]["ok"] is True and "p95 120.0 ms (limit 250 ms, -130.0 ms)" in v["L-bench"]["detail"]
    assert v["L-presenter"]["ok"] is False and "+1.0 ms" in v["L-presenter"]["detail"]
    assert v["L-presenter-baseline"]["ok"] is False and "never" in v["L-presenter-baseline"]["detail"]
    lines = live_load.target_lines(v)
    assert lines[0].startswith("  (L-bench) HOLDS  5000 devices, 4 processes + Redis, 60 moves in 10 s (6/s)")
    assert lines[1].startswith(
        "  (L-presenter) MISSES  5000 devices, 4 processes + Redis, 60 moves in 60 s (1/s)"
    )
    assert "500 devices, 1 process (SQLite)" in lines[2]


def test_several_event_loops_are_told_apart():
    v = live_load.pace_verdicts([run(event_loop="asyncio"), run(event_loop="uvloop")])
    assert list(v) == ["L-bench-asyncio", "L-bench-uvloop"]


def test_the_paces_on_the_command_line():
    args = live_load.parse_args(["--pace", "both"])
    assert args.paces == ["bench", "presenter"]
    assert [live_load.pace_seconds(args, p) for p in args.paces] == [10.0, 60.0]
    assert live_load.parse_args([]).paces == ["bench"]
    with pytest.raises(SystemExit):
        live_load.parse_args(["--pace", "presenter", "--moves", "121"])


def test_a_report_is_printed_again_from_its_json(tmp_path, capsys):
    doc = {
        "meta": {"note": "shared machine"},
        "runs": [run()],
        "verdicts": live_load.pace_verdicts([run()]),
        "deck_pace": pace.pace(pace.count_slides(SLIDES)),
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    assert live_load.main(["--report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(L-bench) HOLDS" in out and "3 slides, 4 fragment steps" in out and "note: shared machine" in out


def test_every_simulated_device_fits_the_pool_of_its_one_address(tmp_path):
    """All simulated devices come from 127.0.0.1: the hall must pool every one (a ticket each),
    the whole hall's count with a shared store, not one process's share."""
    args = live_load.hall_args(tmp_path, 1250, "--hall-redis", "redis://x", pool=5000)
    assert args[args.index("--hall-max-devices-per-address") + 1] == "5050"
    assert args[args.index("--hall-max-streams-per-address") + 1] == "1300"
    assert "--hall-max-devices-per-address" not in live_load.hall_args(tmp_path, 500, caps=False)


def test_the_committed_load_results_still_reprint(capsys):
    found = sorted((live_load.ROOT / "bench" / "results").glob("live-load-*.json"))
    assert found, "bench/results holds the paces' runs (issue 49)"
    for path in found:
        assert live_load.main(["--report", str(path)]) == 0
        out = capsys.readouterr().out
        assert "(L-bench) " in out and "(L-presenter) " in out and "fragment steps" in out
