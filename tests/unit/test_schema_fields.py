"""The one table of fields (dpdeck/build/fields.py) is where a slide field is stated: the build's
checks, its Slide, the JSON Schema and the authors' field list in docs/writing-slides.md all
follow from it, so that adding a field is one entry in the table."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from dpdeck.build import fields, schema
from dpdeck.build.errors import DeckError
from tests.support.paths import ROOT


def test_the_docs_field_list_is_the_tables():
    written = fields.documented(fields.DOC.read_text(encoding="utf-8"))
    assert written is not None, f"{fields.DOC} lost its generated field list"
    assert written == fields.markdown(), "stale field list: run `.venv/bin/python -m dpdeck.build.fields`"
    for f in fields.SLIDE_FIELDS:
        assert f"| `{f.name}` |" in written


def test_the_slide_has_one_attribute_per_stored_field_with_its_default():
    by_name = {a.name: a for a in dataclasses.fields(schema.Slide)}
    for f in fields.SLIDE_FIELDS:
        if f.attribute is None:
            assert f.name not in by_name, f.name  # read into another record (Slide.poll)
            continue
        attribute = by_name[f.attribute]
        default = (
            attribute.default_factory()
            if attribute.default_factory is not dataclasses.MISSING
            else attribute.default
        )
        assert default == (dataclasses.MISSING if f.required else f.default), f.name
    assert list(by_name)[:3] == ["index", "file", "line"]


def test_every_kind_and_field_rule_is_one_the_table_states():
    assert schema.SLIDE_KINDS["question"] == ("body", "answer")
    assert schema.SLIDE_KINDS["exercise"] == ("body", "starter", "check", "solution")
    assert schema.KIND_ONLY_FIELDS["try"] == ("code", "poll")
    # grouped by kind, as the build has always reported a slide's first misplaced field
    assert list(schema.KIND_ONLY_FIELDS)[:6] == ["code", "layout", "params", "try", "answer", "table"]
    assert list(schema.SLIDE_DEFAULTS) == [f.name for f in fields.SLIDE_FIELDS]


# A new field stated only in the table: the build takes it, stores it, refuses it on the wrong
# kind or with the wrong type, and the JSON Schema and the docs list it. Run in a fresh
# interpreter, since the table is read when dpdeck.build.schema is imported.
NEW_FIELD = r"""
import json, sys
from dpdeck.build import fields
fields.SLIDE_FIELDS = fields.SLIDE_FIELDS + (
    fields.Field("caption", str, "", "a line under the figure", ("code",)),
)
from dpdeck.build import jsonschema, schema
from dpdeck.build.errors import DeckError

def load(slide):
    try:
        return schema._load_slide(slide, 1, "ch.yaml").caption
    except DeckError as exc:
        return str(exc)

