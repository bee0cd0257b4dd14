"""An error as the student should read it: frames from the cell on (the runner's dropped),
capped in length, dplab's range errors in Spanish and a Spanish line under Python's own
(:mod:`.errors_es`). The one builder of the
``{type, message, traceback}`` records a failed run sends (PROTOCOL.md, "Errors and results")."""

from __future__ import annotations

import traceback

from .errors_es import INTERRUPTED_ES, dplab_error, python_error_es

MAX_TRACEBACK_CHARS = 12_000  # a runaway recursion keeps its start and its end
SPANISH_LINE = "En español: "  # starts the Spanish line under Python's own error
# the traceback of a Stop that came before the cell's first line (the worker's own record of it)
INTERRUPTED_TRACEBACK = f"KeyboardInterrupt\n{SPANISH_LINE}{INTERRUPTED_ES}\n"


def format_error(exc: BaseException, filename: str) -> dict:
    """``{type, message, traceback}`` (plus ``missing``: the module a cell could not import) of
    ``exc`` raised in the cell whose frames are in ``filename``."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) or tb is None:
        tb = None
    elif (spanish := dplab_error(exc, tb)) is not None:
        return spanish
    te = traceback.TracebackException(type(exc), exc, tb, compact=True)
    text = "".join(te.format())
    spanish = python_error_es(exc, text)
    if spanish:  # under Python's last line, as dplab's errors are said (errors_es)
        text += f"{SPANISH_LINE}{spanish}\n"
    if len(text) > MAX_TRACEBACK_CHARS:
        half = MAX_TRACEBACK_CHARS // 2
        text = f"{text[:half]}\n… (traceback recortado) …\n{text[-half:]}"
    if isinstance(exc, KeyboardInterrupt):
        message = "ejecución interrumpida"
    else:
        message = str(exc)
    error = {"type": type(exc).__name__, "message": message, "traceback": text}
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        error["missing"] = exc.name.split(".")[0]  # the worker may load it and run again
    return error
