"""A presenter's real pace, from the deck itself: fragments per slide and keys a second.

    .venv/bin/python bench/pace.py [--wpm 150] [--json]

Every key the presenter presses (a slide forward, a fragment shown) is one move the hall relays
to every device: ``static/js/page/live.js`` posts on each ``slidechanged`` and ``fragmentshown``, with
nothing coalesced. So the deck's fragments say how many moves a lecture makes and how close
together they can come.

The slides are rendered by the build's own code (``dpdeck.build.render``: the deck's YAML, its
Markdown, its slide templates), and counted as reveal.js counts them: in each top-level
``<section>``, the elements whose class has ``fragment``; those sharing a
``data-fragment-index`` are shown by one key, every other is a key of its own.

The pace is a model, stated: after each key the presenter at least reads aloud the words that
key showed (the slide's title and its prose outside fragments on arrival, then each fragment's),
at ``--wpm`` words a minute; never faster than ``MIN_KEY_S`` between two keys. Code, speaker
notes and KaTeX's MathML copy are not read. A real lecture talks far longer than its slides'
words, so the rates here bound the presenter's pace from above: sustained, and in the densest
second and ten seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WPM = 150.0  # words a minute: a lecture's speaking rate
MIN_KEY_S = 0.25  # s: the fastest a presenter steps through fragments by hand (4 keys a second)
SKIPPED = {"pre", "aside", "script", "style", "annotation", "math"}  # not read aloud
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Slide:
    """One top-level slide: the words shown on arrival, and per fragment step the words it shows
    (``steps[i]``: the ``i``-th key after the arrival)."""

    def __init__(self, ident: str):
        self.id = ident
        self.arrival_words = 0
        self.explicit: dict[str, int] = {}  # data-fragment-index → words
        self.implicit: list[int] = []  # fragments without an index, in document order

    @property
    def steps(self) -> list[int]:
        """Words per fragment step, in reveal.js's order: explicit indices by number, then the
        others in document order (reveal.js numbers those after the explicit ones)."""
        ordered = [self.explicit[k] for k in sorted(self.explicit, key=_index)]
        return ordered + self.implicit


def _index(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return float("inf")


class _Counter(HTMLParser):
    """Walks the slides' HTML: top-level sections, their fragments and the words of each."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.slides: list[Slide] = []
        self.stack: list[tuple[str, str | None, bool]] = []  # (tag, fragment key, skipped)
        self.section_depth = 0

    def _classes(self, attrs) -> set[str]:
        return set((dict(attrs).get("class") or "").split())

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        attrs_d = dict(attrs)
        classes = self._classes(attrs)
        if tag == "section":
            self.section_depth += 1
            if self.section_depth == 1:
                self.slides.append(Slide(attrs_d.get("id") or f"#{len(self.slides)}"))
        parent_fragment = next((f for _, f, _ in reversed(self.stack) if f is not None), None)
        fragment = parent_fragment
        if "fragment" in classes and self.section_depth and parent_fragment is None:
            slide = self.slides[-1]
            if attrs_d.get("data-fragment-index") is not None:
                fragment = "e:" + attrs_d["data-fragment-index"]
                slide.explicit.setdefault(attrs_d["data-fragment-index"], 0)
            else:
                fragment = f"i:{len(slide.implicit)}"
                slide.implicit.append(0)
        skipped = tag in SKIPPED or "katex-mathml" in classes or (self.stack and self.stack[-1][2])
        self.stack.append((tag, fragment, bool(skipped)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:  # close up to the matching tag (HTML left unclosed is closed with it)
            open_tag, _, _ = self.stack.pop()
            if open_tag == "section":
                self.section_depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        if not self.section_depth or (self.stack and self.stack[-1][2]):
            return
        words = len(data.split())
        if not words:
            return
        slide = self.slides[-1]
        fragment = self.stack[-1][1] if self.stack else None
        if fragment is None:
            slide.arrival_words += words
        elif fragment.startswith("e:"):
            slide.explicit[fragment[2:]] += words
        else:
            slide.implicit[int(fragment[2:])] += words


def count_slides(html: str) -> list[Slide]:
    """The top-level slides of ``html`` (a page or just its slides), with their fragment steps."""
    parser = _Counter()
    parser.feed(html)
    parser.close()
    return parser.slides


def render_deck(root: Path = ROOT) -> str:
    """The deck's slides as the build renders them (``dpdeck.build.render`` and the slide
    templates ``templates/index.html.j2`` includes), without the rest of the page."""
    sys.path.insert(0, str(root))
    from dpdeck.build.render import _templates, render_slides
    from dpdeck.build.schema import load_deck

    deck = load_deck(root / "deck" / "deck.yaml")
    views = render_slides(deck, root / "node_modules")
    template = _templates(root / "templates").from_string(
        '{% for view in views %}{% include "slides/" ~ view.slide.kind ~ ".html.j2" %}{% endfor %}'
    )
    return template.render(views=views, deck=deck)


def key_times(slides: list[Slide], wpm: float = WPM, min_key_s: float = MIN_KEY_S) -> list[float]:
    """When each key comes (seconds from the first), for a presenter who reads aloud what each
    key showed before pressing the next (at ``wpm``, at least ``min_key_s`` apart). The first
    key arrives on the first slide; one key per slide and per fragment step, forward only."""
    if wpm <= 0 or min_key_s < 0:
        raise ValueError("wpm must be positive and min_key_s not negative")
    times, now = [], 0.0
    for slide in slides:
        for words in [slide.arrival_words, *slide.steps]:
            times.append(now)
            now += max(min_key_s, words * 60.0 / wpm)
    return times


def densest(times: list[float], window: float) -> int:
    """The most keys in any ``window`` seconds (half-open: a key at start + window is the next)."""
    best, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def pace(slides: list[Slide], wpm: float = WPM, min_key_s: float = MIN_KEY_S) -> dict:
    """Fragments per slide (distribution) and the keys a second they allow (``key_times``)."""
    steps = [len(s.steps) for s in slides]
    times = key_times(slides, wpm, min_key_s)
    span = times[-1] if len(times) > 1 else 0.0
    gaps = [b - a for a, b in itertools.pairwise(times)]
    fullest = max(slides, key=lambda s: len(s.steps)) if slides else None
    return {
        "slides": len(slides),
        "slides_with_fragments": sum(1 for n in steps if n),
        "fragment_steps": sum(steps),
        "steps_per_slide": {str(k): v for k, v in sorted(Counter(steps).items())},
        "steps_max": max(steps, default=0),
        "steps_max_slide": fullest.id if fullest and fullest.steps else None,
        "keys": len(times),
        "model": {"wpm": wpm, "min_key_s": min_key_s},
        "read_aloud_s": round(span, 1),
        "keys_per_s_sustained": round((len(times) - 1) / span, 3) if span else None,
        "gap_s": {
            "min": round(min(gaps), 2),
            "median": round(statistics.median(gaps), 2),
        }
        if gaps
        else None,
        "densest_1s": densest(times, 1.0),
        "densest_10s": densest(times, 10.0),
        "click_through_keys": 1 + max(steps, default=0),
        "click_through_s": round(max(steps, default=0) * min_key_s, 2),
    }


def describe(p: dict) -> list[str]:
    """The pace in a few lines, for the bench's output."""
    dist = ", ".join(f"{k}: {v}" for k, v in p["steps_per_slide"].items())
    return [
        f"  the deck: {p['slides']} slides, {p['fragment_steps']} fragment steps on "
        f"{p['slides_with_fragments']} of them (steps per slide → slides: {dist}); the most, "
        f"{p['steps_max']}, on {p['steps_max_slide']}",
        f"  one pass is {p['keys']} keys, each a move to every device; read aloud at "
        f"{p['model']['wpm']:g} words a minute that is {p['read_aloud_s']:.0f} s, "
        f"{p['keys_per_s_sustained']} keys a second sustained, at most {p['densest_1s']} in one second "
        f"and {p['densest_10s']} in ten",
        f"  clicking through the fullest slide without reading: {p['click_through_keys']} keys in "
        f"{p['click_through_s']:g} s (one key every {p['model']['min_key_s']:g} s)",
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wpm", type=float, default=WPM, help=f"words read aloud a minute (default {WPM:g})")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = ap.parse_args(argv)
    if not 30 <= args.wpm <= 600:
        ap.error("--wpm: 30 to 600")
    p = pace(count_slides(render_deck()), args.wpm)
    print(json.dumps(p, indent=2) if args.json else "\n".join(describe(p)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
