"""The live hall's side of the build: ``dist/live.json``, and what a poll slide shows.

``live.json`` (docs/live-hall-protocol.md) says which polls and exercises exist::

    {"polls": {"<poll slide id>": {"k": 2, "epsilon": 1.0986…, "slide": 14}},
     "exercises": ["<exercise slide id>", …]}

The hall server reads it at start and refuses answers to a poll it does not list or outside
``0 … k-1``; ``slide`` is the poll slide's position (reveal.js's ``indexh``: the deck's slides
are flat), where the presenter's arrival shows the poll and admits the devices connected then; on a static host it is a harmless file. A poll slide carries the same ε and
options in its data attributes (``poll.js`` reads them): one source, the slide's YAML.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from dpdeck.resources import project_module
from dpdeck.wire import check_shape
from dpdeck.wire.rules import HOLD_UNTIL

from .schema import Deck, Slide

LIVE_MANIFEST = "live.json"


def live_manifest(deck: Deck) -> dict:
    """The polls (k options, ε, slide position) and the exercises of ``deck``, in the deck's order."""
    polls = {
        s.id: check_shape("LivePoll", {"k": len(s.poll.options), "epsilon": s.poll.epsilon, "slide": h})
        for h, s in enumerate(deck.slides)
        if s.poll is not None
    }
    exercises = [s.id for s in deck.slides if s.kind == "exercise"]
    return check_shape("LiveManifest", {"polls": polls, "exercises": exercises})


def write_live_manifest(site: Path, deck: Deck) -> Path:
    path = Path(site) / LIVE_MANIFEST
    path.write_text(json.dumps(live_manifest(deck), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def _spanish(x: float, decimals: int) -> str:
    text = f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{x:.0f}"
    return text.replace(".", ",")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def truth_text(epsilon: float, k: int) -> str:
    """How often randomized response with ``k`` options tells the truth, e^ε / (e^ε + k − 1)
    (dplab.rr_probabilities), as the poll's rule says it: ``75 %`` at ε = ln 3 with two options;
    ``1 − 2,1·10⁻⁹`` once the percentage would round to 100,0 % (ε = 20: never certain, and the
    page says so, static/js/shared/phrases.js «poll-sent»)."""
    lie = (k - 1) / (math.exp(epsilon) + k - 1)  # 1 − truth, without the cancellation
    if 100 * lie >= 0.05:
        return f"{_spanish(100 * (1 - lie), 1)} %"
    mantissa, exponent = f"{lie:.1e}".split("e")
    return f"1 − {mantissa.replace('.', ',')}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def epsilon_text(epsilon: float) -> str:
    """ε as the slide says it: ``ln 3`` for the default, else the number (``1,5``)."""
    for n in (2, 3, 4, 9):
        if math.isclose(epsilon, math.log(n), rel_tol=1e-12):
            return f"ln {n}"
    return _spanish(epsilon, 3)


def held_span(k: int, epsilon: float, answers: int = HOLD_UNTIL - 1) -> list[float]:
    """The narrowest and the widest 95 % interval of one option's true share, clipped to [0, 1]
    as the slide shows it, over every tally of ``answers`` randomized answers (dplab's
    ``rr_estimate`` for two options, ``grr_estimate`` for k: one option's interval depends on its
    count alone); what the held slide says it would show one answer short of ``HOLD_UNTIL``
    (0,098 to 0,967 at ε = ln 3, k = 2, 9 answers). Rounded to 4 decimals."""
    polls = project_module("dplab.polls")
    widths = []
    for c in range(answers + 1):
        counts = [answers - c, c] + [0] * (k - 2)
        estimate = polls.estimate(counts, epsilon)
        low, high = (float(x if k == 2 else x[1]) for x in (estimate.low, estimate.high))
        widths.append(min(1.0, high) - max(0.0, low))
    return [round(min(widths), 4), round(max(widths), 4)]


def poll_view(slide: Slide) -> dict:
    """What the poll's template needs: the options (in the order shown: «sí» first for a
    yes/no question), the data for poll.js, and the rule in Spanish."""
    poll = slide.poll
    k = len(poll.options)
    shown = list(enumerate(poll.options))
    if poll.yes_no:
        shown = shown[::-1]  # «sí» before «no»
    return {
        "options": [{"value": i, "label": label} for i, label in shown],
        "data": json.dumps(
            check_shape(
                "PollData",
                {
                    "k": k,
                    "epsilon": poll.epsilon,
                    "epsilonText": epsilon_text(poll.epsilon),
                    "prior": poll.prior,
                    "options": poll.options,
                    "yesNo": poll.yes_no,
                    "hold": HOLD_UNTIL,
                    "heldSpan": held_span(k, poll.epsilon),
                },
            ),
            ensure_ascii=False,
        ),
        "epsilon_text": epsilon_text(poll.epsilon),
        "truth_text": truth_text(poll.epsilon, k),
        "others_text": "la otra" if k == 2 else "otra al azar",
    }
