"""The commands' signal rules (sitesim/exits.py) as a process sees them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

#: A command whose body forks a child (as a sweep's pool does), stops it with SIGTERM
#: (as a broken pool is torn down) and reports how the child ended.
_FORK_AND_STOP = """
import os, signal, sys, time
from sitesim.exits import run_command

def body():
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.write(write, b"x")
        while True:
            time.sleep(1)
    os.close(write)
    os.read(read, 1)  # the child runs, with the handler it inherited
    os.kill(child, signal.SIGTERM)
    _, status = os.waitpid(child, 0)
    print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, os.WIFEXITED(status))
    return 0

sys.exit(run_command("sitesim study", body))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: the child inherits the handler")
def test_a_forked_child_stopped_by_sigterm_ends_by_the_signal_quietly() -> None:
    """Seen in CI under load: a pool's second worker, stopped while it was starting,
    raised the command's Terminated inside multiprocessing and printed a traceback beside
    the one-line error. The handler belongs to the process that installed it."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _FORK_AND_STOP], capture_output=True, text=True, timeout=60,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
    assert done.stderr == ""


def test_sigterm_in_the_command_itself_is_raised_and_ends_143() -> None:
    """The owner still turns SIGTERM into Terminated, so cleanup runs as for Ctrl-C."""
    from sitesim.exits import EXIT_TERMINATED, run_command

    def body() -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        return 0

    assert run_command("sitesim", body) == EXIT_TERMINATED
