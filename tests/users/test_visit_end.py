"""The end of a visit: a fitted user deals only absences that end before its departure
(``"last_absence": "within_span"``; docs/population.md, "The end of a visit")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import simpy

from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.runs.fit import fit_log
from sitesim.schedulers import make_scheduler
from sitesim.users.population import Deck, FittedPopulation, populate
from sitesim.workload.estimates import make_estimates

DAY = 86_400
HOUR = 3_600


def test_when_every_card_fits_a_deal_within_is_a_deal() -> None:
    rng = np.random.default_rng(5)
    plain, within = Deck((1.0, 2.0, 3.0, 10.0)), Deck((1.0, 2.0, 3.0, 10.0))
    for _ in range(12):
        u = rng.random()
        assert within.deal_within(u, 10.0) == plain.deal(u)


def test_a_deal_within_takes_only_the_cards_left_that_fit() -> None:
    deck = Deck((1.0, 20.0, 3.0, 40.0))
    assert deck.deal(0.0) == 1.0  # left: 40, 20, 3 (the last card took position 0)
    # u picks among the fitting cards left, in their positions: 20 and 3 fit under 25
    assert deck.deal_within(0.0, 25.0) == 20.0
    assert deck.deal_within(0.99, 25.0) == 3.0
    assert deck.left == 1
    # only 40 is left in the round: nothing fits, the user departs, the card stays
    assert deck.deal_within(0.5, 25.0) is None and deck.left == 1
    assert deck.deal(0.0) == 40.0


def test_a_new_round_deals_any_card() -> None:
    """Conditioning a fresh round on the time left would deal a user's short absences
    over and over: the first deal of a round is the plain one, checked by the caller."""
    deck = Deck((1.0, 40.0))
    assert deck.deal_within(0.99, 5.0) == 40.0


def visit_table(last_absence: str | None) -> dict[str, Any]:
    """One user of six one-job sessions (a 1-node job of 10 minutes, never continued)
    with five absences, one of four days and four of two hours, on a flat cycle (so
    operational time is trace time). Its span is the log's chain less three hours: the
    simulated chain runs late, as under a slower service."""
    absences = [4 * DAY, 2 * HOUR, 2 * HOUR, 2 * HOUR, 2 * HOUR]
    jobs = [[1, 600]] * 6
    data: dict[str, Any] = {
        "format": "sitesim-population", "name": "a visit",
        "clock": {"unix_start": 4 * DAY, "offset": 0, "zone": "UTC", "declared": False},
        "duration": 30 * DAY, "machine_size": 4, "min_observations": 5,
        "session_start_weights": [1] * 168, "batches": "resampled",
        "continuation": {"edges": [600], "probability": [0.0, 0.0], "batches": [10, 10]},
        "users": [{
            "user": 1, "arrival": 0, "span": sum(absences) + 5 * 600 - 3 * HOUR, "jobs": 6,
            "widths": [1] * 6, "gaps_operational": [], "jobs_in_order": jobs,
            "session_batches": [1] * 6, "thinks": [], "runs": [[1, 600, 6]],
            "absences": absences, "continue_offset": 0.0,
        }],
    }
    if last_absence is not None:
        data["last_absence"] = last_absence
    return data


def visit(data: dict[str, Any], seed: int) -> tuple[list[int], list[float]]:
    """The user's session starts (one job each), and the absences left in its round."""
    env = simpy.Environment()
    site = Site(env, Machine(4), make_scheduler("easy", 4))
    jobs: list[Any] = []
    site.observe(type("Obs", (), {"on_submit": lambda self, job: jobs.append(job)})())
    (user,) = populate(site, FittedPopulation.from_dict(data, largest=4), 1, seed=seed,
                       estimates=make_estimates("exact"))
    env.run(until=30 * DAY)
    assert user._decks is not None
    deck = user._decks[0].decks[0]
    return [j.submit for j in jobs], [deck.values[deck.moved.get(k, k)] for k in range(deck.left)]


def test_a_user_late_on_its_chain_keeps_the_sessions_that_still_fit() -> None:
    """Three hours late, the user cannot hold all six sessions. Drawing any absence, it
    departs at the first that crosses its departure: where the four days come late in
    the round, it waits them out, and a short absence left in the round would have
    fitted. Dealing within its visit, it skips the long absence that no longer fits and
    departs only when no absence left in the round fits in the time it has."""
    departure = visit_table(None)["users"][0]["span"]
    held: dict[str | None, list[int]] = {}
    for last_absence in (None, "within_span"):
        held[last_absence] = []
        wasted = 0
        for seed in range(12):
            starts, left = visit(visit_table(last_absence), seed)
            held[last_absence].append(len(starts))
            time_left = departure - (starts[-1] + 600)
            wasted += any(a <= time_left for a in left)
        assert (wasted > 0) == (last_absence is None)
    assert all(4 <= n <= 5 for n in held["within_span"])
    assert sum(held["within_span"]) > sum(held[None])


def test_the_key_is_read_and_checked() -> None:
    assert not FittedPopulation.from_dict(visit_table(None), largest=4).profiles[0].fills_visit
    assert FittedPopulation.from_dict(visit_table("within_span"), largest=4).profiles[0].fills_visit
    # a user of one session draws the pooled absences: none of them was within its visit
    data = visit_table("within_span")
    data["users"].append({**data["users"][0], "user": 2, "absences": [], "session_batches": [6]})
    assert not FittedPopulation.from_dict(data, largest=4).profiles[1].fills_visit
    with pytest.raises(ValueError, match="unknown last_absence"):
        FittedPopulation.from_dict(visit_table("sometimes"), largest=4)


def test_only_a_visits_first_round_is_dealt_within_it() -> None:
    """A user whose chain runs early deals a second round of its absences: that is past
    what its log recorded, and it deals as before; a new visit starts over."""
    deck = Deck((1.0, 40.0))
    assert [deck.deal_within(0.99, 50.0), deck.deal_within(0.0, 50.0)] == [40.0, 1.0]
    assert deck.deal_within(0.0, 5.0) == 1.0  # a new round's first deal: plain
    assert deck.deal_within(0.0, 5.0) == 40.0  # the second round: plain throughout
    deck.visit()  # nothing left in the round in hand: the next round is the visit's first
    assert deck.deal_within(0.0, 50.0) == 1.0
    assert deck.deal_within(0.0, 5.0) is None  # 40 left, and it does not fit


def test_a_fitted_table_deals_within_its_visits(tmp_path: Path) -> None:
    """``sitesim fit`` writes the key; its users with absences of their own deal within
    their visits."""
    log = tmp_path / "log.swf"
    log.write_text(
        "; MaxProcs: 4\n"
        + "".join(
            f"{3 * i + u} {i * 7200 + u * 7} 10 {60 + i} 1 -1 -1 1 100 -1 1 {u} 1 -1 -1 -1 -1 -1\n"
            for i in range(1, 40)
            for u in (1, 2, 3)
        ),
        encoding="utf-8",
    )
    fit_log(log, tmp_path / "site")
    table = json.loads((tmp_path / "site" / "population.json").read_text())
    assert table["last_absence"] == "within_span"
    profiles = FittedPopulation.from_dict(table, largest=4).profiles
    assert all(p.fills_visit for p in profiles)
