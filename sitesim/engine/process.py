"""A user's life as a generator, driven on SimPy's event queue.

A simulated user is most readable as a generator that says what it waits for: a number
of seconds (a gap, a think time, an absence) or an event (the end of its batch). SimPy's
own ``Process`` runs such generators, but every resumption goes through its general
machinery (interrupts, failed events, a ``Timeout`` object per delay), and a site-level
run resumes its users about once and a half per job. :class:`UserProcess` keeps only
what a user needs, on the same queue entries SimPy would make, so the order of events,
and hence every schedule, is unchanged (``tests/engine/test_process.py`` runs both):

- it starts at ``URGENT`` priority, as ``Process`` does through its ``Initialize``
  event;
- ``yield SECONDS`` makes one event ``SECONDS`` from now at ``NORMAL`` priority, the
  entry ``env.timeout(SECONDS)`` makes;
- ``yield EVENT`` resumes the generator as the event is processed, as a process's
  callback on it would (the generator receives ``None``, not the event's value). The
  event must be the user's own, with no other callback (a user waits on its batch's
  end): the pass run at the end of the resumption runs inside the event's processing,
  before any callback after the user's;
- when the generator returns, nothing is scheduled: a ``Process`` succeeds its own
  event then, which takes a place in the queue but acts on nothing, since no one waits
  on a user;
- the jobs submitted in one resumption ask the site for one scheduling pass at its end
  (``Site.begin_step``/``end_step``), which the site runs at once when nothing else is
  due at the instant: the same passes, seeing the same queue, as when each submission
  asked for it (``tests/engine/test_batch.py`` compares every pass).
"""

from __future__ import annotations

from collections.abc import Generator
from numbers import Integral
from typing import Any

import simpy

from sitesim.engine.events import NORMAL, URGENT, At, resume_on
from sitesim.engine.site import Site

#: What a user generator yields: whole seconds to wait, or an event to wait on.
Wait = int | simpy.Event
UserGenerator = Generator[Wait, Any, Any]


class UserProcess:
    """Runs ``generator`` on ``site``'s environment from now, resuming it after each wait
    it yields; the jobs it submits in one resumption share one request for a pass."""

    __slots__ = ("site", "env", "generator")

    def __init__(self, site: Site, generator: UserGenerator) -> None:
        self.site = site
        self.env = site.env
        self.generator = generator
        At(self.env, 0, URGENT, self._resume)

    def _resume(self, _event: simpy.Event) -> None:
        site = self.site
        site.begin_step()
        try:
            self._wait(self.generator.send(None))
        except StopIteration:
            pass
        except BaseException:
            site.end_step(at_once=False)  # leave the site as a submission outside a step would
            raise
        site.end_step()

    def _wait(self, wait: Wait) -> None:
        """Resume after ``wait``: whole seconds (the simulated clock's unit) or an event."""
        if type(wait) is int or (isinstance(wait, Integral) and not isinstance(wait, bool)):
            if wait < 0:
                raise ValueError(f"a user cannot wait a negative time ({wait} s)")
            At(self.env, int(wait), NORMAL, self._resume)
        elif isinstance(wait, simpy.Event):
            resume_on(wait, self._resume)
        else:
            raise TypeError(f"a user yields whole seconds or an event to wait on, not {wait!r}")
