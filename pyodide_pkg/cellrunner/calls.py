"""The page's own calls into Python by name: ``call(name, args_json)``.

The page (``Runtime.call`` in static/js/page/runtime.js) asks for one of :data:`CALLS` with its
arguments as a JSON text, instead of building Python source: a poll's answer or a hall's counts
reach Python as JSON values, checked by the function called, never as code. A name not listed is
a ``KeyError``; arguments that are not a JSON object are a ``TypeError``.
"""

from __future__ import annotations

import importlib
import json

# page name -> (module, function): the functions the page may call, each documented where it lives
CALLS = {
    "poll.randomize": ("dplab.polls", "randomize"),
    "poll.summary": ("dplab.polls", "summary"),
    "poll.figure": ("dplab.polls", "figure"),
    "poll.simulate": ("dplab.polls", "simulate"),
}


def call(name: str, args_json: str):
    """``CALLS[name](**json.loads(args_json))``: its value, for the page (through JSON)."""
    module, function = CALLS[name]
    args = json.loads(args_json)
    if not isinstance(args, dict):
        raise TypeError(f"the arguments of {name} must be a JSON object, got {type(args).__name__}")
    return getattr(importlib.import_module(module), function)(**args)
