"""Web origins and URLs given on a command line or in deck.yaml, checked once.

An *origin* is ``scheme://host[:port]`` with ``http`` or ``https``, nothing after it (a trailing
``/`` is dropped): what a browser sends in ``Origin`` and what a CSP source names. An *absolute
URL* is an http(s) URL with a host (a path allowed): what the hall prints and draws as a QR.
Both raise :class:`ValueError` with a reason in English that a caller puts beside the name of
the field or option it came from.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def _split(value: object, what: str) -> tuple[str, SplitResult]:
    """``value`` as text and its parts, if it is an absolute http(s) address; else ``ValueError``."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what}: expected text such as https://hall.example.edu, got {value!r}")
    if any(c.isspace() or ord(c) < 32 for c in value):
        raise ValueError(f"{what}: no spaces or control characters allowed, got {value!r}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"{what}: {value!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what}: must be an absolute http:// or https:// address, got {value!r}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{what}: no user name or password in the address, got {value!r}")
    return value, parts


def parse_origin(value: object, what: str = "origin") -> str:
    """``value`` as an origin, ``scheme://host[:port]`` in lower case, as a browser writes it in
    ``Origin`` (the scheme's default port left out): no path, query or fragment."""
    text, parts = _split(value, what)
    if parts.path not in ("", "/") or parts.query or parts.fragment or text.endswith(("?", "#")):
        raise ValueError(
            f"{what}: an origin only (scheme://host[:port]), without a path, query or fragment: got {value!r}"
        )
    netloc = parts.netloc.lower()
    if parts.port == DEFAULT_PORTS[parts.scheme]:  # a browser's Origin leaves the default port out
        netloc = netloc.rsplit(":", 1)[0]
    return f"{parts.scheme}://{netloc}"


def parse_url(value: object, what: str = "URL") -> str:
    """``value`` as an absolute http(s) URL (a path allowed, no fragment), as given."""
    text, parts = _split(value, what)
    if parts.fragment or text.endswith("#"):
        raise ValueError(f"{what}: no #fragment in the address, got {value!r}")
    return text if parts.path else text + "/"
