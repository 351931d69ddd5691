"""The header of an SWF file: its comment lines, kept verbatim, with ``Key: value`` lookup.

Split from :mod:`sitesim.workload.swf` (which re-exports :class:`SwfHeader`) because the
header has a job of its own: reading the machine size a trace declares, and refusing a
size that is not one, naming file, line and key.
"""

from __future__ import annotations

from attrs import define, field

from sitesim.errors import InputError
from sitesim.limits import MAX_NODES
from sitesim.workload.nodes import node_demand


@define(slots=True)
class SwfHeader:
    """The comment lines of an SWF file, kept verbatim, with ``Key: value`` lookup.

    ``path`` and ``numbers`` (the line number of each comment line) only serve error
    messages: a bad ``MaxNodes`` names its file and line.
    """

    lines: list[str]
    path: str | None = None
    numbers: list[int] = field(factory=list)

    def _find(self, key: str) -> tuple[str, int | None] | None:
        wanted = key.lower()
        for i, line in enumerate(self.lines):
            body = line.lstrip(";").strip()
            name, sep, value = body.partition(":")
            if sep and name.strip().lower() == wanted:
                return value.strip(), (self.numbers[i] if i < len(self.numbers) else None)
        return None

    def get(self, key: str) -> str | None:
        """Value of the first ``; Key: value`` line (case-insensitive key), if any."""
        found = self._find(key)
        return found[0] if found is not None else None

    def get_int(self, key: str) -> int | None:
        """Leading integer of a header value (``MaxNodes: 338 (batch ...)`` gives 338)."""
        value = self.get(key)
        if not value:
            return None
        token = value.split()[0]
        try:
            return int(token)
        except ValueError:
            return None

    def size(self, key: str) -> int | None:
        """A machine size from the header: None if absent or ``-1`` (SWF's "unknown").

        Anything else that is not a positive whole number (``0``, ``lots``, ``16.5``,
        ``1e3``) is an input error naming the file, line and key: silently falling
        back to a default machine would change every result of the replay.
        """
        found = self._find(key)
        if found is None or not found[0]:
            return None
        value, line = found
        token = value.split()[0]
        try:
            number = int(token)
        except ValueError:
            number = 0
        if number == -1:
            return None
        if not 1 <= number <= MAX_NODES:
            raise InputError(
                f"{token!r} is not a machine size (a whole number of nodes in 1..{MAX_NODES},"
                " or -1 for unknown)",
                path=self.path, line=line, field=key,
            )
        return number

    def machine_size(self, per_node: int = 1) -> int | None:
        """Machine size declared by the trace: ``MaxProcs``, else ``MaxNodes``; else None.

        ``per_node``: the machine's nodes go whole to jobs, that many processors each
        (``processors_per_node``), so it is counted in nodes: ``MaxNodes``, else
        ``MaxProcs / per_node`` rounded up."""
        procs = self.size("MaxProcs")
        nodes = self.size("MaxNodes")
        if per_node != 1:
            return nodes if nodes is not None else (node_demand(procs, per_node) if procs is not None else None)
        return procs if procs is not None else nodes
