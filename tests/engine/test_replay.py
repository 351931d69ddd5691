"""The trace replay's record of job numbers seen (sitesim/engine/replay.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.engine.replay import SeenIds

numbers = st.one_of(st.integers(-3, 40), st.integers(2**30 - 3, 2**30 + 3))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(numbers, max_size=60))
def test_seen_ids_answers_as_a_set_does(sequence: list[int]) -> None:
    """Runs, gaps, repeats, numbers before the run, negative and huge numbers: ``add``
    says True exactly for a number not seen before."""
    seen = SeenIds()
    known: set[int] = set()
    for number in sequence:
        assert seen.add(number) is (number not in known), (sequence, number)
        known.add(number)


def test_seen_ids_keeps_a_run_of_consecutive_numbers_as_two_bounds() -> None:
    seen = SeenIds()
    assert all(seen.add(n) for n in range(1, 1001))
    assert not seen.add(500)
    assert len(seen._bits) == 0  # nothing marked while the numbers run on
    assert seen.add(2000) and not seen.add(1000) and not seen.add(2000)
    assert seen.add(0) and seen.add(1001)
