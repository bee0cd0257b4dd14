"""deckbuild/watch.py's pure parts: what changed, whether the page must reload, the page served."""

from __future__ import annotations

import os

from deckbuild.watch import changed_files, inject_client, needs_reload, snapshot


def test_a_snapshot_sees_edits_additions_and_removals_but_not_caches_or_outputs(tmp_path):
    deck = tmp_path / "deck"
    (deck / "dist").mkdir(parents=True)
    (deck / "__pycache__").mkdir()
    (deck / "a.yaml").write_text("slides: []")
    (deck / "dist" / "index.html").write_text("built")
    (deck / "__pycache__" / "x.pyc").write_bytes(b"0")
    (deck / ".a.yaml.swp").write_text("editor")
    before = snapshot([deck])
    assert set(before) == {str(deck / "a.yaml")}
    (deck / "a.yaml").write_text("slides: [1]")
    os.utime(deck / "a.yaml", ns=(1, 1))
    (deck / "b.yaml").write_text("")
    after = snapshot([deck])
    assert changed_files(before, after) == {str(deck / "a.yaml"), str(deck / "b.yaml")}
    (deck / "b.yaml").unlink()
    assert changed_files(after, snapshot([deck])) == {str(deck / "b.yaml")}
    assert snapshot([tmp_path / "missing"]) == {}


def test_only_a_change_of_the_decks_yaml_keeps_the_page(tmp_path):
    chapter, static = tmp_path / "01.yaml", tmp_path / "static" / "deck.js"
    assert not needs_reload([str(chapter)], [chapter])
    assert needs_reload([str(chapter), str(static)], [chapter])
    assert needs_reload([str(tmp_path / "02.yaml")], [chapter])  # a new chapter: order may change


def test_the_client_goes_into_the_head_once():
    page = "<html><head><title>x</title></head><body></body></html>"
    served = inject_client(page)
    assert served.count('src="/_watch/client.js"') == 1
    assert served.index("/_watch/client.js") < served.index("</head>")
