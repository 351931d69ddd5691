"""The progress bar only watches: runs with and without it are identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.runs.progress import wanted
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site


def test_shown_only_at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wanted(True) and not wanted(False)
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    assert not wanted(None)


def test_runs_with_a_bar_are_the_same_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = SiteConfig(users=4, scheduler="timed:easy", duration=9 * DAY + 3600, seed=5)
    plain = run_site(config, tmp_path / "plain")
    shown = run_site(config, tmp_path / "shown", progress=True)
    assert "simulated" in capsys.readouterr().err  # the bar was drawn
    assert plain.summary == shown.summary
    for name in ("trace.swf", "summary.json"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "shown" / name).read_bytes()

    # Its trace replayed over the same nine days, with and without the bar.
    replay = ReplayConfig(trace=str(tmp_path / "plain" / "trace.swf"), scheduler="easy")
    assert run_replay(replay).summary == run_replay(replay, progress=True).summary
