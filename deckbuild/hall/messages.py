"""What the hall accepts: the polls and exercises of ``dist/live.json``, and every body checked.

Each ``parse_*`` takes the raw bytes of a request body and returns a clean dict, or raises
``Invalid`` with a short Spanish reason (sent back as plain text, never as HTML). Bodies are
JSON objects of at most ``MAX_BODY`` bytes; integers are real integers (``true`` is refused).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..fields import SLIDE_FIELDS, field_named

MAX_BODY = 1024  # bytes, every POST body (docs/live-hall-protocol.md)
DEVICE_RE = re.compile(r"^[0-9a-f]{32}$")  # 128 random bits in hex, made by the page
TOKEN_RE = DEVICE_RE  # an answer's or a solve's token: 128 random bits, one per poll or exercise
ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")  # poll and exercise ids (slide ids)
MAX_INDEX = 10_000  # a slide or fragment index beyond this is not a deck's
MAX_SEQ = 2**53  # the largest integer a page's JSON keeps exactly
MAX_K = field_named(SLIDE_FIELDS, "options").items[1]  # the most answers a poll slide may offer

log = logging.getLogger("deckbuild.hall")


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
        polls, slides = {}, {}
        for poll_id, spec in (data.get("polls") or {}).items():
            k = spec.get("k") if isinstance(spec, dict) else None
            if not ID_RE.match(str(poll_id)) or not _is_int(k) or not 2 <= k <= MAX_K:
                raise ValueError(f"live.json: poll {poll_id!r} needs an id and 2 ≤ k ≤ {MAX_K}, got {spec!r}")
            polls[poll_id] = k
            slide = spec.get("slide")
            if slide is not None:
                if not _is_int(slide) or not 0 <= slide <= MAX_INDEX:
                    raise ValueError(f"live.json: poll {poll_id!r} has a bad slide index {slide!r}")
                slides[poll_id] = slide
        exercises = [str(e) for e in (data.get("exercises") or [])]
        bad = [e for e in exercises if not ID_RE.match(e)]
        if bad:
            raise ValueError(f"live.json: bad exercise ids {bad!r}")
        return cls(polls, frozenset(exercises), slides)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _object(body: bytes) -> dict:
    if len(body) > MAX_BODY:
        raise Invalid(f"cuerpo demasiado largo (máximo {MAX_BODY} bytes)")
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise Invalid("el cuerpo no es JSON válido") from exc
    if not isinstance(data, dict):
        raise Invalid("se esperaba un objeto JSON")
    return data


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _int(data: dict, key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not _is_int(value) or not low <= value <= high:
        raise Invalid(f"«{key}» debe ser un entero entre {low} y {high}")
    return value


def device_id(value) -> str:
    if not isinstance(value, str) or not DEVICE_RE.match(value):
        raise Invalid("identificador de dispositivo no válido (32 cifras hexadecimales)")
    return value


def parse_state(body: bytes) -> dict:
    """The presenter's position: ``{seq, indexh, indexv, indexf}`` (indexf −1: no fragment shown)."""
    data = _object(body)
    return {
        "seq": _int(data, "seq", 0, MAX_SEQ),
        "indexh": _int(data, "indexh", 0, MAX_INDEX),
        "indexv": _int(data, "indexv", 0, MAX_INDEX),
        "indexf": _int(data, "indexf", -1, MAX_INDEX),
    }


def _listed(data: dict, key: str, listed, unknown: str) -> str:
    """``data[key]``, a text that ``live.json`` lists in ``listed``; else ``Invalid(unknown)``."""
    value = data.get(key)
    if not isinstance(value, str) or value not in listed:
        raise Invalid(unknown)
    return value


def token(value) -> str:
    if not isinstance(value, str) or not TOKEN_RE.match(value):
        raise Invalid("ficha no válida (32 cifras hexadecimales)")
    return value


def parse_answer(body: bytes, spec: LiveSpec) -> dict:
    """A randomized answer to a poll ``live.json`` lists, in ``0 … k-1``, under the token the
    device drew for this poll alone (no device id: nothing links two polls), with the admission
    ticket the hall sent this device for the poll's round (``ticket``: None when absent, which
    the hall refuses as not admitted)."""
    data = _object(body)
    poll = _listed(data, "poll", spec.polls, "encuesta desconocida")
    answer = _int(data, "answer", 0, spec.polls[poll] - 1)
    ticket = data.get("ticket")
    if ticket is not None and (not isinstance(ticket, str) or not TOKEN_RE.match(ticket)):
        raise Invalid("ficha de admisión no válida (32 cifras hexadecimales)")
    return {"token": token(data.get("token")), "poll": poll, "answer": answer, "ticket": ticket}


def parse_solved(body: bytes, spec: LiveSpec) -> dict:
    """A solved exercise ``live.json`` lists, under the token the device drew for it alone."""
    data = _object(body)
    exercise = _listed(data, "exercise", spec.exercises, "ejercicio desconocido")
    return {"token": token(data.get("token")), "exercise": exercise}


def parse_release(body: bytes, spec: LiveSpec) -> dict:
    """The presenter asks for an exercise's noised count: ``again`` true draws (and spends) anew."""
    data = _object(body)
    exercise = _listed(data, "exercise", spec.exercises, "ejercicio desconocido")
    again = data.get("again", False)
    if not isinstance(again, bool):
        raise Invalid("«again» debe ser true o false")
    return {"exercise": exercise, "again": again}


def parse_reset(body: bytes, spec: LiveSpec) -> str:
    return _listed(_object(body), "poll", spec.polls, "encuesta desconocida")
