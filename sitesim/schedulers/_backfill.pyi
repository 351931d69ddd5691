# Types of the compiled EASY loops (_backfill.pyx); the Python twins are
# sitesim.schedulers.backfill.scan_python and shadow_python.
from collections.abc import Container, Mapping

from sitesim.workload.job import Job

def scan(
    candidates: list[Job], first: int, free: int, now: int, end_by: int, extra: int,
    planned: Mapping[int, int] | None = None, blocked: Container[int] = ..., continuing: Container[int] = ...,
) -> tuple[list[int], int, int]: ...
def shadow(running: list[tuple[int, int, int]], need: int, free: int) -> tuple[int, int]: ...
