"""Fuzzing ``sitesim study``'s inputs: its flags, site files, ``study.toml`` files and the
cached outputs of an earlier study (issue 34: the study's entry points). Every input
runs (exit 0, or 1 when runs failed) or is refused as bad input (exit 2); any exception
out of ``sitesim.cli.main`` is a traceback a user would see, so a bug.

Beside tests/test_fuzz.py (SWF logs, site files, grids), in the same way: derandomized,
small example budgets, and runs kept tiny (a user or two for hours, one seed, in this
process), so that the examples stay the same every run and cost seconds.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_fuzz import _run

FUZZ = settings(
    max_examples=10, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
#: Flags that keep a study that runs small.
TINY = ["--serial", "--no-progress", "--seeds", "1"]

POLICIES = st.sampled_from(["fcfs", "easy", "fcfs,easy", "easy,easy", "nosuch", "", "fcfs,", "hold",
                            "multifactor:fairshare=-1", "os:path", "partitioned:/dev/null", "cons"])
TEXT = st.sampled_from(["", "0", "-1", "1", "2", "0.02", "1e300", "nan", "x", "1,2", "1,,2", "99999999999"])
VALUES = st.sampled_from(["1", "0.02", "-3", "1e300", '"x"', "true", "[1]", "nan", '"combined"', '"bad.json"',
                          '"/dev/zero"', '"paper"', "{}", '"fcfs"'])
KEYS = st.sampled_from(["users", "duration", "seed", "scheduler", "empirical", "population", "nodes",
                        "runtime_scale", "estimates", "submittal", "workpool", "max_jobs", "bogus"])


@st.composite
def site_files(draw: st.DrawFn) -> str:
    """A small site (one or two users, under a day) with hostile lines mixed in."""
    lines = [f"users = {draw(st.integers(1, 2))}", f"duration = {draw(st.sampled_from(['0.02', '0.1']))}"]
    for _ in range(draw(st.integers(0, 3))):
        lines.append(f"{draw(KEYS)} = {draw(VALUES)}")
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["[[partitions]]\nname = \"a\"\nnodes = 64\nscheduler = \"bogus\"",
                                           "[scheduler]\nname = \"easy\"", "= broken", "\x00"])))
    return "\n".join(lines) + "\n"


def _study(tmp: Path, argv: list[str]) -> int:
    (tmp / "bad.json").write_text('{"format": 1}\n', encoding="utf-8")
    status = _run(argv)
    assert status in (0, 1, 2), argv
    return status


@FUZZ
@given(site=site_files(), policies=POLICIES, users=st.one_of(st.none(), TEXT), duration=st.one_of(st.none(), TEXT),
       out=st.sampled_from(["out", "out/deeper", "site.toml", "", ".", "bad.json/x"]))
def test_study_flags_and_site_files_run_or_are_input_errors(site: str, policies: str, users: str | None,
                                                            duration: str | None, out: str) -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "site.toml").write_text(site, encoding="utf-8")
        argv = ["study", "--site", str(tmp / "site.toml"), "-s", policies, *TINY, "-o", str(tmp / out) if out else ""]
        if users is not None:
            argv += ["--users", users]
        if duration is not None:
            argv += ["--duration", duration]
        _study(tmp, argv)


STUDY_LINES = st.sampled_from([
    'site = "paper"', 'site = "site.toml"', 'site = "/dev/zero"', "site = 3", 'policies = ["fcfs"]',
    'policies = ["fcfs", "easy"]', "policies = []", 'policies = "fcfs"', "seeds = [0]", "seeds = [-1]",
    'seeds = ["a"]', "users = [1]", "users = [0]", "duration = 0.02", "duration = -1", 'empirical = "bad.json"',
    'model = "x"', 'sitesim_version = "0"', "bogus = 1", "[[x]]", "= 1", "seeds = [0, 0]",
])


@FUZZ
@given(lines=st.lists(STUDY_LINES, max_size=6))
def test_study_files_run_or_are_input_errors(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "site.toml").write_text("users = 1\nduration = 0.02\n", encoding="utf-8")
        base = ['site = "site.toml"', 'policies = ["fcfs"]', "seeds = [0]", "users = [1]", "duration = 0.02"]
        (tmp / "study.toml").write_text("\n".join(base[: 5 - min(5, len(lines))] + lines) + "\n", encoding="utf-8")
        _study(tmp, ["study", "--from", str(tmp / "study.toml"), "--serial", "--no-progress"])


SMALL = ["study", "--site", "paper", "-s", "fcfs", "--users", "1", "--duration", "0.3", *TINY]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fuzz") / "study"
    assert _run([*SMALL, "-o", str(out)]) == 0
    return out


DAMAGE = st.sampled_from(["cut", "cut-line", "garbage", "empty", "nul", "nan", "folder", "remove"])
FILES = st.sampled_from(["results.csv", "replays.csv", "study.toml", "checksums.json", "trace", "cross.csv"])


@settings(FUZZ, max_examples=5)
@given(damage=st.lists(st.tuples(FILES, DAMAGE, st.integers(0, 10_000)), min_size=1, max_size=2))
def test_damaged_cached_outputs_are_redone_or_refused(finished: Path, damage: list[tuple[str, str, int]]) -> None:
    """A rerun over damaged outputs of an earlier study: redone, or refused in one line."""
    with tempfile.TemporaryDirectory() as name:
        out = Path(name) / "study"
        shutil.copytree(finished, out)
        for file, how, at in damage:
            # a trace an earlier step removed stays removed (a path that is not there)
            path = next(out.glob("runs/*/trace.swf"), out / "runs" / "gone.swf") if file == "trace" else out / file
            data = path.read_bytes() if path.is_file() else b""
            if how == "remove":
                path.unlink(missing_ok=True)
                continue
            if how == "folder":
                path.unlink(missing_ok=True)
                path.mkdir()
                continue
            cut = at % (len(data) + 1)
            path.write_bytes({"cut": data[:cut], "cut-line": data[: data.rfind(b"\n", 0, cut) + 1],
                              "garbage": data[:cut] + b'",,\n"x', "empty": b"", "nul": data[:cut] + b"\x00",
                              "nan": data.replace(b",0,", b",nan,", 1)}[how])
        status = _run([*SMALL, "-o", str(out)])
        assert status in (0, 1, 2), damage
        if status == 0:  # redone: the same results as the study never damaged
            assert (out / "results.csv").read_bytes() == (finished / "results.csv").read_bytes()
            assert (out / "replays.csv").read_bytes() == (finished / "replays.csv").read_bytes()
