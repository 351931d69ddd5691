"""Writing a table (sitesim/analysis/tables.py): one key per line, number lists on one line."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.analysis.tables import dumps_table


def _layout(table: object, indent: int = 0) -> str:
    """The layout, item by item: what dumps_table writes, without its shortcut for
    lists of number rows."""
    pad = " " * indent
    if isinstance(table, dict):
        if not table:
            return "{}"
        items = [f"{pad} {json.dumps(k)}: {_layout(table[k], indent + 1)}" for k in sorted(table)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(table, list) and any(isinstance(v, (dict, list)) for v in table):
        return "[\n" + ",\n".join(f"{pad} {_layout(v, indent + 1)}" for v in table) + "\n" + pad + "]"
    return json.dumps(table, allow_nan=False)


LEAVES = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=False, allow_infinity=False), st.none(),
                   st.booleans(), st.sampled_from(["a", "], [", "x]", ""]))
TABLES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.sampled_from("abcde"), inner, max_size=4)),
    max_leaves=40,
)
ROWS = st.lists(st.lists(st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
                                   st.none()), max_size=4), min_size=1, max_size=8)


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(st.one_of(TABLES, ROWS, st.dictionaries(st.sampled_from("ab"), ROWS)))
def test_the_layout_item_by_item(table: object) -> None:
    """Rows of numbers (the population's jobs) and anything else: the same text."""
    text = dumps_table(table)
    assert text == _layout(table)
    assert json.loads(text) == table


def test_a_row_with_nan_is_refused() -> None:
    with pytest.raises(ValueError):
        dumps_table([[1, math.nan], [2, 3]])
