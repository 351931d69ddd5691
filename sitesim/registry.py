"""Named registries: extension by registering a class, never by editing an if/else.

Schedulers, estimate models, submittal models and workpool models are each a
:class:`Registry`. A new kind of model is one class with a ``name`` (and a one-line
``summary`` for ``--help``), decorated with its registry's :meth:`Registry.register`.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from sitesim.errors import InputError

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Classes of one kind by name; unknown names are input errors listing the known."""

    def __init__(self, kind: str, option: str) -> None:
        self.kind = kind
        self.option = option
        self._classes: dict[str, T] = {}

    def register(self, cls: T) -> T:
        name = getattr(cls, "name")
        if name in self._classes:
            raise ValueError(f"{self.kind} name {name!r} registered twice")
        self._classes[name] = cls
        return cls

    def get(self, name: str) -> T:
        cls = self._classes.get(name)
        if cls is None:
            known = ", ".join(sorted(self._classes))
            raise InputError(f"unknown {self.kind} {name!r} (known: {known})", field=self.option)
        return cls

    def lookup(self, spec: str) -> tuple[T, str | None]:
        """The class and argument named by ``NAME`` or ``NAME:ARG`` (e.g. ``f:2``).

        The argument is None without a colon; errors quote the whole spec.
        """
        name, sep, arg = spec.partition(":")
        if name not in self._classes:
            known = ", ".join(sorted(self._classes))
            raise InputError(f"unknown {self.kind} {spec!r} (known: {known})", field=self.option)
        return self._classes[name], (arg if sep else None)

    def names(self) -> list[str]:
        return sorted(self._classes)

    def items(self) -> dict[str, T]:
        return dict(sorted(self._classes.items()))

    def help(self) -> str:
        """``name: summary; ...`` for command-line help."""
        return "; ".join(f"{n}: {getattr(c, 'summary', '')}" for n, c in self.items().items())
