"""``build.py new``: a new lecture folder that passes the build's checks, with dplab or a
package of the author's own; and the deck file's ``package`` field."""

from __future__ import annotations

import pytest

import build as cli
from dpdeck.build.errors import DeckError
from dpdeck.build.scaffold import new_deck
from dpdeck.build.schema import load_deck
from dpdeck.build.site import Project, check

ROOT = cli.ROOT


@pytest.mark.parametrize("package", [None, "mi_paquete"])
def test_a_new_lecture_passes_check_with_one_slide_of_each_kind(tmp_path, package):
    folder = tmp_path / "clase"
    new_deck(folder, 'Clase: "nueva"', package=package)
    deck = check(Project(ROOT), deck_file=folder / "deck.yaml")  # schema, Python, KaTeX
    assert deck.title == 'Clase: "nueva"'
    assert [s.kind for s in deck.slides] == ["title", "content", "code", "exercise"]
    code = deck.slides[2]
    assert code.params and code.tries and "$" in deck.slides[1].body
    assert deck.package == ((folder / package).resolve() if package else None)
    assert f"from {package or 'dplab'} import *" in deck.prelude
    # with dplab, the prelude writing-slides.md describes: np, dplab itself, its names, census
    assert ("census = load_census()" in deck.prelude) == (package is None)
    assert ("import dplab\n" in deck.prelude) == (package is None)


def test_the_command_line_writes_and_says_what_next(tmp_path, capsys):
    assert cli.main(["new", str(tmp_path / "c"), "--title", "T", "--package", "pkg"]) == 0
    out = capsys.readouterr().out
    assert "pkg/__init__.py" in out and "build.py check --deck" in out
    # the hint names the interpreter that runs the build (a bare «python» may lack brotli…)
    import sys
    from pathlib import Path

    hint = next(line for line in out.splitlines() if "check --deck" in line)
    python = hint.split()[1]
    assert Path(python).resolve() == Path(sys.executable).resolve(), hint
    assert f"# Compruebe: {python} build.py check" in (tmp_path / "c" / "deck.yaml").read_text()
    assert cli.main(["check", "--deck", str(tmp_path / "c" / "deck.yaml")]) == 0


def test_new_refuses_a_folder_that_holds_something(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DeckError, match="not empty"):
        new_deck(tmp_path, "T")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_new_refuses_a_package_name_python_cannot_import(tmp_path):
    with pytest.raises(DeckError, match="not a Python name"):
        new_deck(tmp_path / "c", "T", package="mi-paquete")


def test_a_deck_naming_a_missing_package_is_refused_with_the_field(tmp_path):
    new_deck(tmp_path / "c", "T", package="pkg")
    (tmp_path / "c" / "pkg" / "__init__.py").unlink()
    with pytest.raises(DeckError) as info:
        load_deck(tmp_path / "c" / "deck.yaml")
    assert info.value.field == "package" and "pkg/__init__.py" in str(info.value)


@pytest.mark.parametrize("package", [None, "minipkg"])
def test_check_run_passes_a_new_lecture(tmp_path, package):
    """The night-before check runs the new deck's cells with the package the page would load."""
    new_deck(tmp_path / "c", "T", package=package)
    assert cli.main(["check", "--run", "--deck", str(tmp_path / "c" / "deck.yaml")]) == 0
