"""The packing step of LOS: the optimal set of backfill candidates, and its tie-break.

The dynamic program (:func:`~sitesim.schedulers.lookahead.pack`) is checked against
every subset of small random candidate lists: the same set, which is feasible, of the
largest total size, and the lexicographically first such set in queue order. The fast
path (EASY's scan, :func:`~sitesim.schedulers.backfill.scan`, when it meets
:func:`~sitesim.schedulers.lookahead.bound`) is checked to give the program's answer.
"""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.schedulers.backfill import scan
from sitesim.schedulers.lookahead import bound, pack
from tests.helpers import job

Case = tuple[list[int], list[bool], int, int]


def brute(sizes: list[int], late: list[bool], free: int, extra: int) -> list[int]:
    """The specification, literally: of all subsets, in lexicographic order of their
    membership vectors ("in" before "out"), the first feasible one of the largest total."""
    best: tuple[int, list[int]] | None = None
    for member in product((True, False), repeat=len(sizes)):
        chosen = [i for i, inside in enumerate(member) if inside]
        total = sum(sizes[i] for i in chosen)
        if total > free or sum(sizes[i] for i in chosen if late[i]) > extra:
            continue
        if best is None or total > best[0]:
            best = (total, chosen)
    assert best is not None  # the empty set is always feasible
    return best[1]


def feasible(chosen: list[int], case: Case) -> bool:
    sizes, late, free, extra = case
    return sum(sizes[i] for i in chosen) <= free and sum(sizes[i] for i in chosen if late[i]) <= extra


@st.composite
def cases(draw: st.DrawFn, most: int = 10) -> Case:
    """Up to ``most`` candidates of 1..20 nodes, some late, and 0..40 free and extra nodes."""
    n = draw(st.integers(0, most))
    sizes = draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))
    late = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return sizes, late, draw(st.integers(0, 40)), draw(st.integers(0, 40))


def greedy(sizes: list[int], late: list[bool], free: int, extra: int) -> tuple[list[int], int]:
    """EASY's scan over candidates of these sizes, the late ones ending after the
    shadow time (at 10): the positions taken and their total size."""
    candidates = [job(i + 1, 0, size, 0, 20 if late[i] else 5) for i, size in enumerate(sizes)]
    taken, left, _spare = scan(candidates, 0, free, 0, 10, extra)
    return taken, free - left


@settings(max_examples=400, deadline=None, derandomize=True)
@given(cases())
def test_the_program_gives_the_first_maximal_set(case: Case) -> None:
    expected = brute(*case)
    got = pack(*case)
    assert got == expected
    assert feasible(got, case)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases(most=14))
def test_with_no_late_candidate_the_bitset_rows_give_the_first_maximal_set(case: Case) -> None:
    """No usable candidate late: the program runs on bitsets (_pack_on_time)."""
    sizes, late, free, extra = case
    on_time = (sizes, [False] * len(sizes), free, extra)
    assert pack(*on_time) == brute(*on_time)
    # Late candidates too large for the extra nodes cannot be used: the same rows.
    unusable = (sizes, late, free, 0)
    assert pack(*unusable) == brute(*unusable)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases())
def test_the_fast_path_is_the_dynamic_programs_answer(case: Case) -> None:
    taken, used = greedy(*case)
    assert used <= bound(*case) and feasible(taken, case)
    assert sum(case[0][i] for i in taken) == used
    assert sum(case[0][i] for i in brute(*case)) <= bound(*case)
    if used == bound(*case):
        assert taken == pack(*case)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases())
def test_the_scan_is_the_first_feasible_set(case: Case) -> None:
    """The claim behind the fast path: EASY's scan gives the lexicographically first
    feasible set, i.e. a set no candidate it skipped could join."""
    taken, _ = greedy(*case)
    for i in range(len(case[0])):
        if i not in taken:
            assert not feasible(sorted([*(j for j in taken if j < i), i]), case)


def test_a_case_the_scan_gets_wrong() -> None:
    """EASY's scan takes the 3 and strands a node; the two 2s fill the machine."""
    case: Case = ([3, 2, 2], [False, False, False], 4, 0)
    assert greedy(*case) == ([0], 3)
    assert bound(*case) == 4
    assert pack(*case) == [1, 2]


def test_late_jobs_keep_the_reservation() -> None:
    """Late candidates share the extra nodes: 6 late nodes of 10 free, 5 extra."""
    case: Case = ([4, 3, 3, 2], [True, True, True, False], 10, 6)
    assert pack(*case) == [1, 2, 3]  # 8 nodes; 4 + 3 + 2 would be 9 but 7 late


def test_ties_go_to_the_head() -> None:
    # {0, 3} and {1, 2} both fill 5 nodes; the one holding candidate 0 wins.
    assert pack([2, 1, 4, 3], [False] * 4, 5, 0) == [0, 3]
    # Duplicates: the earliest copies.
    assert pack([2, 2, 2, 2], [False] * 4, 5, 5) == [0, 1]
    assert pack([3, 2, 2, 2], [False] * 4, 4, 0) == [1, 2]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (([], [], 10, 3), []),  # no candidate
        (([1, 2], [False, True], 0, 5), []),  # no free node
        (([1, 2, 3], [True, True, True], 5, 0), []),  # only late jobs, no extra node
        (([1, 2, 3], [True, False, True], 5, 0), [1]),  # ... and one that is not late
        (([4, 5, 3], [True, True, True], 8, 100), [1, 2]),  # extra beyond free: free binds
        (([11, 20], [False, True], 10, 30), []),  # every job too big
        (([7, 3, 7], [True, False, False], 10, 5), [1, 2]),  # late and too big for extra
        (([5, 5, 5], [False, True, False], 10, 10), [0, 1]),  # duplicates
    ],
)
def test_edge_cases(case: Case, expected: list[int]) -> None:
    assert pack(*case) == expected == brute(*case)


@pytest.mark.parametrize(
    "case",
    [([1], [False, True], 4, 4), ([1], [False], -1, 4), ([1], [False], 4, -1), ([2, 0], [False, False], 4, 4), ([-3], [True], 4, 4)],
)
def test_bad_inputs_are_refused(case: Case) -> None:
    with pytest.raises(ValueError):
        pack(*case)
