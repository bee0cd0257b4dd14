"""A YAML syntax error in an author's words, at the line the author must fix.

PyYAML describes its parser's state ("while parsing a block collection … expected <block end>,
but found '<block mapping start>'") and, for an indentation slip, its first mark points at the
start of the enclosing list rather than at the line out of place. :func:`explain` says what
probably went wrong in terms of the deck's files (a quote never closed, a ``: `` inside an
unquoted text, a line indented out of step, Markdown ``*`` at the start of a value, a tab) and
picks, per kind of error, the line that holds the mistake. An error it does not know keeps
PyYAML's own words, at PyYAML's line.
"""

from __future__ import annotations

import re

import yaml

_QUOTE_NEVER_CLOSED = (
    "this quoted text is never closed: add its closing {quote} (a {quote} inside it is written {escaped})"
)
_INDENT = (
    "this line does not line up with the lines above it: the keys of one slide start in one "
    "column, and each slide starts with '- ' under 'slides:'"
)


def _line_text(text: str, line: int | None) -> str:
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return ""
    return lines[line - 1].strip()


def _char_at(text: str, mark) -> str:
    lines = text.splitlines()
    try:
        return lines[mark.line][mark.column]
    except (IndexError, AttributeError):
        return '"'


def _classify(exc: yaml.MarkedYAMLError, text: str) -> tuple[str, str]:
    """(which mark: "context" or "problem", the words) for a known error, else ("", "")."""
    context = exc.context or ""
    problem = exc.problem or ""
    same_line = (
        exc.context_mark is not None
        and exc.problem_mark is not None
        and exc.context_mark.line == exc.problem_mark.line
    )
    if context.startswith("while scanning a quoted scalar"):
        quote = _char_at(text, exc.context_mark)
        escaped = "''" if quote == "'" else '\\"'
        return "context", _QUOTE_NEVER_CLOSED.format(quote=quote, escaped=escaped)
    if problem.startswith("duplicate key"):
        return "problem", f"the {problem}: the second would silently replace the first"
    if problem == "mapping values are not allowed here":
        return "problem", (
            "a ': ' inside a text that is not quoted, or a line indented deeper than the key above: "
            'put the text in quotes ("…") or in a block (`key: |`), or fix the indentation'
        )
    if problem.startswith("expected <block end>") and "'<scalar>'" in problem:
        return "problem", 'text after a closing quote or bracket: put the whole value in quotes ("…")'
    if problem.startswith("expected <block end>"):
        return "problem", _INDENT
    if "cannot start any token" in problem:
        char = re.search(r"found character '(.*)' that", problem)
        if char and char.group(1) == "\\t":
            return "problem", "a tab character: YAML indents with spaces only"
        shown = char.group(1) if char else "it"
        return "problem", f'a value cannot start with {shown}: put it in quotes ("…")'
    if context.startswith(("while scanning an alias", "while scanning an anchor")) or problem.startswith(
        "found undefined alias"
    ):
        return "problem", (
            "a value that starts with * or & (Markdown emphasis?) must be in quotes: YAML reads "
            "*name as a reference to an anchor"
        )
    if context.startswith("while scanning a block scalar"):
        return "problem", "after '|' or '>' the text starts on the next line, indented under its key"
    if context.startswith("while scanning a simple key"):
        return "context", (
            "this line is neither 'key: value' (a ':' missing?) nor part of a text: a text of "
            "several lines goes in a block (`key: |`), every line indented under the key"
        )
    if context.startswith(("while parsing a flow sequence", "while parsing a flow mapping")):
        if same_line:
            return "problem", (
                "inside [...] or {...}, a value holding ':', ',', '#', '[' or '{' must be in quotes"
            )
        pair = "[...]" if "sequence" in context else "{...}"
        return "context", f"the {pair} opened on this line is never closed"
    if problem.startswith("expected '<document start>'"):
        return (
            "problem",
            "the file must be one mapping (such as 'slides:' and its list): this line is outside it",
        )
    return "", ""


def explain(exc: yaml.YAMLError, text: str) -> tuple[str, int | None]:
    """(what went wrong, in an author's words and quoting the line; the 1-based line to fix)."""
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"YAML cannot read the file: {exc}", None
    which, words = _classify(exc, text)
    if not which:
        which = "context" if exc.context_mark is not None else "problem"
        detail = f"{exc.context}: {exc.problem}" if exc.context else exc.problem
        words = f"YAML cannot read this ({detail})"
    mark = exc.context_mark if which == "context" and exc.context_mark is not None else exc.problem_mark
    line = mark.line + 1
    quoted = _line_text(text, line)
    return (f"{words}; the line reads: {quoted}" if quoted else words), line
