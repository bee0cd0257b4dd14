"""The build's side of the live hall: the poll slide kind and dist/live.json.

docs/live-hall-protocol.md: live.json lists every poll (k options, ε) and every exercise; the
poll slide carries the same ε and options to the page (poll.js), with its rule in Spanish.
"""

from __future__ import annotations

import html as html_lib
import json
import math
import re
from pathlib import Path

import dplab
import numpy as np
import pytest

from dpdeck.build.errors import DeckError
from dpdeck.build.schema import load_deck
from dpdeck.build.site import Project, build
from tests.support.paths import ROOT

CHAPTER = """\
slides:
  - kind: title
    title: Mazo en vivo
    notes: n
  - kind: poll
    id: copiar
    title: Encuesta
    body: ¿Alguna vez copió en un examen?
    notes: n
    code: |
      epsilon = 1.0
      print(epsilon)
    params:
      - {name: epsilon, min: 0.1, max: 5}
  - kind: poll
    id: transporte
    title: Tres opciones
    body: ¿Cómo vino hoy?
    options: [a pie, en bus, <b>en auto</b>]
    epsilon: 2
    prior: 0.2
    notes: n
  - kind: exercise
    id: ej-uno
    title: Ejercicio
    body: Complete.
    starter: "b = ...  # complete"
    check: "assert b == 1, 'no'"
    solution: "b = 1"
    notes: n
"""


def _deck(tmp: Path, chapter: str = CHAPTER) -> Path:
    (tmp / "c.yaml").write_text(chapter, encoding="utf-8")
    deck = tmp / "deck.yaml"
    deck.write_text("title: Prueba\nchapters: [c.yaml]\n", encoding="utf-8")
    return deck


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("live")
    out = tmp / "dist"
    build(Project(ROOT), deck_file=_deck(tmp), dist=out)
    return out


def test_a_poll_defaults_to_yes_no_at_ln3(tmp_path: Path):
    deck = load_deck(_deck(tmp_path))
    poll = deck.slides[1].poll
    assert poll.options == ["no", "sí"] and poll.yes_no
    assert poll.epsilon == math.log(3) and poll.prior == 0.5
    other = deck.slides[2].poll
    assert other.options == ["a pie", "en bus", "<b>en auto</b>"] and not other.yes_no
    assert other.epsilon == 2.0 and other.prior == 0.2
    assert deck.slides[0].poll is None


def test_live_json_lists_the_polls_and_the_exercises(built: Path):
    live = json.loads((built / "live.json").read_text(encoding="utf-8"))
    assert live == {
        "polls": {
            "copiar": {"k": 2, "epsilon": math.log(3), "slide": 1},
            "transporte": {"k": 3, "epsilon": 2.0, "slide": 2},
        },
        "exercises": ["ej-uno"],
    }


def _poll_section(html: str, poll_id: str) -> str:
    return re.search(rf'<section id="{poll_id}".*?</section>', html, re.S).group(0)


def test_the_poll_reaches_the_page_with_its_epsilon_options_and_rule(built: Path):
    html = (built / "index.html").read_text(encoding="utf-8")
    yes_no = _poll_section(html, "copiar")
    data = json.loads(html_lib.unescape(re.search(r'data-poll="([^"]*)"', yes_no).group(1)))
    assert data == {
        "k": 2,
        "epsilon": math.log(3),
        "epsilonText": "ln 3",
        "prior": 0.5,
        "options": ["no", "sí"],
        "yesNo": True,
        "hold": 10,
        "heldSpan": [0.0983, 0.9667],
    }
    # «sí» (1) is offered first; the rule states ε and the chance of the truth, the Spanish way
    assert re.findall(r'value="(\d)"', yes_no) == ["1", "0"]
    text = " ".join(re.sub(r"<[^>]+>", "", yes_no).split())
    assert "(ε = ln 3)" in text and "con probabilidad 75 % y, si no, la otra" in text
    assert "Una sola respuesta por dispositivo y ronda" in text and "2ε" not in text
    assert (
        "quien responde en r rondas gasta rε por esta pregunta" in text and "k encuestas cuestan kε" in text
    )
    assert "nueva ronda es otra publicación" in text
    # its code cell, with its slider, in the lab under the board
    assert 'data-cell-id="copiar"' in yes_no and "epsilon = 1.0" in yes_no
    assert '"name": "epsilon"' in html_lib.unescape(re.search(r'data-params="([^"]*)"', yes_no).group(1))
    k3 = _poll_section(html, "transporte")
    assert "(ε = 2)" in " ".join(re.sub(r"<[^>]+>", "", k3).split())
    assert "78,7 %" in k3  # e² / (e² + 2)
    assert "otra al azar" in k3 and "data-cell-id" not in k3
    assert "&lt;b&gt;en auto&lt;/b&gt;" in k3 and "<b>en auto" not in k3  # text, never HTML


