"""The one error type of the build: it names the file, the slide and the field."""
from __future__ import annotations


class DeckError(Exception):
    """A problem in the deck's sources, located as precisely as we can.

    The message reads ``deck/01.yaml:12: slide 3 «El dato de partida», field 'code': ...`` so
    that an author can go straight to the place to fix.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 slide: int | None = None, title: str | None = None, field: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.slide = slide
        self.title = title
        self.field = field
        super().__init__(self.describe())

    def describe(self) -> str:
        where = []
        if self.file:
            where.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.slide is not None:
            where.append(f"slide {self.slide}" + (f" «{self.title}»" if self.title else ""))
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message
