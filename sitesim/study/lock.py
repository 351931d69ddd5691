"""One study at a time in a folder: the sweep's lock, taken on the study's folder.

A study writes ``study.toml`` before its sweeps lock their CSVs, so the CSV locks alone
would let a second study (refused a moment later) first overwrite the running study's
``study.toml``. The study therefore locks its folder before writing anything and holds
the lock through both sweeps and the outputs. It is :class:`~sitesim.sweep.store.CsvLock`
(keyed on the resolved path, dies with its process) on ``DIR/.study.toml.lock``, with
a refusal that speaks of a study.
"""

from __future__ import annotations

import os
from pathlib import Path

from sitesim.errors import InputError
from sitesim.study.config import STUDY_FILE
from sitesim.sweep.store import CsvLock


class StudyLock(CsvLock):
    """An exclusive, non-blocking lock on the study folder ``out``."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        super().__init__(Path(out) / STUDY_FILE)
        self.shown = str(out)

    def _busy(self) -> InputError:
        return InputError(
            "another study is running in this folder; wait for it to finish (then run this"
            f" command again to resume) or use another -o (lock: {self.path.name})",
            path=self.shown,
        )
