"""Going on by the part of the day the waited-for job ended in (sitesim/analysis/continuation.py;
docs/population.md, "Going home at night")."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.analysis.continuation import MAX_OFFSET, _logit, adjusted, continuation_curve, part_offsets


def test_part_offsets_give_each_parts_own_rate_on_top_of_the_users_curves() -> None:
    site = continuation_curve([10] * 50 + [10_000] * 50, [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45)
    keen, shy = adjusted(site, 1.0), adjusted(site, -1.0)
    responses = [10, 10_000] * 20
    curves = [keen, shy] * 20
    parts = [0] * 20 + [2] * 20
    continued = [True] * 6 + [False] * 14 + [True] * 16 + [False] * 4  # night 0.3, afternoon 0.8
    offsets = part_offsets(curves, responses, continued, parts, 4)
    assert offsets[1] == 0.0 and offsets[3] == 0.0  # no batches ended there
    assert offsets[0] < 0 < offsets[2]
    for part, rate in ((0, 0.3), (2, 0.8)):
        chosen = [i for i, k in enumerate(parts) if k == part]
        p = [1 / (1 + np.exp(-(_logit(curves[i](responses[i])) + offsets[part]))) for i in chosen]
        assert np.mean(p) == pytest.approx(rate, abs=1e-6)


def test_a_part_where_nobody_went_on_is_bounded() -> None:
    site = continuation_curve([10] * 10, [True] * 5 + [False] * 5)
    assert part_offsets([site] * 4, [10] * 4, [False] * 4, [1] * 4, 2) == [0.0, -MAX_OFFSET]
