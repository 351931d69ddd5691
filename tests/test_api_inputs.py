"""The Python API raises only InputError for bad arguments (issue 26, group 6).

Each argument of ``simulate`` and ``replay`` with a wrong type or value is refused by
name, as the command line refuses its flags, never with a TypeError from inside a run.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sitesim
from sitesim.errors import InputError

LOG = "; MaxNodes: 8\n" + "".join(f"{n} {n * 30} 0 60 2 -1 -1 2 90 -1 1 {n % 2 + 1} 1 -1 -1 -1 -1 -1\n"
                                  for n in range(1, 9))
PARTS = ('[[partitions]]\nname = "a"\nnodes = 16\nscheduler = "easy"\n'
         '[[partitions]]\nname = "b"\nnodes = 48\nscheduler = "fcfs"\n')
SHORT = {"duration_days": 0.02}


@pytest.mark.parametrize("kwargs", [
    {"duration_days": "1"}, {"duration_days": math.nan}, {"duration_days": math.inf}, {"duration_days": -1},
    {"seed": "a", **SHORT}, {"seed": 1.5, **SHORT}, {"seed": -1, **SHORT}, {"seed": True, **SHORT},
    {"observers": 5, **SHORT}, {"observers": "ab", **SHORT}, {"partitions": [1], **SHORT},
    {"empirical": 5, **SHORT}, {"out": 123, **SHORT}, {"out": "", **SHORT}, {"users": "x", **SHORT},
    {"max_jobs": 1.5}, {"debug": "yes", **SHORT}, {"site": 5, **SHORT}, {"nodes": 2.5, **SHORT},
])
def test_simulate_refuses_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InputError):
        sitesim.simulate(**kwargs)


@pytest.mark.parametrize("kwargs", [
    {"load_factor": "2"}, {"load_factor": 1e300}, {"load_factor": math.nan}, {"seed": -1}, {"seed": 1.5},
    {"observers": 5}, {"out": 123}, {"partitions": [1]}, {"skip_malformed": "x"}, {"nodes": "x"},
    {"failures": 3}, {"feedback": 3},
])
def test_replay_refuses_bad_arguments(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    log = tmp_path / "log.swf"
    log.write_text(LOG)
    with pytest.raises(InputError):
        sitesim.replay(log, **kwargs)
    with pytest.raises(InputError):
        sitesim.replay(123)  # type: ignore[arg-type]


def test_a_partitioned_policy_brings_its_machine(tmp_path: Path) -> None:
    """As ``-s partitioned:FILE`` on the command line: 64 nodes, not the default 128."""
    parts = tmp_path / "parts.toml"
    parts.write_text(PARTS)
    result = sitesim.simulate(scheduler=f"partitioned:{parts}", **SHORT)
    assert result.summary["config"]["nodes"] == 64
    log = tmp_path / "log.swf"
    log.write_text(LOG)
    assert sitesim.replay(log, scheduler=f"partitioned:{parts}").summary["config"]["scheduler"].startswith("partitioned")


ANY = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(), st.text(max_size=3),
                st.lists(st.integers(0, 2), max_size=2))


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(name=st.sampled_from(["users", "nodes", "seed", "duration_days", "max_jobs", "empirical", "scheduler",
                             "estimates", "submittal", "workpool", "observers", "partitions", "progress"]),
       value=ANY)
def test_simulate_raises_only_input_errors(name: str, value: object) -> None:
    """Any value for one argument: a run, or an InputError (never another exception)."""
    kwargs: dict[str, Any] = {"duration_days": 0.01, "users": 2, name: value}
    if name == "duration_days" and value is None:
        kwargs["max_jobs"] = 5
    try:
        sitesim.simulate(**kwargs)
    except InputError:
        pass


def test_an_option_of_the_other_kind_of_run_is_an_input_error_exported_at_the_top() -> None:
    """``sitesim.replay(T, duration_days=1)`` names the option, as ``simulate(bogus=1)`` does,
    with the error class at the package's top level."""
    import sitesim

    with pytest.raises(sitesim.InputError, match="duration_days: unknown option"):
        sitesim.replay("t.swf", duration_days=1)
    with pytest.raises(sitesim.InputError, match="bogus: unknown option"):
        sitesim.simulate(bogus=1)
