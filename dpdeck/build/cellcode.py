"""What the build reads in the Python of a cell, by parsing it (``ast``), never running it.

- :func:`check_python`: the code is Python, or a DeckError with the line inside the cell;
- :func:`binding`: where a live control bound to a name writes (its one top-level
  ``name = <literal>`` line), or why it cannot (ValueError); the page (``static/js/page/params.js``)
  replaces exactly the literal this finds;
- :func:`blanks`: the names an exercise's starter assigns ``...`` (the blanks to fill).
- :func:`edit_syntax_error`: whether a suggested edit (``try:``) leaves the cell Python.
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["binding", "blanks", "check_python", "edit_syntax_error"]


def check_python(code: str, err, field_name: str) -> None:
    """Refuse code that is not valid Python syntax, with the line inside the cell."""
    try:
        ast.parse(code, filename="<cell>")
    except SyntaxError as exc:
        raise err(
            f"invalid Python syntax at line {exc.lineno} of the cell: {exc.msg}", field=field_name
        ) from None


_NEW_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _module_bindings(statement: ast.stmt) -> set[str]:
    """The names ``statement`` binds in the cell's (module) scope: assignments of every form,
    loop and ``with`` targets, imports, definitions; not the locals of a def, lambda, class
    or comprehension inside it."""
    names: set[str] = set()
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if not isinstance(node, _NEW_SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return names


_STATEMENT_KINDS = {
    ast.For: "a for loop",
    ast.AnnAssign: "an annotated assignment",
    ast.AugAssign: "an augmented assignment",
    ast.Assign: "a multiple assignment",
    ast.With: "a with statement",
    ast.Import: "an import",
    ast.ImportFrom: "an import",
    ast.FunctionDef: "a def",
    ast.ClassDef: "a class",
    ast.If: "an if",
    ast.While: "a while loop",
    ast.Try: "a try",
}


def _literal(node: ast.expr):
    """The value of a number, string or boolean literal (``-2.5`` included), else raise."""
    value = ast.literal_eval(node)
    if not isinstance(value, (int, float, str)):
        raise ValueError(f"not a number, string or boolean: {value!r}")
    return value


def binding(code: str, name: str) -> tuple[int, str, str, Any]:
    """Where a control bound to ``name`` writes: (line, prefix, suffix, value) of the cell's
    only top-level binding of ``name``, which must be ``name = <literal>`` alone on its line.
    Anything else (a loop, a def, an annotated, augmented or tuple assignment, a second
    binding, a computed value) would let the control change nothing: ValueError, saying why."""
    tree = ast.parse(code)
    binders = [st for st in tree.body if name in _module_bindings(st)]
    if not binders:
        raise ValueError(f"'{name}' is not assigned at the top level of the cell's code")
    if len(binders) > 1:
        lines = ", ".join(str(st.lineno) for st in binders)
        raise ValueError(
            f"'{name}' is bound {len(binders)} times (lines {lines}); a control "
            "needs one assignment, or the later ones would undo it"
        )
    st = binders[0]
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        kind = _STATEMENT_KINDS.get(type(st), f"a {type(st).__name__} statement")
        raise ValueError(
            f"line {st.lineno} binds '{name}' in {kind}; a control needs a plain '{name} = <literal>'"
        )
    try:
        value = _literal(st.value)
    except ValueError:
        raise ValueError(
            f"line {st.lineno}: '{name}' is computed, not a literal (a number, string or boolean)"
        ) from None
    if st.end_lineno != st.lineno or any(
        o is not st and getattr(o, "lineno", 0) == st.lineno for o in tree.body
    ):
        raise ValueError(f"line {st.lineno}: '{name} = …' must be alone on its line")
    text = code.splitlines()[st.lineno - 1].encode()
    return (st.lineno, text[: st.value.col_offset].decode(), text[st.value.end_col_offset :].decode(), value)


def blanks(starter: str) -> list[str]:
    """The names the starter assigns ``...`` (the blanks to fill), in order."""
    names = []
    for node in ast.walk(ast.parse(starter)):
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(node.value, ast.Constant)
            and node.value.value is Ellipsis
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name) and sub.id not in names:
                        names.append(sub.id)
    return names


def edit_syntax_error(code: str) -> SyntaxError | None:
    """The syntax error of a cell's code as the page compiles it (top-level ``await`` allowed)."""
    try:
        compile(code, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as exc:
        return exc
    return None
