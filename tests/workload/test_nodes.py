"""The one node rule and what a replay divides: a log in processors is divided by the
processors per node its header declares, a log already in nodes (MaxNodes = MaxProcs)
is not, and any other header is an input error naming the option."""

from __future__ import annotations

import pytest

from sitesim.errors import InputError
from sitesim.workload.nodes import node_demand, processors_per_node, replay_divisor
from sitesim.workload.swf_header import SwfHeader


def header(nodes: int | None, procs: int | None) -> SwfHeader:
    return SwfHeader([*([f"; MaxNodes: {nodes}"] if nodes else []), *([f"; MaxProcs: {procs}"] if procs else [])])


def test_node_demand_is_one_rule_on_numbers_and_arrays() -> None:
    sizes = [1, 3, 4, 5, 8, 9, 178]
    assert [node_demand(s, 4) for s in sizes] == [1, 1, 1, 2, 2, 3, 45]
    assert processors_per_node(header(57, 178)) == 4 and processors_per_node(header(32, 32)) == 1


def test_a_log_in_processors_is_divided_and_one_in_nodes_is_not() -> None:
    assert replay_divisor(header(57, 178), 4) == 4
    assert replay_divisor(header(32, 32), 4) == 1  # a site run's own trace: already nodes
    assert replay_divisor(header(None, None), 1) == 1  # the default never asks the header


@pytest.mark.parametrize(("nodes", "procs", "said"), [
    (57, 178, "declares 178 processors on 57 nodes (4 per node)"),
    (64, 16, "declares 16 processors on 64 nodes (1 per node)"),
    (None, 128, "does not declare both MaxNodes and MaxProcs"),
    (None, None, "does not declare both MaxNodes and MaxProcs"),
])
def test_any_other_header_is_an_input_error_naming_the_option(nodes: int | None, procs: int | None,
                                                              said: str) -> None:
    with pytest.raises(InputError) as caught:
        replay_divisor(header(nodes, procs), 8, path="log.swf")
    assert caught.value.field == "--processors-per-node"
    assert said in caught.value.message and "log.swf" in caught.value.message
