"""A reader that may not build the bonus counts never waits for a process that is building
them (the floor's page asked, and hung until the counting was done)."""

from __future__ import annotations

import fcntl
import time
from pathlib import Path

import pytest

from paigow.analysis.bonus_counts import counts_path, open_counts
from paigow.analysis.compiled import CacheError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


def test_a_reader_does_not_wait_for_the_counting(tmp_path: Path) -> None:
    way = HouseWay.preset("standard")
    path = counts_path(way, Wheel.SECOND, tmp_path)
    with pytest.raises(CacheError, match="no bonus counts"):
        open_counts(way, Wheel.SECOND, tmp_path, build_missing=False)
    path.write_bytes(b"being written")
    with path.with_name(path.name + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process counting
        started = time.monotonic()
        with pytest.raises(CacheError, match="being built"):
            open_counts(way, Wheel.SECOND, tmp_path, build_missing=False)
        assert time.monotonic() - started < 1.0
    with pytest.raises(CacheError):  # free now: read, and found not to be counts
        open_counts(way, Wheel.SECOND, tmp_path, build_missing=False)
