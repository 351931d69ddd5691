"""Fuzzing the command line's inputs: every input runs, or is refused as bad input.

Random SWF logs (header lines and job lines), site files and sweep grids go through
``sitesim.cli.main``, the function behind the ``sitesim`` command. ``main`` turns
:class:`~sitesim.errors.InputError` (and OS errors) into exit status 2 and lets every
other exception through, so any exception here is a bug: a traceback a user would see.
Derandomized, with small example budgets, so the suite stays fast and the same every run.

Values are drawn from mixtures of good and hostile ones. Good values that would make a
run long (a million users, a century) are left out: the limits themselves are tested
in tests/runs/test_hostile_config.py.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitesim.cli import main

FUZZ = settings(
    max_examples=50, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Tokens an SWF field may hold, good and hostile.
TOKENS = st.one_of(
    st.integers(-2, 40).map(str),
    st.sampled_from(["-1", "0", "1e30", "nan", "inf", "1.5", "-0.5", "x", "", "9" * 25, "1e3", "١"]),
)
HEADER_KEYS = st.sampled_from(["MaxNodes", "MaxProcs", "Version", "UnixStartTime", "TimeZoneString", "Note"])
HEADER_VALUES = st.one_of(
    st.integers(-3, 300).map(str),
    st.sampled_from(["-1", "0", "lots", "16.5", "1e3", "", "99999999999999999999", "Europe/Nowhere"]),
)


def _run(argv: list[str]) -> int:
    """The command's exit status, its output discarded; argparse refusals are status 2."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(argv)
        except SystemExit as exc:
            return int(exc.code or 0)


@st.composite
def swf_logs(draw: st.DrawFn) -> bytes:
    lines = [f"; {draw(HEADER_KEYS)}: {draw(HEADER_VALUES)}" for _ in range(draw(st.integers(0, 3)))]
    submit = 0
    for number in range(1, draw(st.integers(0, 12)) + 1):
        if draw(st.booleans()):  # a plausible job, perhaps with one hostile field
            submit += draw(st.integers(0, 50))
            fields = [number, submit, -1, draw(st.integers(-1, 500)), draw(st.integers(-1, 70)),
                      -1, -1, draw(st.integers(-1, 70)), draw(st.integers(-1, 900)), -1,
                      draw(st.sampled_from([0, 1, 5])), draw(st.integers(1, 3)), 1, -1, -1, -1,
                      draw(st.integers(-1, number)), -1]
            tokens = [str(f) for f in fields]
            if draw(st.booleans()):
                tokens[draw(st.integers(0, 17))] = draw(TOKENS)
        else:  # anything
            tokens = draw(st.lists(TOKENS, max_size=20))
        lines.append(" ".join(tokens))
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    data = text.encode()
    return (b"\xef\xbb\xbf" + data) if draw(st.booleans()) else data


@FUZZ
@given(log=swf_logs(), options=st.sampled_from([[], ["-s", "easy"], ["-s", "cons"], ["--skip-malformed"],
                                                 ["--feedback", "gap"], ["--load-factor", "2"]]))
