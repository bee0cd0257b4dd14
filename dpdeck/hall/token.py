"""The presenter's secret: 32 random bytes, URL-safe base64, compared in constant time.

Whoever holds it can move every device in the hall and read the true exercise counts; it travels
only in the presenter URL's fragment (never sent to a server, never in a log or a Referer) and
then in an ``Authorization: Bearer`` header.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

TOKEN_BYTES = 32
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{43}")  # 32 bytes, URL-safe base64 without padding


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def load_or_create(path: Path | None) -> str:
    """A new token, or the one kept in ``path`` (created there, mode 0600, when absent or invalid).

    Keeping it lets a restarted server keep the presenter (their page still holds the token).
    """
    if path is None:
        return new_token()
    try:
        kept = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        kept = ""
    if _TOKEN_RE.fullmatch(kept):
        return kept
    token = new_token()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(token + "\n")
    return token


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (constant time in the token's bytes)."""
    if not header or not header.startswith("Bearer "):
        return False
    given = header[len("Bearer ") :].strip().encode("ascii", "replace")
    return secrets.compare_digest(given, token.encode("ascii"))
