"""Running the build's outside tools (node, pip): a missing or failing one is a ToolError."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

from .errors import ToolError


def which(name: str, purpose: str, hint: str = "") -> str:
    """The path of executable ``name``, or a ToolError saying what it was needed for."""
    path = shutil.which(name)
    if path is None:
        raise ToolError(purpose, [name], hint=hint)
    return path


def run(
    command: Sequence[str | os.PathLike[str]], purpose: str, *, input: str | None = None, hint: str = ""
) -> subprocess.CompletedProcess:
    """Run ``command`` capturing its output; a non-zero exit raises a ToolError."""
    try:
        proc = subprocess.run(
            [str(c) for c in command], input=input, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise ToolError(purpose, [str(c) for c in command], hint=hint) from None
    if proc.returncode != 0:
        raise ToolError(purpose, [str(c) for c in command], proc.returncode, proc.stderr or proc.stdout, hint)
    return proc
