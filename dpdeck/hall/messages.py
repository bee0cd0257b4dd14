"""What the hall accepts: the polls and exercises of ``dist/live.json``, and every body checked.

``parse(path, raw, spec)`` takes the raw bytes of a POST's body and returns a clean dict, or
raises ``Invalid`` with a short Spanish reason (sent back as plain text, never as HTML). Bodies
are JSON objects of at most ``MAX_BODY`` bytes whose fields meet the rules that
``dpdeck/wire/hall.py`` declares for the route, and no others: integers are real integers
(``true`` is refused), tokens 32 hex digits, polls and exercises the ones ``live.json`` lists.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from ..wire.hall import route
from ..wire.rules import HEX128_PATTERN, MAX_INDEX, POLL_OPTIONS, Body, Field
from . import texts

MAX_BODY = 1024  # bytes, every POST body (docs/live-hall-protocol.md)
# the patterns below are used with fullmatch only: "$" would accept a trailing "\n"
HEX128_RE = re.compile(HEX128_PATTERN)  # 128 random bits in hex: a device id, a token, a ticket
ID_RE = re.compile(r"[A-Za-z0-9_.:-]{1,100}")  # poll and exercise ids (slide ids)


MAX_K = POLL_OPTIONS[1]  # the most answers a poll slide may offer

log = logging.getLogger("dpdeck.hall")


class Invalid(ValueError):
    """A request body the hall refuses (400)."""


@dataclass(frozen=True)
class LiveSpec:
    """The build's ``live.json``: ``polls`` (id → number of options k), ``exercises``, and
    ``slides`` (poll id → the ``indexh`` of its slide: the hall shows a poll, and admits the
    devices connected then, when the presenter's position reaches it)."""

    polls: dict[str, int] = field(default_factory=dict)
    exercises: frozenset[str] = frozenset()
    slides: dict[str, int] = field(default_factory=dict)

    def poll_at(self, indexh: int, indexv: int = 0) -> str | None:
        """The poll whose slide is at ``(indexh, indexv)``, if any (the deck's slides are flat)."""
        if indexv != 0:
            return None
        return next((poll for poll, h in self.slides.items() if h == indexh), None)

    @classmethod
    def load(cls, dist: Path) -> LiveSpec:
        """Read ``dist/live.json``; absent means no polls and no exercises (the hall still runs)."""
        path = dist / "live.json"
        if not path.exists():
            log.info("no live.json in %s: the hall has no polls and no exercises", dist)
            return cls()
        return cls.read(path)

    @classmethod
    def read(cls, path: Path) -> LiveSpec:
        """Read a ``live.json`` (a hall alone, ``--live``: the file must be there)."""
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    @classmethod
    def from_json(cls, data) -> LiveSpec:
        if not isinstance(data, dict):
            raise ValueError(f"live.json: expected an object, got {type(data).__name__}")
        polls: dict[str, int] = {}
        slides: dict[str, int] = {}
        for poll_id, spec in (data.get("polls") or {}).items():
            k = spec.get("k") if isinstance(spec, dict) else None
            if not ID_RE.fullmatch(str(poll_id)) or not _is_int(k) or not 2 <= k <= MAX_K:
                raise ValueError(f"live.json: poll {poll_id!r} needs an id and 2 ≤ k ≤ {MAX_K}, got {spec!r}")
            polls[poll_id] = k
            slide = spec.get("slide")
            if slide is not None:
                if not _is_int(slide) or not 0 <= slide <= MAX_INDEX:
                    raise ValueError(f"live.json: poll {poll_id!r} has a bad slide index {slide!r}")
                slides[poll_id] = slide
        exercises = [str(e) for e in (data.get("exercises") or [])]
        bad = [e for e in exercises if not ID_RE.fullmatch(e)]
        if bad:
            raise ValueError(f"live.json: bad exercise ids {bad!r}")
        return cls(polls, frozenset(exercises), slides)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _object(body: bytes) -> dict:
    if len(body) > MAX_BODY:
        raise Invalid(texts.BODY_TOO_LONG.format(limit=MAX_BODY))
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise Invalid(texts.NOT_JSON) from exc
    if not isinstance(data, dict):
        raise Invalid(texts.NOT_AN_OBJECT)
    return data


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _high(field: Field, spec: LiveSpec, poll: str | None) -> int:
    """An integer field's largest value: its rule's, or below the options of the body's poll."""
    high = field.rule.high
    if isinstance(high, int):
        return high
    if high == "k-1" and poll is not None:
        return spec.polls[poll] - 1
    # a declaration's fault (dpdeck/wire), not the request's: found by the protocol's tests
    raise ValueError(f"{field.name}: high {high!r} needs a poll field declared before it")


def _checked(field: Field, data: dict, spec: LiveSpec, poll: str | None):
    """``data[field.name]`` if it meets the field's rule (wire.rules.Rule), else ``Invalid``."""
    if data.get(field.name) is None and not field.required:  # absent or null
        return field.absent
    value, rule = data.get(field.name), field.rule
    if rule.kind == "int":
        high = _high(field, spec, poll)
        if not _is_int(value) or not rule.low <= value <= high:
            raise Invalid(texts.NOT_AN_INTEGER.format(key=field.name, low=rule.low, high=high))
    elif rule.kind == "hex128":
        if not isinstance(value, str) or not HEX128_RE.fullmatch(value):
            raise Invalid(texts.NOT_HEX128.format(key=field.name))
    elif rule.kind == "listed":
        if not isinstance(value, str) or value not in getattr(spec, rule.table):
            raise Invalid(texts.NOT_LISTED[rule.table])
    elif not isinstance(value, bool):  # "flag"
        raise Invalid(texts.NOT_A_FLAG.format(key=field.name))
    return value


def parse_fields(body: Body, data: dict, spec: LiveSpec) -> dict:
    """``data``'s fields of ``body``, each checked against its rule, in order (an answer's
    range needs its poll, declared before it); a field it does not declare is dropped."""
    out: dict = {}
    for declared in body.fields:
        out[declared.name] = _checked(declared, data, spec, out.get("poll"))
    return out


def parse(body: Body, raw: bytes, spec: LiveSpec) -> dict:
    """A POST's ``body`` as its route declares it (``wire.hall.ROUTES``): at most ``MAX_BODY``
    bytes of a JSON object whose fields meet their rules; else ``Invalid`` with the reason."""
    return parse_fields(body, _object(raw), spec)


_STREAM_QUERY = route("events").body
_NO_SPEC = LiveSpec()  # a device id's rule reads nothing of live.json


def device_id(query) -> str:
    """The ``device`` of the live channel's query (``GET /_hall/events?device=<id>``)."""
    assert _STREAM_QUERY is not None
    return parse_fields(_STREAM_QUERY, dict(query), _NO_SPEC)["device"]