slide = {"kind": "code", "title": "T", "code": "x = 1"}
out = {
    "stored": load({**slide, "caption": "Figura 1"}),
    "default": load(slide),
    "wrong_kind": load({"title": "T", "body": "b", "caption": "c"}),
    "wrong_type": load({**slide, "caption": ["c"]}),
    "json": jsonschema.schemas()["chapter.schema.json"]["properties"]["slides"]["items"]["properties"]["caption"],
    "docs": "| `caption` |" in fields.markdown(),
}
print(json.dumps(out))
"""


def test_a_field_added_to_the_table_alone_is_checked_stored_and_documented():
    run = subprocess.run(
        [sys.executable, "-c", NEW_FIELD], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    out = json.loads(run.stdout)
    assert out["stored"] == "Figura 1" and out["default"] == ""
    assert (
        out["wrong_kind"] == "ch.yaml, slide 1 «T», field 'caption': only slides of kind code take this field"
    )
    assert out["wrong_type"] == "ch.yaml, slide 1 «T», field 'caption': must be str, got list ['c']"
    assert out["json"]["description"] == "a line under the figure" and out["docs"]


CODE = {"kind": "code", "title": "T", "code": "x = 1"}
EXERCISE = {
    "kind": "exercise",
    "title": "T",
    "body": "b",
    "starter": "b = ...",
    "check": "pass",
    "solution": "b = 1",
}


@pytest.mark.parametrize(
    "slide, key",
    [(CODE, "title"), (CODE, "params"), (CODE, "try"), (EXERCISE, "hints")],
    ids=lambda x: str(x),
)
def test_a_field_left_empty_that_nothing_may_stand_in_for_is_refused_not_a_crash(slide, key):
    """``title:`` or ``params:`` with nothing after it (YAML null) once crashed the build."""
    with pytest.raises(DeckError) as info:
        schema._load_slide({**slide, key: None}, 1, "ch.yaml")
    assert info.value.field == key and info.value.message.endswith("got nothing (null)")
    schema._load_slide(slide, 1, "ch.yaml")  # and the slide without it is fine


POLL = {"kind": "poll", "title": "Encuesta", "body": "¿Sí?"}


def test_a_polls_epsilon_is_refused_above_dplabs_bound_naming_file_slide_and_field():
    """dplab.local.MAX_LOCAL_EPSILON (20: above it randomized response's float coin reveals more
    than ε) is the poll field's maximum, read from dplab itself, not copied."""
    from dplab import local

    assert fields.MAX_POLL_EPSILON is local.MAX_LOCAL_EPSILON == 20.0
    epsilon = next(f for f in fields.SLIDE_FIELDS if f.name == "epsilon")
    assert (epsilon.above, epsilon.maximum) == (0.0, local.MAX_LOCAL_EPSILON)
    assert schema._load_slide({**POLL, "epsilon": 20}, 1, "ch.yaml").poll.epsilon == 20.0
    for too_large in (20.000000000000004, 25, 1e300):
        with pytest.raises(DeckError) as info:
            schema._load_slide({**POLL, "epsilon": too_large}, 3, "ch.yaml")
        assert info.value.field == "epsilon"
        assert str(info.value).startswith(
            f"ch.yaml, slide 3 «Encuesta», field 'epsilon': must be at most 20, got {too_large!r}"
        )
    with pytest.raises(DeckError, match="field 'epsilon': must be > 0 and finite, got 0"):
        schema._load_slide({**POLL, "epsilon": 0}, 1, "ch.yaml")
    assert "at most 20" in fields.markdown()  # the authors' field list says it too


def test_the_hall_takes_exactly_the_polls_a_slide_may_declare():
    """The hall's bound on a poll's options is the slide field's (it accepted 64 against 10)."""
    from dpdeck.hall.messages import LiveSpec

    most = fields.field_named(fields.SLIDE_FIELDS, "options").items[1]
    assert LiveSpec.from_json({"polls": {"p": {"k": most}}}).polls == {"p": most}
    with pytest.raises(ValueError, match="2 ≤ k ≤ 10"):
        LiveSpec.from_json({"polls": {"p": {"k": most + 1}}})


def test_a_table_slide_and_its_schema_take_the_sub_fields_of_one_table():
    """``columns`` and ``rows``: the build's check and the JSON Schema both read TABLE_FIELDS."""
    from dpdeck.build import jsonschema

    table = jsonschema.schemas()["chapter.schema.json"]["properties"]["slides"]["items"]["properties"][
        "table"
    ]
    assert sorted(table["properties"]) == sorted(f.name for f in fields.TABLE_FIELDS)
    assert table["required"] == ["columns", "rows"]
    with pytest.raises(DeckError, match="unknown key 'colums'|'colums'"):
        schema._check_table({"colums": [], "rows": []}, lambda m, field=None, line=None: DeckError(m))


def test_a_polls_defaults_and_ranges_are_the_tables():
    """A poll slide given nothing gets the table's defaults; its JSON Schema states the ranges."""
    from dpdeck.build import jsonschema

    poll = schema._check_poll(
        {
            "options": fields.field_named(fields.SLIDE_FIELDS, "options").default,
            "epsilon": fields.field_named(fields.SLIDE_FIELDS, "epsilon").default,
            "prior": 0.5,
        },
        lambda m, field=None: DeckError(m),
    )
    assert (poll.options, round(poll.epsilon, 6), poll.prior, poll.yes_no) == (
        ["no", "sí"],
        1.098612,
        0.5,
        True,
    )
    props = jsonschema.schemas()["chapter.schema.json"]["properties"]["slides"]["items"]["properties"]
    assert (props["options"]["minItems"], props["options"]["maxItems"]) == (2, 10)
    assert (props["prior"]["exclusiveMinimum"], props["prior"]["exclusiveMaximum"]) == (0.0, 1.0)
