"""Pictures of a schedule: a Gantt chart of jobs on processors, and load over time.

``sitesim plot gantt SCHEDULE.swf --from T --to T -o FILE.png`` and ``sitesim plot load
SCHEDULE.swf -o FILE.png`` (docs/plots.md). Both read any SWF schedule or trace: the
simulator's own ``schedule.swf``/``trace.swf``, or a log of the archive. matplotlib is
imported only when a picture is drawn, so nothing else pays for it.
"""
