"""A zone's UTC offsets as a step function: the instants of change, to the second."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from sitesim.workload.zones import ZoneOffsets, known_zone, zone_offsets


def _unix(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp())


def test_the_changes_of_a_year_are_found_to_the_second() -> None:
    zone = ZoneOffsets(known_zone("US/Eastern"))  # type: ignore[arg-type]
    zone.cover(_unix(1996, 6, 1), _unix(1996, 6, 1))
    # 1996: EDT from Sunday 7 April 02:00 EST (07:00 UTC) to Sunday 27 October 02:00 EDT (06:00 UTC)
    assert zone.instants == [_unix(1996, 1, 1), _unix(1996, 4, 7, 7), _unix(1996, 10, 27, 6)]
    assert zone.offsets == [-18000, -14400, -18000]
    assert zone.offset_at(_unix(1996, 4, 7, 7) - 1)[1] == -18000
    assert zone.offset_at(_unix(1996, 4, 7, 7))[1] == -14400


def test_half_hour_changes_and_years_added_either_side() -> None:
    zone = ZoneOffsets(known_zone("Australia/Lord_Howe"))  # type: ignore[arg-type]
    zone.cover(_unix(2020, 3, 1), _unix(2020, 3, 1))
    assert sorted(set(zone.offsets)) == [37800, 39600]  # +10:30 and +11:00
    # 2020-04-05 02:00 local (+11) back to 01:30 (+10:30): 15:00 UTC on 4 April
    assert _unix(2020, 4, 4, 15) in zone.instants
    before = list(zone.instants)
    zone.cover(_unix(2018, 7, 1), _unix(2022, 7, 1))
    assert zone.years == (2018, 2022)
    assert set(before[1:]) <= set(zone.instants)
    times = np.array([_unix(2018, 7, 1), _unix(2019, 1, 1), _unix(2022, 7, 1)], dtype=float)
    assert zone.offsets_at(times).tolist() == [37800, 39600, 37800]


def test_a_zone_without_changes_and_unknown_names() -> None:
    kolkata = zone_offsets("Asia/Kolkata")
    assert kolkata.offsets_at(np.array([0.0, 1e9])).tolist() == [19800, 19800]
    assert known_zone("Nowhere/Atlantis") is None and known_zone("../etc/passwd") is None and known_zone("") is None
    with pytest.raises(ValueError, match="unknown time zone"):
        zone_offsets("Nowhere/Atlantis")
