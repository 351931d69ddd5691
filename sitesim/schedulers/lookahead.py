"""The packing step of LOS: which backfill candidates to start now, chosen optimally.

LOS (Shmueli & Feitelson, "Backfilling with lookahead to optimize the packing of
parallel jobs", JPDC 2005) keeps EASY's reservation for the head of the queue but
replaces EASY's one-job-at-a-time backfill scan by a dynamic program that finds the set
of waiting jobs using the most nodes now. This module is that program, as a pure
function over numbers; the scheduler that builds its inputs from a queue lives
elsewhere.

The problem
-----------
The candidates are the queued jobs after the head, in queue order (position 0 is
nearest the head), up to the lookahead depth. Candidate ``i`` needs ``sizes[i]`` nodes;
``late[i]`` says it would still run at the head's shadow time (its reserved start), so
it also takes some of the ``extra`` nodes, those the head will leave spare then. With
``free`` nodes idle now, a set ``S`` of candidates is *feasible* when

- ``sum(sizes[i] for i in S) <= free`` (it fits now), and
- ``sum(sizes[i] for i in S if late[i]) <= extra`` (the head still starts at its
  shadow time: jobs gone by then give their nodes back, the others keep theirs).

:func:`pack` returns the feasible set of the largest total size (utilisation now),
as sorted positions. Many sets may tie; LOS prefers jobs nearer the head, which is made
exact here as: **the lexicographically first of the maximal sets**, comparing their
membership vectors in queue order with "in" before "out". Candidate 0 is in if any
maximal set has it; then candidate 1 is in if any maximal set agreeing so far has it;
and so on. It is the packing that gives each position, in queue order, the strongest
claim it can have without losing a node of utilisation.

The fast path: EASY's scan is often already optimal
---------------------------------------------------
EASY's scan (:func:`sitesim.schedulers.backfill.scan`, over the candidates) takes, in
queue order, each candidate that still fits given those taken before (counting a late
one against the extra nodes too). **Claim:** it returns the lexicographically first
feasible set. *Proof.* Feasibility is closed under taking subsets (both constraints are
sums of positive sizes). Build the lexicographically first feasible set position by
position: having fixed positions ``0..i-1`` as the set ``P``, position ``i`` is in if
some feasible set contains ``P + {i}`` (and agrees with the exclusions before ``i``);
by closure under subsets that holds exactly when ``P + {i}`` itself is feasible, which
is the scan's test. So the two constructions make the same choice at every position.

Hence, if the scan's total equals an upper bound of the optimum, the scan's set is a
maximal set, and as it is first among *all* feasible sets, it is first among the
maximal ones: it is the answer, and no dynamic program runs. The bound used
(:func:`bound`) is
``min(free, P + min(extra, L))``, ``P`` and ``L`` being the total sizes of the usable
candidates that are not late and late respectively (a candidate is usable when it
fits alone: size ``<= free``, and ``<= extra`` too if late). The scan meets it when
it fills the machine, when it takes every usable candidate, or when it takes every
usable candidate that is not late and uses up the extra nodes. On a loaded machine
that is the common case.

The dynamic program
-------------------
Otherwise only two numbers of a set matter for feasibility: its total size ``a`` and
its late total ``l``. For a given total, the set with the least late total is the
easiest to fit; so rather than a two-dimensional table of reachable ``(a, l)`` pairs,
one row per candidate suffices:

    ``M[j][a]`` = the least late total of a subset of candidates ``j..`` (in the
    pruned list, below) whose total size is exactly ``a``; "none" if there is none
    with a late total within the extra nodes.

``M[k]`` (no candidate) has 0 at ``a = 0`` and "none" elsewhere, and candidate ``j`` of
size ``s`` (late cost ``c = s`` if late, else 0) gives
``M[j][a] = min(M[j+1][a], M[j+1][a - s] + c)``. The optimum is the largest ``a`` with
``M[0][a]`` not "none". Before it, candidates that can never be chosen (size above
``free``; late and size above ``min(free, extra)``) are dropped, the totals run up to
``top = min(free, sum of the usable sizes)`` only, and late totals are compared with
``cap = min(extra, top)`` (a set of total ``<= top`` has a late total ``<= top``, so
``<= cap`` and ``<= extra`` are the same test); "none" is ``cap + 1``.

Reconstruction walks forward: with ``t`` nodes of the optimum still to place and
``b`` extra nodes left, candidate ``j`` is taken when ``M[j+1][t - s] <= b - c``, i.e.
when some completion from the later candidates still reaches the optimum exactly.
Invariant: some subset of candidates ``j..`` has total ``t`` and late total ``<= b``.
If such a subset can contain ``j`` we take it (the lexicographic rule); if not, every
such subset leaves ``j`` out and the invariant passes to ``j + 1``. So the walk ends
with ``t = 0`` on the lexicographically first maximal set.

Cost: ``k * top`` steps of one addition and one comparison, ``k`` the usable
candidates; the rows are kept for the walk, ``(k + 1) * (top + 1)`` small integers
(about 88 kB for 50 candidates and 430 free nodes as 32-bit integers). A bitset
formulation (for each late budget ``b``, the set of reachable totals as machine words)
costs ``k * cap * top / 64`` word operations, more whenever ``cap`` exceeds a few dozen
nodes; the min-late rows replace its second dimension by the value stored.

When no usable candidate is late (on synth80k under ``los``, 8,287 of the 8,471
programs run), every late total is 0 and a row only says which totals are reachable:
the rows are then bitsets, one Python integer each (bit ``a`` of ``R[j]`` set when
some subset of candidates ``j..`` totals ``a``; ``R[j] = R[j+1] | R[j+1] << s``), and
the optimum and the walk read them as above (:func:`_pack_on_time`). It is the same
program on the same rows, cheaper: ``k`` shifts of a ``top``-bit integer instead of
``k * top`` steps in Python.

A program over ``top >= 2**30`` nodes is refused (``MemoryError``): its rows could not
be held anyway. Inputs are checked: ``ValueError`` for lists of different lengths, a
negative ``free`` or ``extra``, or a size that is not positive.

The program is plain Python. A compiled twin of it once existed; it made no whole run
of ``los`` 1.3 times faster (docs/performance.md), because the fast path above settles
most passes (1,923 of 32,555 selections on KTH-SP2 ran the program).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Totals at or above this are refused (a row of 2**30 entries is 4 GiB at least).
LIMIT = 1 << 30


def _check(sizes: Sequence[int], late: Sequence[bool], free: int, extra: int) -> None:
    """Refuse inputs outside the problem (see the module docstring)."""
    if len(sizes) != len(late):
        raise ValueError(f"{len(sizes)} sizes but {len(late)} late flags")
    if free < 0 or extra < 0:
        raise ValueError(f"free and extra nodes cannot be negative, got free={free}, extra={extra}")
    for size in sizes:
        if size <= 0:
            raise ValueError(f"a candidate needs at least one node, got size {size}")


def bound(sizes: Sequence[int], late: Sequence[bool], free: int, extra: int) -> int:
    """An upper bound of the optimum: ``min(free, P + min(extra, L))`` over the usable
    candidates (module docstring). EASY's scan, whose set is the lexicographically
    first feasible one, is the answer when its total meets it."""
    plain = lateful = 0  # usable sizes: not late, late
    for i, size in enumerate(sizes):
        if size <= free and not late[i]:
            plain += size
        elif size <= free and size <= extra:
            lateful += size
    return min(free, plain + min(extra, lateful))


def pack(sizes: Sequence[int], late: Sequence[bool], free: int, extra: int) -> list[int]:
    """The dynamic program: the lexicographically first feasible set of the largest
    total size, as sorted positions (exact without the fast path, which its caller,
    :meth:`sitesim.schedulers.los.LosScheduler.select`, tries first)."""
    _check(sizes, late, free, extra)
    usable = [i for i, size in enumerate(sizes) if size <= free and (not late[i] or size <= extra)]
    if not usable:
        return []
    size = [sizes[i] for i in usable]
    cost = [sizes[i] if late[i] else 0 for i in usable]
    top = min(free, sum(size))
    if top >= LIMIT:
        raise MemoryError(f"a packing over {top} nodes is beyond the packing step's range (2**30)")
    if not any(cost):
        return _pack_on_time(size, usable, top)
    cap = min(extra, top)
    none = cap + 1
    # rows[j][a]: least late total of a subset of usable[j:] of total a (none: no such subset).
    row = [0] + [none] * top
    rows = [row]
    reach = 0  # the total of usable[j+1:], capped at top: the row is "none" above it
    for j in range(len(usable) - 1, -1, -1):
        s, c = size[j], cost[j]
        hi = min(top, reach + s)
        prev = row
        # v < x <= none keeps every entry at most none (v <= cap when stored).
        row = prev[:s] + [v if (v := p + c) < x else x for x, p in zip(prev[s : hi + 1], prev[: hi + 1 - s])] + prev[hi + 1 :]
        rows.append(row)
        reach = hi
    rows.reverse()
    first = rows[0]
    target = next(a for a in range(top, -1, -1) if first[a] <= cap)
    chosen: list[int] = []
    budget = cap
    for j, position in enumerate(usable):
        if target == 0:
            break
        s, c = size[j], cost[j]
        if s <= target and c <= budget and rows[j + 1][target - s] <= budget - c:
            chosen.append(position)
            target -= s
            budget -= c
    return chosen


def _pack_on_time(size: list[int], usable: list[int], top: int) -> list[int]:
    """:func:`pack` where no usable candidate is late: its rows as bitsets of the
    reachable totals up to ``top`` (module docstring), the same optimum and walk."""
    within = (1 << (top + 1)) - 1
    rows = [1]  # no candidate: only the total 0
    for s in reversed(size):
        rows.append((rows[-1] | rows[-1] << s) & within)
    rows.reverse()
    target = rows[0].bit_length() - 1
    chosen: list[int] = []
    for j, position in enumerate(usable):
        if target == 0:
            break
        s = size[j]
        if s <= target and rows[j + 1] >> (target - s) & 1:
            chosen.append(position)
            target -= s
    return chosen
