"""The build: a valid deck builds; every malformed deck fails naming file, slide and field."""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpdeck.build.errors import DeckError
from dpdeck.build.schema import load_deck
from dpdeck.build.site import Project, build, check
from tests.support.paths import FIXTURES, ROOT

BAD = sorted((FIXTURES / "bad_chapters").glob("*.yaml"))


def _expectation(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: ...'"
    return first[len("# expect: ") :]


def _deck_around(chapter: Path, tmp: Path) -> Path:
    shutil.copy(chapter, tmp / chapter.name)
    deck = tmp / "deck.yaml"
    deck.write_text(f"title: Prueba\nchapters: [{chapter.name}]\n", encoding="utf-8")
    return deck


@pytest.mark.parametrize("chapter", BAD, ids=[p.stem for p in BAD])
def test_bad_chapter_names_file_slide_and_field(chapter: Path, tmp_path: Path):
    deck = _deck_around(chapter, tmp_path)
    with pytest.raises(DeckError) as info:
        check(Project(ROOT), deck_file=deck)
    message = str(info.value)
    assert chapter.name in message, message
    assert _expectation(chapter) in message


def test_deck_file_errors_are_located(tmp_path: Path):
    deck = tmp_path / "deck.yaml"
    deck.write_text("title: X\nchapters: [nope.yaml]\n")
    with pytest.raises(DeckError, match=r"nope\.yaml: file not found"):
        load_deck(deck)
    deck.write_text("title: X\n")
    with pytest.raises(DeckError, match=r"deck\.yaml, field 'chapters': required field is missing"):
        load_deck(deck)
    deck.write_text("title: X\nchapters: [a.yaml]\nprelude: 'import ('\n")
    with pytest.raises(DeckError, match=r"field 'prelude': invalid Python syntax at line 1"):
        load_deck(deck)


def test_good_deck_loads_in_order():
    deck = load_deck(FIXTURES / "good" / "deck.yaml")
    assert [s.title for s in deck.slides] == ["Mazo de prueba", "Primera", "Segunda", "Tercera", "Cuarta"]
    assert [s.index for s in deck.slides] == [1, 2, 3, 4, 5]
    assert deck.slides[2].params[0].name == "x"
    edits = deck.slides[2].tries
    assert [(t.label, t.old, t.new) for t in edits] == [
        ("x = 5", "x = 1", "x = 5"),
        ("<b>doble</b>", "x + 1", "2 * x"),
    ]
    assert edits[1].apply(deck.slides[2].code) == "x = 1\n2 * x\n"
    assert deck.slides[1].tries == []


def test_try_edits_ship_with_their_cell(built: Path):
    html = (built / "index.html").read_text(encoding="utf-8")
    shipped = re.search(r'data-cell-id="segunda"[^>]*data-try="([^"]*)"', html).group(1)
    assert "<b>" not in shipped  # escaped in the attribute
    assert json.loads(html_lib.unescape(shipped)) == [
        {"label": "x = 5", "replace": ["x = 1", "x = 5"]},
        {"label": "<b>doble</b>", "replace": ["x + 1", "2 * x"]},
    ]


def test_build_writes_slides_in_order_with_math_and_boxes(built: Path):
    html = (built / "index.html").read_text(encoding="utf-8")
    titles = re.findall(r'<section id="([^"]+)"', html)
    assert titles == ["mazo-de-prueba", "primera", "segunda", "tercera", "cuarta"]
    assert 'class="katex"' in html and "katex-display" in html  # typeset at build time
    assert '<div class="box"><div class="box-title">La definición</div>' in html
    assert '<div class="answer fragment"' in html
    assert "<th>a</th>" in html
    assert '<img src="assets/figuras/barra.png" alt="Una barra azul"' in html
    assert (built / "assets" / "figuras" / "barra.png").is_file()
    # the cell's code is in the page as text, escaped
    assert "x = 1\nx + 1" in html


def test_build_is_self_contained(built: Path):
    html = (built / "index.html").read_text(encoding="utf-8")
    csp = html_lib.unescape(
        re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    )
    assert "default-src 'self'" in csp and "http" not in csp
    config = json.loads(re.search(r'id="deck-config">(.*?)</script>', html, re.S).group(1))
    index = built / config["pyodideIndex"]
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (index / name).exists(), name
    lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    for pkg in ("numpy", "matplotlib", "kiwisolver", "pillow"):
        assert (index / lock["packages"][pkg]["file_name"]).exists(), pkg
    assert not list(index.glob("scipy*")), "only the wheels the deck may import are vendored"
    # the served lock leaves matplotlib's rarely used dependencies to be loaded on demand
    served = json.loads((index / "pyodide-lock.json").read_text())["packages"]
    assert "contourpy" not in served["matplotlib"]["depends"]
    assert "kiwisolver" in served["matplotlib"]["depends"]
    assert (index / served["contourpy"]["file_name"]).exists()
    assert config["onDemand"]["contourpy"] == "contourpy"
    assert config["onDemand"]["fontTools"] == "fonttools"
    assert (built / config["wheel"]).exists()
    # bytecode shipped: compiled wheels carry unchecked hash-based .pyc, the served lock their sha256
    import hashlib
    import zipfile

    numpy_whl = index / served["numpy"]["file_name"]
    assert hashlib.sha256(numpy_whl.read_bytes()).hexdigest() == served["numpy"]["sha256"]
    assert served["numpy"]["sha256"] != lock["packages"]["numpy"]["sha256"]
    names = zipfile.ZipFile(numpy_whl).namelist()
    # sourceless: the .pyc sits where the .py was (test_ship_once.py checks the rest)
    assert "numpy/__init__.pyc" in names and "numpy/__init__.py" not in names
    pyc = zipfile.ZipFile(numpy_whl).read("numpy/__init__.pyc")
    assert pyc[4:8] == (0b01).to_bytes(4, "little")  # PEP 552: hash-based, unchecked
    assert "json/__init__.pyc" in zipfile.ZipFile(index / "python_stdlib.zip").namelist()
    # matplotlib's font list is the build's (the released one is of another version, 390)
    mpl = zipfile.ZipFile(index / served["matplotlib"]["file_name"])
    fonts = json.loads(mpl.read("matplotlib/fontlist.json"))
    assert mpl.namelist().count("matplotlib/fontlist.json") == 1
    assert fonts["_version"] != 390 and any("DejaVuSans.ttf" in f["fname"] for f in fonts["ttflist"])
    imports = json.loads(re.search(r'type="importmap">(.*?)</script>', html, re.S).group(1))
    for name, url in imports["imports"].items():
        assert (built / url).exists(), f"import map entry {name} → {url} is missing"
    # every local reference of the page resolves
    for ref in re.findall(r'(?:href|src)="([^"#:]+)"', html):
        assert (built / ref).exists(), ref


def test_wheel_is_reproducible_and_complete(tmp_path: Path):
    import zipfile

    from dpdeck.build.wheel import build_wheel

    a = build_wheel(ROOT / "pyodide_pkg", "dplab", tmp_path / "a")
    b = build_wheel(ROOT / "pyodide_pkg", "dplab", tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()
    names = zipfile.ZipFile(a).namelist()
    assert "dplab/__init__.py" in names and any(n.endswith(".dist-info/RECORD") for n in names)


def test_failed_build_leaves_dist_intact(built: Path, tmp_path: Path):
    before = (built / "index.html").read_bytes()
    deck = _deck_around(FIXTURES / "bad_chapters" / "bad_python.yaml", tmp_path)
    with pytest.raises(DeckError):
        build(Project(ROOT), deck_file=deck, dist=built)
    assert (built / "index.html").read_bytes() == before
    assert not list(built.parent.glob(".dist-*")), "the staging folder was cleaned up"


def test_cli_check_exit_codes(tmp_path: Path):
    deck = _deck_around(FIXTURES / "bad_chapters" / "unknown_kind.yaml", tmp_path)
    bad = subprocess.run(
        [sys.executable, "build.py", "check", "--deck", str(deck)], cwd=ROOT, capture_output=True, text=True
    )
    assert bad.returncode == 1
    assert "unknown_kind.yaml" in bad.stderr and "field 'kind'" in bad.stderr
    good = subprocess.run([sys.executable, "build.py", "check"], cwd=ROOT, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("ok: ")


def test_check_writes_nothing(tmp_path: Path):
    shutil.copytree(FIXTURES / "good", tmp_path / "good")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    check(Project(ROOT), deck_file=tmp_path / "good" / "deck.yaml")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_markup_in_slide_text_and_notes_is_escaped(tmp_path: Path):
    from dpdeck.build.render import render_slides

    (tmp_path / "c.yaml").write_text(
        "slides:\n"
        "  - title: '<img src=x onerror=alert(1)>'\n"
        '    body: "<script>alert(1)</script> y **negrita**"\n'
        '    notes: "<iframe src=//evil></iframe>"\n',
        encoding="utf-8",
    )
    (tmp_path / "deck.yaml").write_text("title: X\nchapters: [c.yaml]\n", encoding="utf-8")
    view = render_slides(load_deck(tmp_path / "deck.yaml"), ROOT / "node_modules")[0]
    html = view["title_html"] + view["body_html"] + view["notes_html"]
    assert "<script>" not in html and "<iframe" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "<strong>negrita</strong>" in html


def test_the_page_names_every_module_deck_js_imports_statically(built: Path):
    """deck.js runs only once its whole static import graph is fetched, found one level after
    another (deck.js → runtime.js → watchdog.js …): the head names them all (modulepreload)."""
    html = (built / "index.html").read_text(encoding="utf-8")
    static = json.loads(re.search(r'id="deck-config">(.*?)</script>', html, re.S).group(1))["assets"][
        "static"
    ]
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)
    two_levels_down = (f"{static}js/page/runtime.js", f"{static}js/shared/never.js")
    assert all(p in preloaded for p in two_levels_down)
    assert all((built / p).is_file() for p in preloaded)
    assert html.index('rel="modulepreload"') < html.index("<body"), "in the head"
    assert f"{static}js/page/cell.js" not in preloaded  # a dynamic import: loaded when deck.js asks


def test_static_imports_follow_the_graph_breadth_first_and_skip_dynamic_ones(tmp_path: Path):
    from dpdeck.build.frontend import static_imports

    (tmp_path / "lib").mkdir()
    files = {
        "main.js": 'import { a } from "./a.js";\nimport "./lib/b.js";\nconst c = await import("./c.js");\n',
        "a.js": 'export { b } from "./lib/b.js";\nimport x from "./main.js";\n',
        "lib/b.js": "import {\n  d,\n} from '../d.js';\n// import \"./nowhere.js\"; (a comment)\n",
        "c.js": 'import "./d.js";\n',
        "d.js": "export const d = 1;\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert static_imports(tmp_path, "main.js") == ["a.js", "lib/b.js", "d.js"]
