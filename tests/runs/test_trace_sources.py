"""Trace sources by name: the config's choice, a researcher's own source, refusals."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest

from sitesim.engine.replay import TraceReplay
from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.trace_sources import TRACE_SOURCES, TraceFeed, TraceKind
from sitesim.workload.job import Job

TRACE = """; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
3 20 -1 100 4 -1 -1 4 200 -1 1 2 1 -1 -1 -1 -1 -1
4 500 -1 50 8 -1 -1 8 100 -1 1 2 1 -1 2 50 -1 -1
"""


class OneUser(TraceReplay):
    """The open model, user 1's jobs only."""

    def accepted(self) -> Iterator[Job]:
        return (job for job in super().accepted() if job.user == 1)

    def report(self) -> dict[str, Any]:
        return {"one_user": {"user": 1, "jobs": self.counts.submitted}}


@TRACE_SOURCES.register
class OneUserKind(TraceKind):
    name = "one-user"
    summary = "the open model, user 1's jobs only (a test kind)"

    @classmethod
    def source(cls, feed: TraceFeed) -> TraceReplay:
        return OneUser(feed.run.site, feed.reader, feed.estimates, **feed.options())


@pytest.fixture
def trace(tmp_path: Path) -> str:
    path = tmp_path / "t.swf"
    path.write_text(TRACE)
    return str(path)


def starts(out: Path) -> list[list[int]]:
    lines = (out / "schedule.swf").read_text().splitlines()
    return [[int(f) for f in line.split()[:4]] for line in lines if not line.startswith(";")]


def test_the_config_names_the_source(trace: str) -> None:
    plain = run_replay(ReplayConfig(trace, scheduler="easy"))
    assert "feedback" not in plain.report and plain.productivity is None
    fed = run_replay(ReplayConfig(trace, scheduler="easy", feedback="gap"))
    assert fed.feedback["session_starts"] == "gap"
    assert fed.productivity is not None


def test_a_registered_source_runs_from_python(trace: str, tmp_path: Path) -> None:
    run_replay(ReplayConfig(trace, scheduler="easy"), tmp_path / "plain")
    result = run_replay(ReplayConfig(trace, scheduler="easy"), tmp_path / "one", source="one-user")
    assert result.report["one_user"] == {"user": 1, "jobs": 2}
    # Jobs 1 and 2 (user 1's) come first: alone, they start as in the whole trace.
    assert starts(tmp_path / "one") == starts(tmp_path / "plain")[:2]
    header = (tmp_path / "one" / "schedule.swf").read_text()
    assert "schedule of a replay by job source one-user" in header
    assert '"one_user"' in (tmp_path / "one" / "summary.json").read_text()
    # Given as a class, it is the same source.
    assert run_replay(ReplayConfig(trace, scheduler="easy"), source=OneUserKind).summary == result.summary


def test_unknown_sources_are_refused_in_one_line(trace: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        run_replay(ReplayConfig(trace), tmp_path / "out", source="nope")
    assert "unknown trace source 'nope' (known: feedback, one-user, trace" in str(err.value)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError, match="is not a trace source"):
        run_replay(ReplayConfig(trace), source="sitesim.engine.replay:TraceReplay")


def test_feedback_without_session_starts_is_refused(trace: str) -> None:
    with pytest.raises(InputError, match="needs its session starts"):
        run_replay(ReplayConfig(trace), source="feedback")
