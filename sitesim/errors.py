"""Errors that reach the user as one clear line.

Every problem with user input (a trace, a model file, a command-line value) is an
:class:`InputError` carrying where it happened, so the CLI can print
``FILE:LINE: field N (name): message`` and exit with status 2 instead of a traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad user input, located as precisely as we know (file, line, field)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.field = field

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        what = f"{self.field}: " if self.field else ""
        return f"{where}{what}{self.message}"
