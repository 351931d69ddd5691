"""Going on by the part of the day the waited-for job ended in, fitted together with
the users' own offsets (sitesim/analysis/continuation.py; docs/population.md, "Going
home at night")."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.analysis.continuation import MAX_OFFSET, _logit, continuation_curve, part_and_user_offsets, user_offset

SITE = continuation_curve([10] * 50 + [10_000] * 50, [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45)


def _p(response: float, offset: float) -> float:
    return float(1 / (1 + np.exp(-(_logit(SITE(response)) + offset))))


def _predicted(responses: list[int], parts: list[int], users: list[float], by_part: list[float],
               spans: list[tuple[int, int]]) -> np.ndarray:
    owner = np.concatenate([[users[i]] * (hi - lo) for i, (lo, hi) in enumerate(spans)])
    return np.asarray([_p(r, float(owner[i]) + by_part[part])
                       for i, (r, part) in enumerate(zip(responses, parts, strict=True))])


def test_every_user_and_every_part_keeps_its_rate() -> None:
    """Two users, each with batches in the night part (0) and the afternoon part (2),
    both going on less at night, one more often than the other: the users' offsets
    give each user its own rate, the parts' each part its rate (every user fitted:
    the maximum-likelihood equations), and the parts' offsets are centred."""
    rng = np.random.default_rng(5)
    responses = [int(r) for r in rng.choice([10, 10_000], 80)]
    parts = [0] * 20 + [2] * 20 + [0] * 10 + [2] * 30
    continued = ([True] * 5 + [False] * 15 + [True] * 16 + [False] * 4
                 + [True] * 4 + [False] * 6 + [True] * 27 + [False] * 3)
    spans = [(0, 40), (40, 80)]
    users, by_part = part_and_user_offsets(SITE, responses, continued, spans, parts, 4, least=5)
    assert by_part[1] == 0.0 == by_part[3] and by_part[0] < 0 < by_part[2]
    assert 30 * by_part[0] + 50 * by_part[2] == pytest.approx(0.0, abs=1e-9)
    p, c, k = _predicted(responses, parts, users, by_part, spans), np.asarray(continued, float), np.asarray(parts)
    for lo, hi in spans:
        assert p[lo:hi].sum() == pytest.approx(c[lo:hi].sum(), abs=1e-2)  # offsets rounded to 4 decimals
    for part in (0, 2):
        assert p[k == part].sum() == pytest.approx(c[k == part].sum(), abs=1e-2)


def test_the_night_is_not_counted_twice() -> None:
    """A night owl who seldom goes on (all its batches at night, 6 of 20) and a user who
    goes on as often by night as by day (16 of 20 each): pooled, the night's rate is
    below the day's (22 of 40 against 16 of 20), so parts fitted at the site's level
    would send every user home at night. Together, the night's offset is 0: the owl's
    low rate is its own."""
    responses = [10] * 60
    parts = [0] * 20 + [0] * 20 + [2] * 20
    continued = [True] * 6 + [False] * 14 + ([True] * 16 + [False] * 4) * 2
    spans = [(0, 20), (20, 60)]
    users, by_part = part_and_user_offsets(SITE, responses, continued, spans, parts, 4, least=5)
    k, c = np.asarray(parts), np.asarray(continued, dtype=float)
    assert c[k == 0].mean() < c[k == 2].mean()
    assert by_part == pytest.approx([0.0, 0.0, 0.0, 0.0], abs=1e-6)
    assert users[0] < users[1]


def test_one_part_gives_the_old_user_offsets() -> None:
    """With every batch in one part its offset is 0 (centred) and each user's is
    :func:`user_offset`'s; a user below ``least`` keeps 0."""
    responses = [10] * 50 + [10_000] * 50
    continued = [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45
    spans = [(0, 60), (60, 97), (97, 100)]
    users, by_part = part_and_user_offsets(SITE, responses, continued, spans, [1] * 100, 2, least=5)
    assert by_part == pytest.approx([0.0, 0.0], abs=1e-12) and users[2] == 0.0
    for (lo, hi), offset in zip(spans[:2], users, strict=False):
        assert offset == pytest.approx(user_offset(SITE, responses[lo:hi], continued[lo:hi]), abs=1e-4)


def test_a_user_who_never_went_on_is_bounded() -> None:
    users, by_part = part_and_user_offsets(SITE, [10] * 8, [False] * 4 + [True] * 4, [(0, 4), (4, 8)], [1] * 8, 2,
                                           least=3)
    assert users == [-MAX_OFFSET, MAX_OFFSET] and by_part == pytest.approx([0.0, 0.0], abs=1e-12)


def test_a_user_held_at_the_bound_leaves_the_parts_their_maximum() -> None:
    """A user who always went on (held at +MAX_OFFSET), its batches spread unevenly over
    two parts, beside users who went on at different rates by the hour: the offsets are
    the bounded, centred maximum of the likelihood (a general optimizer on the same
    problem agrees); a step that counted on the held user moving would shift the
    parts."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(11)
    responses, parts, continued, spans = [], [], [], []
    for u, (n, rate_night, rate_day) in enumerate([(30, 1.0, 1.0), (40, 0.3, 0.7), (40, 0.5, 0.8), (30, 0.2, 0.6)]):
        lo = len(parts)
        k = [0] * (n // 3) + [2] * (n - n // 3) if u == 0 else list(rng.choice([0, 2], n))
        parts += k
        continued += [bool(rng.random() < (rate_night if p == 0 else rate_day)) or u == 0 for p in k]
        responses += list(rng.choice([10, 10_000], n))
        spans.append((lo, lo + n))
    users, by_part = part_and_user_offsets(SITE, responses, continued, spans, parts, 4, least=5)
    assert users[0] == MAX_OFFSET
    base = np.asarray([_logit(SITE(r)) for r in responses])
    c, k = np.asarray(continued, dtype=float), np.asarray(parts)
    owner = np.concatenate([[i] * (hi - lo) for i, (lo, hi) in enumerate(spans)])
    share = np.bincount(k, minlength=4) / len(k)

    def minus_loglik(x: np.ndarray) -> float:  # x: the four users', then parts 0 and 2
        z = base + x[owner] + np.where(k == 0, x[4], x[5])
        return float(-np.sum(c * z - np.logaddexp(0.0, z)))

    best = minimize(minus_loglik, np.zeros(6), method="SLSQP", bounds=[(-MAX_OFFSET, MAX_OFFSET)] * 6,
                    constraints=[{"type": "eq", "fun": lambda x: float(share[0] * x[4] + share[2] * x[5])}],
                    options={"ftol": 1e-14, "maxiter": 500})
    assert best.success
    assert by_part[0] == pytest.approx(best.x[4], abs=1e-3) and by_part[2] == pytest.approx(best.x[5], abs=1e-3)
    assert users[1:] == pytest.approx(list(best.x[1:4]), abs=1e-3)
