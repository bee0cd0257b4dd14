"""dpdeck/build/editor_assets.py: the API index the editor completes from, the engine's wheels."""

from __future__ import annotations

import ast

import pytest

from dpdeck.build import editor_assets
from dpdeck.build.errors import ChecksumError
from tests.support.paths import ROOT

DPLAB = ROOT / "pyodide_pkg" / "dplab"


def test_index_lists_dplab_public_api_with_signatures_and_spanish_summaries():
    index = editor_assets.api_index(DPLAB)
    by_name = {e["name"]: e for e in index["names"]}
    import dplab

    public = {n for n in dplab.__all__ if callable(getattr(dplab, n))}
    assert public <= set(by_name)
    missing = sorted(n for n in public if not by_name[n]["summary"])
    assert not missing, f"no Spanish summary in dplab/_docs_es.py for {missing}"
    gauss = by_name["gaussian_mech"]
    assert [p["name"] for p in gauss["params"]][:4] == ["v", "sensitivity", "epsilon", "delta"]
    assert {"name": "accountant", "default": "None", "kind": "kw"} in gauss["params"]
    assert "(ε, δ)-DP" in gauss["summary"]
    assert (
        by_name["BudgetAccountant"]["kind"] == "class"
        and by_name["BudgetAccountant"]["params"][0]["name"] == "epsilon"
    )
    assert index["params"]["epsilon"].startswith("presupuesto de privacidad")


def test_every_name_the_prelude_binds_and_every_census_method_has_its_spanish():
    """The prelude (``import numpy as np``, ``import dplab``, ``from dplab import *``,
    ``census = load_census()``): each name it binds, and what ``census.`` completes, is
    documented in Spanish in the editor."""
    import dplab

    index = editor_assets.api_index(DPLAB)
    by_name = {e["name"]: e for e in index["names"]}
    missing = sorted(n for n in dplab.__all__ if not by_name.get(n, {}).get("summary"))
    assert not missing, f"no Spanish summary in dplab/_docs_es.py for {missing}"
    assert {"np", "dplab", "census"} <= set(index["globals"])
    members = {e["name"]: e for e in index["members"]}
    census = [n for n in vars(dplab.Census) if not n.startswith("_")]
    assert census and all(members[f"Census.{n}"]["summary"] for n in census), members
    assert members["Census.columns"]["kind"] == "property"
    assert [p["name"] for p in members["Census.without"]["params"]] == ["name"]
    assert members["Census.without"]["module"] == "census"


def test_every_summary_names_a_public_name():
    tree = ast.parse((DPLAB / "_docs_es.py").read_text(encoding="utf-8"))
    summaries = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and n.targets[0].id == "SUMMARIES"
    )
    names = {e["name"] for e in editor_assets.api_index(DPLAB)["names"]}
    assert set(summaries) <= names, set(summaries) - names


def test_a_package_without_spanish_docs_still_has_an_index(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .core import *\n")
    (pkg / "core.py").write_text(
        '__all__ = ["f", "K"]\nK = 3\ndef f(a, b=2, *c, d, **e):\n    """Doc.\n\n    More."""\n'
    )
    index = editor_assets.api_index(pkg)
    f = next(e for e in index["names"] if e["name"] == "f")
    assert [p["name"] for p in f["params"]] == ["a", "b", "*c", "d", "**e"] and f["doc"] == "Doc."
    assert index["params"] == {} and f["summary"] == ""


def test_a_cached_wheel_with_another_sha256_is_refused(tmp_path):
    folder = tmp_path / "editor"
    folder.mkdir()
    for _name, _version, file, _digest, _size in editor_assets.ENGINE_WHEELS:
        (folder / file).write_bytes(b"not the wheel")
    with pytest.raises(ChecksumError, match="sha256 mismatch"):
        editor_assets.ensure_engine_wheels(tmp_path)


def test_the_vendored_wheels_are_the_pinned_ones_trimmed(tmp_path):
    import zipfile

    from dpdeck.build.files import sha256
    from dpdeck.build.pyodide_dist import cache_dir

    if not all((cache_dir() / "editor" / w[2]).exists() for w in editor_assets.ENGINE_WHEELS):
        pytest.skip("the engine's wheels are not in the cache yet (a build downloads them)")
    shipped = editor_assets.vendor_engine(cache_dir(), tmp_path, "static-x/")
    assert [w["url"] for w in shipped] == [f"static-x/wheels/{w[2]}" for w in editor_assets.ENGINE_WHEELS]
    for entry, (_n, _v, file, _digest, size) in zip(shipped, editor_assets.ENGINE_WHEELS, strict=True):
        path = tmp_path / "wheels" / file
        assert entry["sha256"] == sha256(path) and entry["bytes"] == path.stat().st_size <= size
        names = zipfile.ZipFile(path).namelist()
        assert not [n for n in names if n.startswith(editor_assets.TRIMMED)]
        record = zipfile.ZipFile(path).read(next(n for n in names if n.endswith("RECORD"))).decode()
        assert {line.split(",")[0] for line in record.splitlines()} == set(names)
    jedi = zipfile.ZipFile(tmp_path / "wheels" / editor_assets.ENGINE_WHEELS[0][2]).namelist()
    assert "jedi/third_party/typeshed/stdlib/builtins.pyi" in jedi and "jedi/api/__init__.py" in jedi
    assert shipped[0]["bytes"] < 2_500_000
    again = editor_assets.vendor_engine(cache_dir(), tmp_path / "again", "static-x/")
    assert again == shipped  # reproducible: the same bytes every build
