"""The JSON Schema of the deck's YAML (dpdeck/build/jsonschema.py): every chapter of this deck
passes it, the broken fixtures whose fault is one of structure are refused by it, and it says
what the build's one table says (dpdeck/build/fields.py: fields, kinds, descriptions)."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from dpdeck.build import fields
from dpdeck.build.jsonschema import schemas, write_schemas
from tests.support.paths import ROOT

BAD = ROOT / "tests" / "fixtures" / "bad_chapters"
SCHEMAS = schemas()
CHAPTER = jsonschema.Draft7Validator(SCHEMAS["chapter.schema.json"])
DECK = jsonschema.Draft7Validator(SCHEMAS["deck.schema.json"])

# faults of structure: a schema sees them (the rest need Python, KaTeX or the file system)
STRUCTURAL = [
    "code_on_content", "code_without_code", "empty_slides", "layout_unknown", "missing_title",
    "params_not_list", "question_without_answer", "try_no_label",
    "try_not_a_pair", "try_not_list", "try_on_content", "try_unknown_key", "unknown_key",
    "unknown_kind", "wrong_type", "unknown_key_suggests", "try_unknown_key_suggests",
]  # fmt: skip
ONLY_THE_BUILD = {
    "bad_math", "bad_python", "duplicate_id", "empty_slide", "malformed_yaml", "missing_image",
    "remote_image", "slider_annotated", "slider_augmented", "slider_computed", "slider_in_def",
    "slider_in_loop", "slider_shared_line", "slider_tuple", "slider_twice", "slider_unbound",
    "slider_value_mismatch", "table_ragged", "try_bad_python", "try_old_missing", "try_old_twice",
    "try_same_label", "yaml_colon_in_text", "yaml_duplicate_key", "yaml_indent", "yaml_markdown_star",
    "yaml_tab", "yaml_text_not_indented", "yaml_unclosed_bracket",
}  # fmt: skip


@pytest.mark.parametrize("chapter", sorted((ROOT / "deck").glob("0*.yaml")), ids=lambda p: p.name)
def test_every_chapter_of_the_deck_passes(chapter):
    errors = [e.message for e in CHAPTER.iter_errors(yaml.safe_load(chapter.read_text()))]
    assert not errors, errors


def test_the_deck_file_passes_and_a_missing_title_does_not():
    deck = yaml.safe_load((ROOT / "deck" / "deck.yaml").read_text())
    assert DECK.is_valid(deck)
    del deck["title"]
    assert not DECK.is_valid(deck)


@pytest.mark.parametrize("name", [n for n in STRUCTURAL if (BAD / f"{n}.yaml").exists()])
def test_a_structural_fault_is_refused(name):
    assert not CHAPTER.is_valid(yaml.safe_load((BAD / f"{name}.yaml").read_text())), name


def test_every_fixture_is_sorted_into_one_list():
    """A new broken fixture must say whether a schema can see its fault."""
    names = {p.stem for p in BAD.glob("*.yaml")}
    assert names <= set(STRUCTURAL) | ONLY_THE_BUILD, names - set(STRUCTURAL) - ONLY_THE_BUILD


def test_it_says_what_the_tables_say():
    slide = SCHEMAS["chapter.schema.json"]["properties"]["slides"]["items"]
    assert list(slide["properties"]) == [f.name for f in fields.SLIDE_FIELDS]
    assert slide["properties"]["kind"]["enum"] == list(fields.KINDS)
    assert slide["required"] == ["title"]
    assert "Markdown" in slide["properties"]["body"]["description"]  # the field's doc
    for f in (*fields.SLIDE_FIELDS, *fields.PARAM_FIELDS, *fields.TRY_FIELDS, *fields.DECK_FIELDS):
        assert f.doc, f"every field needs its doc in dpdeck/build/fields.py: {f.name}"
    needs = {name for rule in slide["allOf"] for name in rule["then"].get("required", ()) if name != "kind"}
    assert needs == {f.name for f in fields.SLIDE_FIELDS if f.needed_by}


def test_a_polls_epsilon_has_dplabs_maximum():
    from dplab.local import MAX_LOCAL_EPSILON

    slide = SCHEMAS["chapter.schema.json"]["properties"]["slides"]["items"]
    assert slide["properties"]["epsilon"]["maximum"] == MAX_LOCAL_EPSILON == 20.0
    assert slide["properties"]["epsilon"]["exclusiveMinimum"] == 0.0
    poll = {"kind": "poll", "title": "E", "body": "¿Sí?"}
    assert CHAPTER.is_valid({"slides": [{**poll, "epsilon": 20}]})
    for bad in (20.5, 0, -1):
        assert not CHAPTER.is_valid({"slides": [{**poll, "epsilon": bad}]}), bad


def test_the_build_writes_them(tmp_path):
    paths = write_schemas(tmp_path)
    assert [p.name for p in paths] == ["deck.schema.json", "chapter.schema.json"]
    assert all(p.read_text().startswith("{") for p in paths)
