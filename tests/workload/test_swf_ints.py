"""The reader's integer table gives exactly ``int(token)``, errors included."""

from __future__ import annotations

import pytest

from sitesim.workload.swf_ints import SMALL_LIMIT, token_to_int


@pytest.mark.parametrize(
    "token",
    ["-1", "0", "7", str(SMALL_LIMIT - 1), str(SMALL_LIMIT), "123456789012", "007", "-0", "+5", "1_000", "٣"],
)
def test_same_as_int(token: str) -> None:
    value = token_to_int()(token)
    assert value == int(token) and type(value) is int


@pytest.mark.parametrize("token", ["1.5", "abc", "", "nan", "1e3"])
def test_non_integers_raise_like_int(token: str) -> None:
    with pytest.raises(ValueError):
        token_to_int()(token)