def _interval_widths(counts_of, n: int, k: int, epsilon: float) -> list[float]:
    """The width of one option's 95 % interval, clipped to [0, 1] as the slide shows it, for each
    count 0 … n of that option (dplab's estimators, on the tallies ``counts_of(c)``)."""
    widths = []
    for c in range(n + 1):
        r = dplab.rr_estimate(c, n, epsilon) if k == 2 else dplab.grr_estimate(counts_of(c), epsilon)
        low, high = (float(np.atleast_1d(x)[0]) for x in (r.low, r.high))
        widths.append(min(1.0, high) - max(0.0, low))
    return widths


def test_a_held_poll_states_the_interval_it_would_show_one_answer_short(built: Path):
    """Issue 47 item 7: under 10 answers the slide said the interval would span «casi 0 % a casi
    100 %»; at n = 9 and ε = ln 3 it spans from 0–10 % (no «sí») to 3–100 % (five). The page
    gets the narrowest and widest width (``heldSpan``) with the hold (``hold``), recomputed here
    from dplab over every tally of 9 answers, for the yes/no poll and a poll of three options."""
    html = (built / "index.html").read_text(encoding="utf-8")
    for poll_id, k, epsilon in (("copiar", 2, math.log(3)), ("transporte", 3, 2.0)):
        section = _poll_section(html, poll_id)
        data = json.loads(html_lib.unescape(re.search(r'data-poll="([^"]*)"', section).group(1)))
        n = data["hold"] - 1
        widths = _interval_widths(lambda c, n=n, k=k: [c, n - c] + [0] * (k - 2), n, k, epsilon)
        assert data["heldSpan"] == [round(min(widths), 4), round(max(widths), 4)], poll_id
    yes_no = dplab.rr_estimate(0, 9, math.log(3)), dplab.rr_estimate(9, 9, math.log(3))
    assert round(yes_no[0].high, 2) == 0.10 and round(yes_no[1].low, 2) == 0.90


@pytest.mark.parametrize(
    "extra, field, words",
    [
        ("epsilon: 0", "epsilon", "> 0 and finite"),
        ("epsilon: -1", "epsilon", "> 0 and finite"),
        ("epsilon: .inf", "epsilon", "> 0 and finite"),
        ("epsilon: .nan", "epsilon", "> 0 and finite"),
        ("epsilon: true", "epsilon", "must be a number"),
        ("epsilon: uno", "epsilon", "must be a number"),
        ("prior: 1", "prior", "in (0, 1)"),
        ("prior: 0", "prior", "in (0, 1)"),
        ("options: [sí]", "options", "2 to 10 answers"),
        ("options: sí", "options", "2 to 10 answers"),
        ("options: [a, a]", "options", "the same"),
        ("options: [a, '']", "options", "non-empty text"),
        ("options: [a, [b]]", "options", "non-empty text"),
    ],
)
def test_a_bad_poll_is_refused_naming_the_field(tmp_path: Path, extra: str, field: str, words: str):
    chapter = f"slides:\n  - kind: poll\n    title: E\n    body: ¿Sí?\n    {extra}\n"
    with pytest.raises(DeckError) as info:
        load_deck(_deck(tmp_path, chapter))
    assert f"field '{field}'" in str(info.value) and words in str(info.value)


def test_poll_fields_only_on_polls_and_a_poll_needs_its_question(tmp_path: Path):
    with pytest.raises(DeckError, match="field 'epsilon': only slides of kind poll"):
        load_deck(_deck(tmp_path, "slides:\n  - title: E\n    body: x\n    epsilon: 1\n"))
    with pytest.raises(DeckError, match="field 'body': a 'poll' slide needs this field"):
        load_deck(_deck(tmp_path, "slides:\n  - kind: poll\n    title: E\n"))
