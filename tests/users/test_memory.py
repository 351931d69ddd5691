"""Lightweight users: a run may have 100,000 users, so each must cost kilobytes.

Users share the run's tables (and the size distribution mapped onto the machine); each
keeps only its random streams and one small block of draws per quantity. Before, each
user's samplers held 4,096 pre-drawn Python numbers per quantity, about 280 KB a user.
"""

from __future__ import annotations

import tracemalloc

import simpy

from sitesim.distributions import load_empirical
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.schedulers.fcfs import FcfsScheduler
from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS, User, user_streams
from sitesim.workload.estimates import make_estimates

#: Measured about 16 KB a user (random generators ~9 KB, draw blocks ~4 KB); the bound
#: leaves room for numpy versions, and is far below the 280 KB of 4,096-value blocks.
KB_PER_USER = 32


def test_users_cost_kilobytes_each() -> None:
    tables = load_empirical("combined")
    tables.size_for_machine(128, per_run=True)  # the shared mapping exists before users
    env = simpy.Environment()
    site = Site(env, Machine(128), FcfsScheduler(128))
    estimates = make_estimates("exact")
    n = 300
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        users = []
        for uid, (sub, pool, est) in enumerate(user_streams(0, n), 1):
            user = User(uid, site, SUBMITTAL_MODELS.get("batch")(tables, sub),
                        WORKPOOL_MODELS.get("plain")(tables, pool, 128), estimates, est)
            # Every sampler draws once, so every block exists.
            user.submittal.batch_width(), user.submittal.gap(), user.submittal.think()
            user.workpool.next_job()
            users.append(user)
        per_user = (tracemalloc.get_traced_memory()[0] - before) / n
    finally:
        tracemalloc.stop()
    assert per_user < KB_PER_USER * 1024, f"{per_user / 1024:.1f} KB per user"


def test_users_share_the_machine_size_mapping() -> None:
    tables = load_empirical("combined")
    assert tables.size_for_machine(64, per_run=True) is tables.size_for_machine(64, per_run=True)
    assert tables.size_for_machine(64) is not tables.size_for_machine(64, per_run=True)
