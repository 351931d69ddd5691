"""How the commands end: exit statuses, one-line errors, signals and closed pipes.

Both ``sitesim`` and ``sitesim sweep`` run their work through :func:`run_command`, so
they keep the same promises (docs/reliability.md):

- bad input (:class:`~sitesim.errors.InputError`) or an OS error (unwritable path, full
  disk) prints one ``PROG: error: ...`` line and exits 2, never a traceback;
- SIGTERM (``kill``, ``timeout``) is handled like Ctrl-C: it is raised as an exception
  in the main thread, so every ``with`` block cleans up (staged outputs removed,
  sweep workers stopped) before the exit with 128 + the signal number (130, 143);
- a closed standard output (``sitesim ... | head -1``) ends the command quietly, as
  other command-line tools do, with 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

from sitesim.errors import InputError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE (not defined on every platform)


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that cleanup runs exactly as for Ctrl-C."""


class _RaiseTerminated:
    """The SIGTERM handler of the process that installed it; a forked child gets the default.

    A worker started by ``fork`` while the handler is installed inherits it (one
    started by ``forkserver``, a sweep's default, or ``spawn`` does not). Stopped by
    the sweep (its pool broken, or the sweep ending), such a worker would raise
    :class:`Terminated` wherever it was, even inside ``multiprocessing``'s start-up,
    and print a traceback beside the command's one-line error. So in any other process
    the handler restores the default action and sends the signal again: the child ends
    quietly, by SIGTERM.
    """

    __slots__ = ("owner",)

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self.owner:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated()


def run_command(prog: str, body: Callable[[], int], *, note: str = "") -> int:
    """Run ``body`` under the commands' error, signal and pipe rules; return the exit status."""
    try:
        previous = signal.signal(signal.SIGTERM, _RaiseTerminated(os.getpid()))
    except ValueError:  # not the main thread (an embedding program): leave signals alone
        previous = None
    try:
        return body()
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # an output path that cannot be written, a full disk, ...
        print(f"{prog}: error: {_named(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"{prog}: {what}" + (f"; {note}" if note else ""), file=sys.stderr)
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _named(exc: OSError) -> str:
    """``FILE: what happened``: an OS error naming the file it is about, never a bare
    ``[Errno 21] Is a directory: 'x'`` nor a message that names no file."""
    name = exc.filename
    if name is None:
        return str(exc)
    what = exc.strerror or str(exc)
    return f"{os.fsdecode(name) if isinstance(name, bytes) else name}: {what}"


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail loudly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout replaced by something without a file
        pass
