"""Where sweep runs execute: in this process, in local processes, or on a dask cluster.

An executor only has to run a function over points and hand back each outcome as it
finishes, in any order; the store sorts rows at the end, so the CSV does not depend
on the executor. Errors inside a run are caught on the worker and returned as text,
so one failing point is reported without stopping the others.

Executors know nothing of sweeps: the points may be any picklable values and the
function any module-level one. :func:`map_in_order` uses that for the experiments,
whose independent runs (one per seed, per load, per configuration) are not sweep
rows but should still use every core.

dask is optional (``pip install 'sitesim[dask]'``) and imported only when used.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, Protocol, TypeVar

from attrs import define

from sitesim.errors import InputError

T = TypeVar("T")
R = TypeVar("R")


@define(frozen=True, slots=True)
class Outcome(Generic[T, R]):
    """What came back from one run: its result (a sweep's row), or the error that stopped it."""

    point: T
    row: R | None
    error: str | None = None


def guarded(run: Callable[[T], R], point: T) -> Outcome[T, R]:
    """Run ``point``, catching any exception as text (exceptions may not unpickle)."""
    try:
        return Outcome(point, run(point))
    except Exception as exc:  # noqa: BLE001 - reported per point, the sweep goes on
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return Outcome(point, None, detail)


class Executor(Protocol):
    def map_unordered(self, run: Callable[[T], R], points: Sequence[T]) -> Iterator[Outcome[T, R]]:
        """Yield one outcome per point, in completion order."""
        ...


class SerialExecutor:
    """Runs points one after another in this process (debugging, tests)."""

    def map_unordered(self, run: Callable[[T], R], points: Sequence[T]) -> Iterator[Outcome[T, R]]:
        for point in points:
            yield guarded(run, point)


class ProcessExecutor:
    """Local worker processes; ``jobs`` defaults to the number of CPUs.

    At most ``2 * jobs`` runs are queued at once, so an interrupt leaves little to
    cancel and a huge grid does not create all its futures up front. Workers start
    with ``forkserver`` where available, not ``fork``: the parent has threads (tqdm's
    monitor, a dask client) and forking a threaded process can deadlock the child.
    It costs about half a second per sweep.
    """

    def __init__(self, jobs: int | None = None, start_method: str | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1
        if start_method is None and "forkserver" in multiprocessing.get_all_start_methods():
            start_method = "forkserver"
        self.start_method = start_method

    def map_unordered(self, run: Callable[[T], R], points: Sequence[T]) -> Iterator[Outcome[T, R]]:
        task = functools.partial(guarded, run)
        if not points:
            return
        context = multiprocessing.get_context(self.start_method)
        if self.start_method == "forkserver":
            _reap_forkserver_at_exit()
        pool = ProcessPoolExecutor(
            max_workers=min(self.jobs, len(points)), mp_context=context,
            initializer=die_with_parent, initargs=(os.getpid(),),
        )
        finished = False
        try:
            todo = iter(points)
            pending = set()
            for point in todo:
                pending.add(_submit(pool, task, point))
                if len(pending) >= 2 * self.jobs:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield _result(future)
                    nxt = next(todo, None)
                    if nxt is not None:
                        pending.add(_submit(pool, task, nxt))
            finished = True
        finally:
            if not finished:  # interrupted (Ctrl-C, SIGTERM) or failed: stop the runs now
                _terminate_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)


class WorkersFailed(OSError):
    """The worker processes could not start, or one ended abruptly (killed, out of
    memory). An :class:`OSError` with its own message: the commands print it on one
    line and exit 2, where the broken pipe or broken pool beneath it ended a study
    silently with the status of a closed standard output (141)."""


_WHY = ("; run with --serial to run in this process, or check that this user can start Python"
        " processes here (the current folder readable, /dev/shm writable, sitesim importable)")


def _submit(pool: ProcessPoolExecutor, task: Callable[[T], Any], point: T) -> Any:
    """``pool.submit``; a worker that cannot be started says why (see :class:`WorkersFailed`)."""
    try:
        return pool.submit(task, point)
    except (OSError, BrokenProcessPool) as exc:
        raise WorkersFailed(f"the worker processes could not start ({_reason(exc)}){_WHY}") from None


def _result(future: Any) -> Any:
    try:
        return future.result()
    except (OSError, BrokenProcessPool) as exc:
        raise WorkersFailed(f"a worker process ended abruptly: it could not start, or was killed"
                            f" ({_reason(exc)}){_WHY}") from None


def _reason(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


@functools.cache
def _reap_forkserver_at_exit() -> None:
    """Make this process wait for its forkserver when it exits.

    Workers are children of the forkserver, which reaps them; but the standard library
    leaves the forkserver itself unreaped at exit, so the workers' CPU time never
    reaches this process's parent (``getrusage(RUSAGE_CHILDREN)``, ``/usr/bin/time``,
    scripts/reproduce.py would see almost none of it). Registered once.
    """
    atexit.register(_stop_forkserver)


def _stop_forkserver() -> None:
    from multiprocessing import forkserver

    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        try:
            stop()  # closes its "alive" pipe and waits for it (private but stable since 3.4)
        except (OSError, AttributeError, TypeError):
            pass


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this worker when the sweep process ``parent`` is gone.

    A sweep killed outright (SIGKILL) cannot stop its workers, and workers started by
    the forkserver are not even its children. On Linux the kernel kills the worker when
    its parent (the forkserver, which exits as soon as the sweep is gone) dies; on every
    system a daemon thread checks every half second that the sweep still exists. So no
    worker outlives its sweep by more than a second.
    """
    import ctypes
    import signal
    import sys
    import threading
    import time

    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except OSError:
                pass
            time.sleep(0.5)

    threading.Thread(target=watch, name="sitesim-parent-watch", daemon=True).start()


def _terminate_workers(pool: ProcessPoolExecutor) -> None:
    """Stop the worker processes at once (the executor only waits for runs to end)."""
    for process in list(getattr(pool, "_processes", {}).values()):
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass


class DaskExecutor:
    """A dask.distributed cluster, given a ``Client`` or a scheduler address.

    A client passed in stays open (it belongs to the caller); one made from an
    address is closed when the sweep ends. Workers must be able to import sitesim
    and read the traces at the same paths.
    """

    def __init__(self, client: Any = None, *, address: str | None = None) -> None:
        if (client is None) == (address is None):
            raise ValueError("give a dask Client or a scheduler address, not both")
        self.client = client
        self.address = address

    def map_unordered(self, run: Callable[[T], R], points: Sequence[T]) -> Iterator[Outcome[T, R]]:
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise InputError(
                "the dask executor needs dask.distributed: pip install 'sitesim[dask]'"
            ) from None
        if not points:
            return
        client = self.client if self.client is not None else Client(self.address)
        futures: list[Any] = []
        try:
            task = functools.partial(guarded, run)
            futures = client.map(task, list(points), pure=False)
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()
            if self.client is None:
                client.close()


def is_dask_client(obj: Any) -> bool:
    return type(obj).__module__.startswith("distributed") and hasattr(obj, "map")


def executor_for(scheduler_address: str | None, serial: bool) -> Any:
    """What the command lines' ``--scheduler-address`` and ``--serial`` ask for, as
    :func:`make_executor` takes it (None: local processes)."""
    if scheduler_address:
        return DaskExecutor(address=scheduler_address)
    return "serial" if serial else None


def make_executor(executor: Any = None, *, jobs: int | None = None) -> Executor:
    """An executor from a name (``processes``, ``serial``), a dask Client, or itself."""
    if executor is None or executor == "processes":
        return ProcessExecutor(jobs)
    if executor == "serial":
        return SerialExecutor()
    if is_dask_client(executor):
        return DaskExecutor(executor)
    if hasattr(executor, "map_unordered"):
        return executor  # type: ignore[no-any-return]
    raise ValueError(f"unknown executor {executor!r}")


def map_in_order(function: Callable[[T], R], items: Sequence[T], *, jobs: int | None = 1) -> list[R]:
    """``[function(item) for item in items]``, on ``jobs`` local processes (None: every CPU).

    The results come back in the order of ``items`` whatever order the runs finish in,
    so a caller's output does not depend on ``jobs``. One process (the default) runs in
    this process, without the start-up of a pool. The first failed item raises
    ``RuntimeError`` naming it, after the runs still going have been stopped.
    ``function`` must be picklable (a module-level function or a partial of one).
    """
    executor: Executor = SerialExecutor() if jobs == 1 or len(items) <= 1 else ProcessExecutor(jobs)
    out: list[R] = []
    done: dict[int, R] = {}
    numbered = functools.partial(_numbered, function)
    outcomes = executor.map_unordered(numbered, list(enumerate(items)))
    try:
        for outcome in outcomes:
            if outcome.row is None:
                raise RuntimeError(f"{outcome.point[1]!r}: {outcome.error}")
            done[outcome.row[0]] = outcome.row[1]
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()  # a generator stops its pool's runs when closed early
    out.extend(done[k] for k in range(len(items)))
    return out


def _numbered(function: Callable[[T], R], item: tuple[int, T]) -> tuple[int, R]:
    """Run ``function`` on a numbered item and keep its number (for :func:`map_in_order`)."""
    return item[0], function(item[1])
