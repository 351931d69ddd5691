"""Going on by the part of the day the waited-for job ended in, and the users' own
offsets on top (sitesim/analysis/continuation.py; docs/population.md, "Going home at
night")."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.analysis.continuation import MAX_OFFSET, _logit, continuation_curve, part_and_user_offsets, user_offset

SITE = continuation_curve([10] * 50 + [10_000] * 50, [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45)


def _p(response: float, offset: float) -> float:
    return float(1 / (1 + np.exp(-(_logit(SITE(response)) + offset))))


def test_parts_get_the_sites_rate_and_users_their_own() -> None:
    """Two users with batches in the night part (0) and the afternoon part (2), who go
    on less at night; a third with 3 batches (below ``least``) keeps offset 0. With the
    parts' offsets alone the curve gives each part its rate on the log's batches; with
    the users' on top, each user gets its own."""
    rng = np.random.default_rng(5)
    responses = list(rng.choice([10, 10_000], 84))
    parts = ([0] * 20 + [2] * 20) * 2 + [2] * 4
    continued = ([True] * 5 + [False] * 15 + [True] * 16 + [False] * 4
                 + [True] * 8 + [False] * 12 + [True] * 18 + [False] * 2 + [True, False, True, False])
    spans = [(0, 40), (40, 80), (80, 84)]
    users, by_part = part_and_user_offsets(SITE, responses, continued, spans, parts, 4, least=5)
    assert users[2] == 0.0 and by_part[1] == 0.0 == by_part[3]
    assert by_part[0] < 0 < by_part[2]
    k, c = np.asarray(parts), np.asarray(continued, dtype=float)
    site = np.asarray([_p(r, by_part[part]) for r, part in zip(responses, parts, strict=True)])
    for part in (0, 2):
        assert site[k == part].mean() == pytest.approx(c[k == part].mean(), abs=1e-6)
    own = np.asarray([_p(r, (users[0] if i < 40 else users[1]) + by_part[part])
                      for i, (r, part) in enumerate(zip(responses[:80], parts[:80], strict=True))])
    for lo, hi in spans[:2]:
        assert own[lo:hi].mean() == pytest.approx(c[lo:hi].mean(), abs=1e-4)  # offsets rounded to 4 decimals


def test_one_part_gives_the_old_user_offsets() -> None:
    """With every batch in one part whose rate the curve already gives (but for the
    curve's (k+1)/(n+2)), the part's offset is about 0 and the user's about
    :func:`user_offset`'s."""
    responses = [10] * 50 + [10_000] * 50
    continued = [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45
    users, by_part = part_and_user_offsets(SITE, responses, continued, [(0, 60), (60, 100)], [1] * 100, 2, least=5)
    assert by_part[0] == 0.0 and abs(by_part[1]) < 0.02
    assert users[0] == pytest.approx(user_offset(SITE, responses[:60], continued[:60]) - by_part[1], abs=2e-3)


def test_a_part_where_nobody_went_on_is_bounded() -> None:
    _, by_part = part_and_user_offsets(SITE, [10] * 4, [False] * 4, [(0, 4)], [1] * 4, 2, least=5)
    assert by_part == [0.0, -MAX_OFFSET]
