"""A run's output directory, published all at once (docs/reliability.md).

Every file of a run is written into a private staging directory beside the target
(``.DIR.<pid>.<random>.part``, on the same file system) and the staging directory is
renamed onto the target only when the run succeeded. So the target holds one run's
complete outputs or nothing new:

- a failing, interrupted (Ctrl-C, SIGTERM) or refused run removes its staging
  directory and leaves the target as it was;
- two runs into the same target never mix: each publishes its whole directory, the
  last one to finish wins;
- a run killed outright (SIGKILL) cannot clean up: its staging directory stays, hidden,
  until the next run into the same target removes it (its process is gone).

An existing target is replaced only if it is empty or holds nothing but files a run
writes (:data:`OUTPUT_NAMES`), so outputs of an earlier run never sit beside the new
ones (a replay's ``schedule.swf`` beside a site run's ``trace.swf``), and sitesim never
deletes a file it did not write: a target holding anything else is refused before the
run starts. The current directory (``--out .`` or ``--out ''``) is refused too.

Use: ``with OutputDir(target) as out: write(out.path("summary.json"))``.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType

from sitesim.errors import InputError
from sitesim.workload.recorded_waits import recorded_waits_path

#: Every file name a run writes into its output directory. A directory holding only
#: these (a previous run's outputs) may be replaced; a new output file adds its name here.
OUTPUT_NAMES: frozenset[str] = frozenset({
    "summary.json", "stats.txt", "trace.swf", "schedule.swf", recorded_waits_path("trace.swf").name,  # simulations
    "empirical.json", "population.json", "site.toml",  # sitesim fit
})

_STAGING_SUFFIXES = (".part", ".old")


class OutputDir:
    """Stage a run's files privately; publish them together when the run succeeds."""

    def __init__(self, target: str | os.PathLike[str], *, field: str = "--out") -> None:
        self.target = Path(target)
        self.field = field
        self._staging: Path | None = None
        self._made_parents: list[Path] = []

    def path(self, name: str) -> Path:
        """Where to write output file ``name`` (inside the staging directory)."""
        if self._staging is None:
            raise RuntimeError("OutputDir.path() outside its with-block")
        return self._staging / name

    def __enter__(self) -> OutputDir:
        target = self._checked_target()
        self.target = target
        missing = [p for p in (target.parent, *target.parent.parents) if not p.exists()]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._made_parents = missing
            _remove_stale(target)
            self._staging = Path(
                tempfile.mkdtemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".part", dir=target.parent)
            )
        except OSError as exc:
            raise self._cannot(exc) from None
        return self

    def _cannot(self, exc: OSError) -> InputError:
        """An OS error as one line naming the directory the user gave, never the
        staging directory (a hidden name the user has never seen)."""
        return InputError(
            f"cannot write the output directory {self.target}: {exc.strerror or exc}", field=self.field
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        staging, self._staging = self._staging, None
        assert staging is not None
        if exc_type is None:
            try:
                self._publish(staging)
                return
            except OSError as error:
                shutil.rmtree(staging, ignore_errors=True)
                raise self._cannot(error) from None
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        shutil.rmtree(staging, ignore_errors=True)
        for parent in self._made_parents:  # innermost first
            try:
                parent.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):  # writing a file into the staging directory failed
            raise self._cannot(exc) from None

    def _checked_target(self) -> Path:
        target = self.target
        if target.is_symlink():
            target = target.resolve()
        here = Path.cwd().resolve()
        absolute = target.absolute().resolve()
        if absolute == here or absolute in here.parents:
            raise InputError(
                f"{str(self.target)!r} is the current directory (or contains it); name a new"
                " directory for the run's files",
                field=self.field,
            )
        if target.exists():
            if not target.is_dir():
                raise InputError(f"{target} exists and is not a directory", field=self.field)
            self._check_replaceable(target)
        return target

    def _check_replaceable(self, target: Path) -> None:
        foreign = sorted(
            entry.name for entry in target.iterdir()
            if entry.name not in OUTPUT_NAMES or entry.is_symlink() or not entry.is_file()
        )
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise InputError(
                f"{target} holds files a run does not write ({shown}); sitesim replaces only"
                " an empty directory or a previous run's outputs: name a new directory",
                field=self.field,
            )

    def _publish(self, staging: Path) -> None:
        target = self.target
        mode = target.stat().st_mode & 0o7777 if target.is_dir() else _default_dir_mode()
        os.chmod(staging, mode)
        for _attempt in range(10):  # another run may publish the same target meanwhile
            try:
                os.rename(staging, target)  # atomic when the target is absent or empty
                return
            except OSError as exc:
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            self._check_replaceable(target)
            aside = Path(tempfile.mkdtemp(
                prefix=f".{target.name}.{os.getpid()}.", suffix=".old", dir=target.parent
            ))
            try:
                os.rename(target, aside)  # replaces the empty ``aside`` directory
            except FileNotFoundError:  # the other run moved it away first: try again
                aside.rmdir()
                continue
            try:
                os.rename(staging, target)
            except OSError:
                if not target.exists():
                    os.rename(aside, target)  # put the previous outputs back
                raise
            finally:
                shutil.rmtree(aside, ignore_errors=True)
            return
        raise InputError(f"{target} keeps changing while this run publishes into it", field=self.field)


def _default_dir_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o777 & ~umask


def _remove_stale(target: Path) -> None:
    """Staging directories of runs into ``target`` whose process no longer exists."""
    for entry in target.parent.glob(f".{target.name}.*"):
        if not entry.name.endswith(_STAGING_SUFFIXES) or not entry.is_dir():
            continue
        pid_text = entry.name[len(target.name) + 2:].partition(".")[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True
