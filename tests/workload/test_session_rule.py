"""The session rule and a user's state at a submission (sitesim/workload/session_rule.py)."""

from __future__ import annotations

import numpy as np

from sitesim.workload.session_rule import CONTINUING, IN_BATCH, OPENING, state_of, states_of


def test_the_state_at_each_edge_of_the_rule() -> None:
    assert [state_of(t) for t in (None, -1.0, 0.0, 1200.0, 1200.5)] == [OPENING, IN_BATCH, CONTINUING, CONTINUING,
                                                                           OPENING]


def test_the_rule_over_an_array_is_the_rule() -> None:
    """states_of gives state_of's state at each edge of the rule (NaN: a first)."""
    thinks = [None, -1.0, -0.0, 0.0, 1.0, 1199.5, 1200.0, 1200.5, 86_400.0]
    array = np.array([np.nan if t is None else t for t in thinks])
    assert list(states_of(array)) == [state_of(t) for t in thinks]
