"""A cell's source: the file name its frames carry, the lines tracebacks quote, and its code
compiled so that the last expression, if any, is evaluated for display."""

from __future__ import annotations

import ast
import linecache

CELL_FILE_PREFIX = "<celda "  # every cell's frames are in a file named "<celda id>"
PAGE_SNIPPET = "__page__"  # the cell id of the page's own snippets (runtime.js, Runtime.evaluate)


def cell_filename(cell_id: str) -> str:
    return f"{CELL_FILE_PREFIX}{cell_id}>"


def register_source(cell_id: str, code: str) -> None:
    """Let tracebacks quote the cell's own lines; never for the page's own snippet, which may
    hold a true answer (poll.js): no copy of it is kept."""
    if cell_id == PAGE_SNIPPET:
        return
    filename = cell_filename(cell_id)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)


def compile_cell(code: str, filename: str):
    """``(body, tail)``: the cell's statements, and its last expression (or None) to display."""
    tree = ast.parse(code, filename=filename, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec")
    tail = compile(last, filename, "eval") if last is not None else None
    return body, tail
