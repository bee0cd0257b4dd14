"""A slide that announces how many things follow lists that many (issue 50, item 10).

«Tres lecturas de la misma desigualdad:» was followed by four bullets. Here every paragraph of a
slide's text (its body, its notes, an exercise's hints) that ends with a colon and is followed by
a Markdown list is read: where the sentence before the colon announces a number, in Spanish words
(«dos» to «doce») or in digits outside math, that number is the count of the list's top-level
items. A paragraph with no number before its colon announces nothing and is not checked; one
with two different numbers (e.g. «de 2 a 3 pasos:») is ambiguous, and fails: say it so that it
can be counted.
"""

from __future__ import annotations

import re

import pytest

WORDS = {
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
}
ITEM = re.compile(r"^( *)(?:[-*+]|\d+[.)])\s+\S")
NUMBER = re.compile(r"\b(" + "|".join(WORDS) + r"|\d+)\b", re.IGNORECASE)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`", re.DOTALL)


def announced(sentence: str) -> set[int]:
    """The numbers the last sentence of ``sentence`` (text up to its closing colon) announces:
    Spanish number words and digits outside ``$…$`` math and ``code``."""
    last = re.split(r"(?<=[.!?])\s+", MATH.sub(" ", sentence).strip())[-1]
    return {WORDS.get(word.lower()) or int(word) for word in NUMBER.findall(last)}


def announcements(text: str) -> list[tuple[str, set[int], int]]:
    """Each (paragraph, numbers it announces, top-level items of the list after it) of
    Markdown ``text`` where a paragraph ending with «:» is followed by a list."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        if not lines[i].rstrip().endswith(":") or ITEM.match(lines[i]):
            i += 1
            continue
        start = i  # the paragraph: back to a blank line or a list item
        while start > 0 and lines[start - 1].strip() and not ITEM.match(lines[start - 1]):
            start -= 1
        paragraph = " ".join(line.strip() for line in lines[start : i + 1])
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        first = ITEM.match(lines[j]) if j < len(lines) else None
        if first:
            indent, items = len(first.group(1)), 0
            while j < len(lines):  # the list ends at a line less indented than its items
                line = lines[j]
                item = ITEM.match(line)
                if item and len(item.group(1)) == indent:
                    items += 1
                elif line.strip() and len(line) - len(line.lstrip()) <= indent and not item:
                    break
                j += 1
            found.append((paragraph, announced(paragraph[:-1]), items))
        i += 1
    return found


def texts(slide) -> list[tuple[str, str]]:
    """(where, Markdown) of every text of ``slide`` a student or the presenter reads."""
    out = [("body", slide.body or ""), ("notes", slide.notes or "")]
    out += [(f"hint {k + 1}", hint) for k, hint in enumerate(slide.hints or [])]
    return [(where, text) for where, text in out if text]


def test_every_announced_count_is_the_count_of_the_list(deck):
    checked, wrong = 0, []
    for slide in deck.slides:
        for where, text in texts(slide):
            for paragraph, numbers, items in announcements(text):
                if not numbers:
                    continue
                checked += 1
                if numbers != {items}:
                    wrong.append(
                        f"{slide.id} ({where}): «{paragraph}» announces {sorted(numbers)}, lists {items}"
                    )
    assert not wrong, "\n".join(wrong)
    assert checked >= 2  # «con dos piezas:» (la intuición), «Tres…/Cuatro lecturas…:» (la definición)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tres lecturas de la misma desigualdad:\n\n- a\n- b\n- c\n- d\n", [({3}, 4)]),
        ("Formalizamos con dos piezas:\n\n- **a:** x\n  sigue\n- b\n\nDespués.\n", [({2}, 2)]),
        ("En 4 pasos:\n1. a\n2. b\n   - dentro\n   - dentro\n3. c\n4. d\n", [({4}, 4)]),
        ("Con $\\varepsilon = 2$ y `k = 3`, esto:\n\n- a\n", [(set(), 1)]),
        ("Primero, dos cosas. Luego lo que sigue:\n\n- a\n", [(set(), 1)]),
        ("Dos frases:\nsin lista después.\n", []),
    ],
)
def test_the_reader_of_announcements(text, expected):
    assert [(numbers, items) for _, numbers, items in announcements(text)] == expected
