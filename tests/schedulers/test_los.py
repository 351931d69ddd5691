"""los: EASY whose backfill set is packed by dynamic programming (the packing itself:
test_lookahead.py; invariants and self-replay with the other variants: test_variants.py)."""

from __future__ import annotations

import pytest

from sitesim.errors import InputError
from sitesim.schedulers.base import make_scheduler
from tests.helpers import job, run_jobs


def starts(spec: str, jobs: list) -> dict[int, int]:
    return {j.id: j.start for j in run_jobs([job(j.id, j.submit, j.size, j.runtime) for j in jobs], 10, spec).started}


# 10 nodes, 6 busy until 100; the head needs all 10 (shadow time 100, no extra node).
# Three candidates arrive together, all ending before 100: 3 nodes, then 2 and 2.
PACKING = [job(1, 0, 6, 100), job(2, 1, 10, 10), job(3, 2, 3, 50), job(4, 2, 2, 50), job(5, 2, 2, 50)]


def test_los_packs_the_free_nodes_where_easy_takes_the_first_fit() -> None:
    easy, los = starts("easy", PACKING), starts("los", PACKING)
    assert easy[3] == 2 and easy[4] > 2 and easy[5] > 2  # 3 of the 4 free nodes used
    assert los[4] == 2 and los[5] == 2 and los[3] > 2  # all 4 used
    assert easy[2] == los[2] == 100  # the head starts at its reservation either way


def test_jobs_beyond_the_lookahead_are_still_tried_one_at_a_time() -> None:
    """With a lookahead of one job, the one candidate it sees (5 nodes) cannot start; the
    two behind it still backfill, as EASY would have let them."""
    jobs = [job(1, 0, 6, 100), job(2, 1, 10, 10), job(3, 2, 5, 50), job(4, 2, 2, 50), job(5, 2, 2, 50)]
    got = starts("los:1", jobs)
    assert got[4] == 2 and got[5] == 2 and got[3] >= 100


@pytest.mark.parametrize(("spec", "depth", "canonical"), [
    ("los", 50, "los"), ("los:7", 7, "los:7"), ("los:depth=9", 9, "los:9"), ("los:depth=50", 50, "los"),
])
def test_specs(spec: str, depth: int, canonical: str) -> None:
    scheduler = make_scheduler(spec, 10)
    assert scheduler.depth == depth  # type: ignore[attr-defined]
    assert scheduler.spec == canonical
    assert scheduler.report(0) == {"los": {"depth": depth}}


@pytest.mark.parametrize("spec", ["los:0", "los:x", "los:depth=-1", "los:width=3", "los:3,4", "los:depth=2.5"])
def test_bad_specs_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError, match="los"):
        make_scheduler(spec, 10)


def test_a_pass_resumed_over_arrivals_counts_the_lookahead_from_the_head() -> None:
    """los:3 on 10 nodes, 6 busy until 100, a head of 10 nodes and a 5-node job waiting.
    At t=3 jobs of 3, 2 and 2 nodes arrive; nothing has ended, so the pass resumes over
    the arrivals. The lookahead still counts from the head (the 5-node job is its first
    place), so the packing sees the 3- and the first 2-node job and takes the 3 (the
    most nodes of those two), and the last 2-node job, beyond it, no longer fits: what
    a full pass chooses."""
    jobs = [job(1, 0, 6, 100), job(2, 1, 10, 10), job(3, 2, 5, 50), job(4, 3, 3, 50), job(5, 3, 2, 50),
            job(6, 3, 2, 50)]
    got = starts("los:3", jobs)
    assert got[4] == 3 and got[5] > 3 and got[6] > 3
