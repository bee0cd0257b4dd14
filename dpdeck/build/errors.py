"""The build's two kinds of failure, told apart by type (and by `build.py`'s exit code).

- :class:`DeckError`: a problem in the deck's sources (``deck/``), which its author fixes; it
  names the file, the slide and the field. ``build.py`` exits with 1.
- :class:`BuildEnvironmentError`: the deck is fine, the machine building it is not: a tool
  (node, npm, pip) is missing or failed (:class:`ToolError`), a front-end package or a file
  the build needs is missing, a download does not match its published sha256
  (:class:`ChecksumError`). ``build.py`` exits with 3 (2 is argparse's, for a bad command line).
"""

from __future__ import annotations

import re
from pathlib import Path

# A field path into a list: ``try[2]`` or ``try[2].replace`` (the entry counted from 1)
_ENTRY_FIELD = re.compile(r"^(?P<name>\w+)\[(?P<n>\d+)\](?:\.(?P<key>\w+))?$")


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``: how an author counts entries."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def field_words(field: str, entry_label: str | None = None) -> str:
    """A field path as an author reads it: ``try[2].replace`` → ``field 'try', 2nd entry
    «ε = 2», key 'replace'``. Paths count entries from 1 (``try[1]`` is the first); the words
    say "1st" so that nobody reads ``[1]`` as Python's second element."""
    match = _ENTRY_FIELD.match(field)
    if not match:
        return f"field '{field}'"
    label = f" «{entry_label}»" if entry_label else ""
    words = f"field '{match['name']}', {ordinal(int(match['n']))} entry{label}"
    return words + (f", key '{match['key']}'" if match["key"] else "")


class DeckError(Exception):
    """A problem in the deck's sources, located as precisely as we can.

    The message reads ``deck/01.yaml:12: slide 3 «El dato de partida», field 'code': ...`` so
    that an author can go straight to the place to fix: ``line`` is the line of the very key or
    list entry at fault where the schema knows it, else the slide's first line. ``field`` is a
    path (``try[2].replace``, entries counted from 1), said in words by :func:`field_words`
    with ``entry_label`` (the entry's own label or name) when given.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        slide: int | None = None,
        title: str | None = None,
        field: str | None = None,
        entry_label: str | None = None,
    ):
        self.message = message
        self.file = file
        self.line = line
        self.slide = slide
        self.title = title
        self.field = field
        self.entry_label = entry_label
        super().__init__(self.describe())

    def describe(self) -> str:
        where = []
        if self.file:
            where.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.slide is not None:
            where.append(f"slide {self.slide}" + (f" «{self.title}»" if self.title else ""))
        if self.field:
            where.append(field_words(self.field, self.entry_label))
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class BuildEnvironmentError(Exception):
    """The build's environment failed, not the deck: say what, and what to do about it."""

    exit_code = 3


class ToolError(BuildEnvironmentError):
    """A command the build runs is missing (``returncode`` None) or failed.

    Keeps the command, its exit code and the tail of its stderr (``STDERR_TAIL`` characters).
    """

    STDERR_TAIL = 800

    def __init__(
        self,
        purpose: str,
        command: list[str],
        returncode: int | None = None,
        stderr: str = "",
        hint: str = "",
    ):
        self.purpose = purpose
        self.command = [str(part) for part in command]
        self.returncode = returncode
        self.stderr = stderr.strip()[-self.STDERR_TAIL :]
        self.hint = hint
        super().__init__(self.describe())

    def describe(self) -> str:
        shown = " ".join(self.command)
        if self.returncode is None:
            text = f"{self.purpose}: `{self.command[0]}` was not found on PATH."
        else:
            text = f"{self.purpose}: `{shown}` exited with code {self.returncode}."
        if self.stderr:
            text += f" Its stderr ends with: {self.stderr}"
        return f"{text} {self.hint}".strip()


class ChecksumError(BuildEnvironmentError):
    """A file that does not have the sha256 its publisher gives for it."""

    def __init__(self, path: Path, expected: str, actual: str, source: str, hint: str = ""):
        self.path = Path(path)
        self.expected = expected
        self.actual = actual
        self.source = source
        super().__init__(
            f"sha256 mismatch for {self.path}: {source} says {expected}, the file "
            f"has {actual}. {hint}".strip()
        )