def test_swf_logs_run_or_are_input_errors(log: bytes, options: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.swf"
        path.write_bytes(log)
        assert _run(["-c", str(path), *options, "--out", str(Path(tmp) / "out")]) in (0, 2)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


SITE_VALUES = {
    "users": st.one_of(st.integers(1, 4), st.integers(max_value=0), st.integers(min_value=10**6 + 1)),
    "nodes": st.one_of(st.integers(1, 300), st.integers(max_value=0), st.integers(min_value=10**7 + 1)),
    "seed": st.integers(),
    "max_jobs": st.one_of(st.integers(1, 50), st.integers(max_value=0), st.integers(min_value=10**9 + 1)),
    "submittal": st.sampled_from(["batch", "closed", "bogus", ""]),
    "workpool": st.sampled_from(["plain", "failing", "bogus"]),
    "scheduler": st.sampled_from(["fcfs", "easy", "cons", "timed:easy:300", "timed:cons", "partitioned", "x:y"]),
    "estimates": st.sampled_from(["exact", "f:2", "f:0.5", "trace", "mf", "nosuch"]),
    "empirical": st.sampled_from(["combined", "KTH-SP2", "nosuch", "../x.json"]),
    "duration_days": st.one_of(st.floats(allow_nan=False), st.integers()),
    "colour": st.just("blue"),
}
ANY_VALUE = st.one_of(st.booleans(), st.text(max_size=5), st.floats(), st.lists(st.integers(0, 3), max_size=2))


@st.composite
def site_files(draw: st.DrawFn) -> bytes:
    keys = draw(st.lists(st.sampled_from(sorted(SITE_VALUES)), max_size=5, unique=True))
    lines = []
    for key in keys:
        value = draw(ANY_VALUE) if draw(st.integers(0, 4)) == 0 else draw(SITE_VALUES[key])
        lines.append(f"{key} = {_toml(value)}")
    if draw(st.integers(0, 5)) == 0:
        lines.append("[[partitions]]\nname = 'a'\nnodes = %d" % draw(st.integers(-1, 64)))
    text = "\n".join(lines) + "\n"
    return text.encode() if draw(st.integers(0, 9)) else text.encode() + b"\xff\xfe"


@FUZZ
@given(site=site_files())
def test_site_files_run_or_are_input_errors(site: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "site.toml"
        path.write_bytes(site)
        # A short run: the file's duration is checked, then overridden.
        assert _run(["--site", str(path), "--duration", "0.02"]) in (0, 2)


GRID_VALUES = {
    "mode": st.sampled_from(["site", "replay", "open", ""]),
    "users": st.one_of(st.integers(1, 3), st.integers(max_value=0), st.integers(min_value=10**6 + 1)),
    "submittal": st.sampled_from(["batch", "closed", "bogus"]),
    "workpool": st.sampled_from(["plain", "failing", "bogus"]),
    "scheduler": st.sampled_from(["fcfs", "easy", "cons", "bogus", "timed:cons"]),
    "estimates": st.sampled_from(["exact", "f:2", "trace", "bogus"]),
    "seed": st.one_of(st.integers(0, 3), st.integers(max_value=-1)),
    "replications": st.one_of(st.integers(1, 2), st.integers(max_value=0), st.integers(min_value=10**5)),
    "load_factor": st.one_of(st.floats(0.5, 2), st.floats()),
    "trace": st.sampled_from(["missing.swf", ""]),
    "nodes": st.one_of(st.integers(1, 200), st.just("trace"), st.integers(max_value=0)),
    "duration": st.one_of(st.sampled_from([0.0416666667, 0.08, 0.5, 0, -1, 1e20, "x", "1.5s"]), st.floats()),
}


@st.composite
def grids(draw: st.DrawFn) -> bytes:
    keys = draw(st.lists(st.sampled_from(sorted(GRID_VALUES)), max_size=5, unique=True))
    lines = []
    if "duration" not in keys:
        lines.append("duration = 0.0416666667")  # keep the runs short
    for key in keys:
        if draw(st.integers(0, 4)) == 0:
            value = draw(ANY_VALUE)
        elif draw(st.booleans()) and key != "replications":
            value = draw(st.lists(GRID_VALUES[key], min_size=0, max_size=2))
        else:
            value = draw(GRID_VALUES[key])
        lines.append(f"{key} = {_toml(value)}")
    return ("\n".join(lines) + "\n").encode()


@settings(parent=FUZZ, max_examples=30)
@given(grid=grids())
def test_sweep_grids_run_or_are_input_errors(grid: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grid.toml"
        path.write_bytes(grid)
        code = _run(["sweep", "--grid", str(path), "-o", str(Path(tmp) / "s.csv"), "--serial", "--no-progress"])
        # 1 would be a run failing after the grid was accepted: validation missed it.
        assert code in (0, 2)


# -- every other entry point: fit, plot, the run flags, sweep flags, the Python API --------------


@settings(parent=FUZZ, max_examples=30)
@given(log=swf_logs(), options=st.sampled_from([[], ["--skip-malformed"], ["--start-policy", "easy"],
                                                 ["--start-policy", "bogus"], ["--name", ""]]))
def test_fit_runs_or_refuses(log: bytes, options: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.swf"
        path.write_bytes(log)
        assert _run(["fit", str(path), "-o", str(Path(tmp) / "fit"), *options]) in (0, 2)


@settings(parent=FUZZ, max_examples=15)
@given(log=swf_logs(), kind=st.sampled_from(["gantt", "load"]),
       window=st.sampled_from([[], ["--from", "10"], ["--to", "0"], ["--from", "5", "--to", "2"], ["--to", "1e99"]]))
def test_plot_draws_or_refuses(log: bytes, kind: str, window: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.swf"
        path.write_bytes(log)
        assert _run(["plot", kind, str(path), "-o", str(Path(tmp) / "x.png"), *window]) in (0, 2)


FLAG_VALUES = st.one_of(st.sampled_from(["0", "-1", "1", "2", "1e300", "1e-300", "nan", "inf", "", "x", "1.5",
                                         "99999999999999999999", "easy", "cons", "f:2", "gas"]),
                        st.integers(-3, 300).map(str))
RUN_FLAGS = ["--nodes", "--seed", "--load-factor", "--estimates", "-s", "--moldable", "--moldable-policy",
             "--slice-days", "--feedback"]


@settings(parent=FUZZ, max_examples=40)
@given(flags=st.lists(st.tuples(st.sampled_from(RUN_FLAGS), FLAG_VALUES), max_size=3))
def test_replay_flags_run_or_refuse(flags: list[tuple[str, str]]) -> None:
    log = "; MaxNodes: 8\n" + "".join(f"{n} {n * 20} 0 50 {n % 4 + 1} -1 -1 {n % 4 + 1} 80 -1 1 {n % 2 + 1} 1 -1 -1"
                                      f" -1 -1 -1\n" for n in range(1, 9))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.swf"
        path.write_text(log)
        argv = ["-c", str(path)] + [token for pair in flags for token in pair]
        assert _run(argv) in (0, 2)


SWEEP_FLAGS = ["--users", "--scheduler", "--nodes", "--seed", "--replications", "--load-factor", "--adaptive",
               "--moldable-policy", "--mode", "--estimates", "--duration", "-j", "--output", "--metrics"]


@settings(parent=FUZZ, max_examples=30)
@given(flags=st.lists(st.tuples(st.sampled_from(SWEEP_FLAGS), st.one_of(FLAG_VALUES, st.sampled_from(
    ["1,2", "site", "replay", "site,replay", "30m", "fcfs,cons", "0.5", "static", "trace"]))), max_size=3),
    summarize=st.booleans())
def test_sweep_flags_run_or_refuse(flags: list[tuple[str, str]], summarize: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "s.csv"
        base = ["sweep", "--serial", "--no-progress"]
        if summarize:
            csv.write_text("mode,seed\nsite,0\n")
            base += ["--summarize", str(csv)]
        else:
            base += ["-o", str(csv), "--duration", "0.0208333333"]
        argv = base + [token for pair in flags for token in pair]
        assert _run(argv) in (0, 2)


API_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 5), st.floats(), st.text(max_size=4),
                       st.lists(st.integers(0, 2), max_size=2), st.sampled_from(["easy", "f:2", "trace", "gap"]))
REPLAY_ARGUMENTS = ["scheduler", "estimates", "nodes", "load_factor", "seed", "failures", "skip_malformed",
                    "partitions", "feedback", "observers", "out", "debug", "progress"]


@settings(parent=FUZZ, max_examples=40)
@given(arguments=st.dictionaries(st.sampled_from(REPLAY_ARGUMENTS), API_VALUES, max_size=3))
def test_the_replay_api_runs_or_raises_input_errors(arguments: dict[str, object]) -> None:
    from sitesim import replay
    from sitesim.errors import InputError

    log = "; MaxNodes: 8\n" + "".join(f"{n} {n * 20} 0 50 2 -1 -1 2 80 -1 1 1 1 -1 -1 -1 -1 -1\n" for n in range(1, 6))
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(io.StringIO()):
        path = Path(tmp) / "log.swf"
        path.write_text(log)
        if isinstance(arguments.get("out"), str):
            arguments["out"] = str(Path(tmp) / "out" / str(arguments["out"]))
        try:
            replay(path, **arguments)  # type: ignore[arg-type]
        except InputError:
            pass
