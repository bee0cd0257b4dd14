"""The deck built for a hall on another origin (issue 30): ``hall:`` in deck.yaml or
``build --hall``, checked (dpdeck/origin.py), and what the page is told: the config's
``hall`` and a CSP whose ``connect-src`` and ``img-src`` name that origin and no other."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpdeck.build.errors import DeckError
from dpdeck.build.render import content_security_policy
from dpdeck.build.schema import load_deck
from dpdeck.origin import parse_origin, parse_url
from tests.support.paths import FIXTURES, ROOT


@pytest.mark.parametrize(
    ("given", "origin"),
    [
        ("https://hall.example.edu", "https://hall.example.edu"),
        ("https://Hall.Example.EDU/", "https://hall.example.edu"),
        ("http://127.0.0.1:8100", "http://127.0.0.1:8100"),
        ("https://[::1]:8443", "https://[::1]:8443"),
        # the default port, which a browser's Origin never names
        ("https://hall.example.edu:443", "https://hall.example.edu"),
        ("HTTP://127.0.0.1:80/", "http://127.0.0.1"),
        ("https://[::1]:443", "https://[::1]"),
        ("http://hall.example.edu:443", "http://hall.example.edu:443"),
    ],
)
def test_an_origin_is_scheme_host_and_port(given, origin):
    assert parse_origin(given) == origin


@pytest.mark.parametrize(
    "given",
    [
        "hall.example.edu",  # no scheme
        "ftp://hall.example.edu",
        "https://",
        "https://hall.example.edu/sala",  # a path
        "https://hall.example.edu?x=1",
        "https://hall.example.edu#x",
        "https://user:pw@hall.example.edu",
        "https://hall.example.edu:99999",
        "https://hall example.edu",
        "",
        42,
    ],
)
def test_anything_else_is_refused_with_a_reason(given):
    with pytest.raises(ValueError, match="the hall"):
        parse_origin(given, "the hall")


def test_an_audience_url_may_have_a_path_but_no_fragment():
    assert parse_url("https://uni.github.io/clase-dp") == "https://uni.github.io/clase-dp"
    assert parse_url("https://deck.example.edu") == "https://deck.example.edu/"
    for bad in ("https://deck.example.edu/#presenter=x", "deck.example.edu", "javascript:alert(1)"):
        with pytest.raises(ValueError):
            parse_url(bad)


def _deck_with(tmp_path: Path, line: str) -> Path:
    for name in (FIXTURES / "good").iterdir():
        if name.is_file():
            shutil.copy(name, tmp_path / name.name)
    deck = tmp_path / "deck.yaml"
    deck.write_text(deck.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    return deck


def test_the_deck_file_names_its_hall(tmp_path):
    assert (
        load_deck(_deck_with(tmp_path, "hall: https://Sala.Example.edu/")).hall == "https://sala.example.edu"
    )
    assert load_deck(FIXTURES / "good" / "deck.yaml").hall == ""


@pytest.mark.parametrize("value", ["sala.example.edu", "https://sala.example.edu/en-vivo", "ws://x"])
def test_a_bad_hall_in_the_deck_file_names_the_file_and_the_field(tmp_path, value):
    with pytest.raises(DeckError) as info:
        load_deck(_deck_with(tmp_path, f"hall: {value}"))
    message = str(info.value)
    assert "deck.yaml" in message and "field 'hall'" in message, message


def test_the_csp_lets_the_page_reach_its_hall_and_nothing_else():
    alone = content_security_policy("{}")
    assert "connect-src 'self';" in alone and "img-src 'self' blob: data:;" in alone
    csp = content_security_policy("{}", hall="https://hall.example.edu")
    directives = dict(d.split(" ", 1) for d in csp.split("; "))
    assert directives["connect-src"] == "'self' https://hall.example.edu"
    assert directives["img-src"] == "'self' blob: data: https://hall.example.edu"  # its QR code
    others = {k: v for k, v in directives.items() if k not in ("connect-src", "img-src")}
    assert not any("hall.example.edu" in v for v in others.values())


def test_build_refuses_a_hall_that_is_not_an_origin(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "build.py",
            "build",
            "--hall",
            "https://hall.example.edu/sala",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "argument --hall: an origin only" in result.stderr, result.stderr
    assert not any(tmp_path.iterdir())
