"""What the hall writes to its terminal: nothing a client sent is written as it came, and no
address is ever written.

``printable`` escapes every character a terminal or a log reader could take for something else
(C0 and C1 controls, ESC among them, DEL, line and paragraph separators, bidi overrides and the
backslash itself), so a ``%0a`` in a path cannot forge a line and an ``ESC [`` cannot drive the
presenter's terminal. ``AccessLogger`` is the access log's one line a request; ``ServerLog`` is
the logger aiohttp's connections report their errors to (``logger=`` of the runner): a malformed
request is one line with its escaped reason and no traceback, any other error keeps its
traceback, and aiohttp's "from <address>" is dropped from both.
"""

from __future__ import annotations

import logging
import re

from aiohttp.abc import AbstractAccessLogger
from aiohttp.http_exceptions import HttpProcessingError

# C0, DEL, C1, line/paragraph separators, bidi embeddings, overrides and isolates, and "\"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]")
MAX_LOGGED = 300  # characters of a client's text kept in one line (the rest is "…")


def printable(text: object) -> str:
    """``text`` on one line, every unsafe character escaped (``\\n`` → ``\\x0a``, ``\\`` → ``\\x5c``),
    cut at ``MAX_LOGGED`` characters."""
    out = _UNSAFE.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
        str(text),
    )
    return out if len(out) <= MAX_LOGGED else out[:MAX_LOGGED] + "…"


class AccessLogger(AbstractAccessLogger):
    """One line a request: method, path (no query: no device id), status, time. No address, no
    agent; the method and path escaped by ``printable``."""

    def log(self, request, response, time: float) -> None:
        self.logger.info(
            "%s %s %s %.3fs", printable(request.method), printable(request.path), response.status, time
        )


class ServerLog(logging.LoggerAdapter):
    """aiohttp's connection logger (``aiohttp.server``) without addresses: its "Error handling
    request from %s" becomes "refused a malformed request: <reason>" (one line, no traceback)
    for a request the parser refused (at INFO: the client's fault, not the hall's), or "error handling a request" with the traceback for any
    other error; every other message has its arguments escaped."""

    def __init__(self, logger: logging.Logger | None = None):
        super().__init__(logger or logging.getLogger("aiohttp.server"), {})

    def log(self, level, msg, *args, exc_info=None, **kwargs) -> None:
        if isinstance(msg, str) and msg.startswith("Error handling request"):
            exc = exc_info if isinstance(exc_info, BaseException) else None
            if isinstance(exc, HttpProcessingError):
                reason = printable(exc.message or type(exc).__name__)
                self.logger.log(logging.INFO, "refused a malformed request (%s): %s", exc.code, reason)
                return
            self.logger.log(level, "error handling a request", exc_info=exc_info, **kwargs)
            return
        self.logger.log(level, msg, *(printable(a) for a in args), exc_info=exc_info, **kwargs)
