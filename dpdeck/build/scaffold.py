"""``build.py new``: a new lecture folder that builds and runs as it is.

The folder holds ``deck.yaml`` and one chapter with one slide of each kind an author needs
first: a title, a content slide with math, a code slide with a slider and a suggested edit,
and an exercise. Its prelude imports dplab (the project's DP package), or, with ``package``,
a small package of the author's own beside the deck file, which then replaces dplab in the
browser. With dplab, the prelude is this lecture's: ``np``, ``dplab`` and its names, ``census``. Nothing here is specific to this project's lecture: the same machinery builds it.
"""

from __future__ import annotations

from pathlib import Path

from .errors import DeckError

DECK = """\
# yaml-language-server: $schema=dist/deck.schema.json
# La presentación: lo que muestra la portada, los capítulos en orden y el preludio de Python.
# Compruebe: {invocation} check --deck {deck_file}
title: {title}
subtitle: ""
author: ""
date: ""
lang: es
chapters:
  - 01-introduccion.yaml
{package_line}prelude: |
  # Se ejecuta una vez, antes de cualquier celda: lo que todas comparten.
  import numpy as np
  {import_line}from {module} import *
{census_line}"""

CHAPTER = """\
# yaml-language-server: $schema=dist/chapter.schema.json
# Un capítulo: una lista de diapositivas (Markdown con $…$ y Python; nunca HTML).
slides:
  - kind: title
    title: {title}

  - title: El mecanismo de Laplace
    fragments: true
    body: |
      Para publicar un conteo $f(x)$ con privacidad diferencial:

      - se suma ruido de Laplace de escala $b = \\Delta f / \\varepsilon$;
      - $$M(x) = f(x) + \\mathrm{{Lap}}\\left(\\frac{{\\Delta f}}{{\\varepsilon}}\\right)$$
    notes: Lo que el presentador dice (vista del presentador, tecla S).

  - kind: code
    title: Un conteo con ruido
    code: |
      epsilon = 1.0
      verdad = 120
      respuesta = {call}
      print("Conteo publicado:", fmt(respuesta, 1))
    params:
      - {{name: epsilon, label: "ε", min: 0.1, max: 5, log: true}}
    try:
      - {{label: "ε = 0,1", replace: ["epsilon = 1.0", "epsilon = 0.1"]}}
    notes: Mueva ε hacia 0,1 y vuelva a ejecutar. El botón «ε = 0,1» aplica la edición.

  - kind: exercise
    title: Ejercicio · La escala del ruido
    body: |
      Complete la escala $b$ del ruido de Laplace para un conteo con $\\varepsilon = 0{{,}}5$.
    starter: |
      epsilon = 0.5
      escala = ...  # complete
    check: |
      assert close(escala, 1 / 0.5), "La escala es b = Δf / ε, y un conteo tiene Δf = 1."
      return True, "b = 1 / 0,5 = 2."
    hints:
      - "¿Cuánto cambia un conteo si se agrega o quita una persona?"
      - "$b = \\\\Delta f / \\\\varepsilon$."
    solution: |
      epsilon = 0.5
      escala = 1 / epsilon
"""

PACKAGE = '''\
"""{name}: the Python package of the lecture «{title}» (loaded in the browser by Pyodide).

Every public name is in ``__all__``; the deck's prelude imports them all.
"""

import numpy as np

__version__ = "0.1.0"
__all__ = ["conteo_con_ruido", "fmt"]


def conteo_con_ruido(verdad, epsilon, rng=None):
    """A count released with Laplace noise of scale 1 / epsilon: epsilon-differentially private
    (a count changes by at most 1 when one person is added or removed). Fresh noise on every
    call unless ``rng`` (a numpy Generator) is given."""
    if isinstance(epsilon, bool) or not (0 < float(epsilon) < float("inf")):
        raise ValueError(f"epsilon must be > 0 and finite, got {{epsilon!r}}")
    rng = rng if rng is not None else np.random.default_rng()
    return verdad + rng.laplace(0.0, 1.0 / epsilon)


def fmt(x, decimals=2):
    """A number as a Spanish-speaking audience reads it: decimal comma, dot for thousands."""
    text = f"{{x:,.{{decimals}}f}}"
    return text.replace(",", " ").replace(".", ",").replace(" ", ".")
'''


def new_deck(
    folder: Path, title: str, package: str | None = None, invocation: str = "python build.py"
) -> list[Path]:
    """Write a new lecture into ``folder`` (new or empty) and return the files written.

    ``package``: the import name of a package of the author's own, created beside the deck
    file (``folder/package/__init__.py``) and loaded instead of dplab; None: the deck uses dplab.
    ``invocation``: the command the deck file's comment tells the author to check it with.
    """
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise DeckError(f"{folder} exists and is not empty: choose a new folder", file=str(folder))
    if package is not None and not package.isidentifier():
        raise DeckError(f"the package name {package!r} is not a Python name", field="package")
    title_yaml = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    module = package or "dplab"
    call = (
        "conteo_con_ruido(verdad, epsilon)"
        if package
        else "laplace_mech(verdad, sensitivity=1, epsilon=epsilon)"
    )
    files = {
        "deck.yaml": DECK.format(
            title=title_yaml,
            module=module,
            package_line=f"package: {package}\n" if package else "",
            # as this lecture's prelude: dplab itself (``dplab.`` completes) and the census
            import_line="" if package else "import dplab\n  ",
            census_line="" if package else "  census = load_census()\n",
            deck_file=folder / "deck.yaml",
            invocation=invocation,
        ),
        "01-introduccion.yaml": CHAPTER.format(title=title_yaml, call=call),
    }
    if package:
        files[f"{package}/__init__.py"] = PACKAGE.format(name=package, title=title)
    written = []
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
