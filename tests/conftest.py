"""Shared fixtures. The compiled house way (about 460 MB, about 30 s to build on two cores) is
built once into ``.cache/tables`` beside the tests (or ``$PAIGOW_CACHE_DIR``) and reused."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No timing-based failures on a loaded 2-core machine (CI runs two workers beside databases).
settings.register_profile(
    "paigow",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("paigow")

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PAIGOW_CACHE_DIR", str(ROOT / ".cache" / "tables"))


# The test workers, and the servers and commands a test starts, share one folder of compiled
# kernels (``<cache>/numba/<digest>``, paigow.analysis.kernels.numba_cache): each signature's
# machine code has a file named by its key, so two processes compiling one function at once
# cannot poison it, and a kernel one worker compiled is read by the other.


@pytest.fixture(scope="session", autouse=True)
def published_counts() -> None:
    """The standard house way's exact counts over every deal under each push rule, saved in
    the shared folder as ``paigow edge`` saves them: a server of the suite that shows the
    floor reads them at once rather than count every deal in its background worker (a minute of
    two cores, minutes under a push rule, started by any look at the floor). The count itself is
    the full-deck lane's; the suite checks the same kernel on reduced decks."""
    from paigow.service.floor.edges import saved_house_way
    from tests.helpers.edges import HOUSE_WAY_COUNTS, STANDARD, save_counts

    folder = Path(os.environ["PAIGOW_CACHE_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for push in HOUSE_WAY_COUNTS:
        if saved_house_way(folder, STANDARD, "second", push) is None:  # a counted one is kept
            save_counts(folder, push)


@pytest.fixture(scope="session")
def table_folder() -> Path:
    return Path(os.environ["PAIGOW_CACHE_DIR"])


@pytest.fixture(scope="session")
def compiled(table_folder: Path):  # type: ignore[no-untyped-def]
    """The compiled standard house way (Indiana ruleset: wheel second)."""
    from paigow.analysis.compiled import CompiledHouseWay
    from paigow.house_way import HouseWay
    from paigow.ranking import Wheel

    return CompiledHouseWay.open(HouseWay.preset("standard"), Wheel.SECOND, table_folder)


@pytest.fixture(scope="session", autouse=True)
def one_pricing_process() -> Iterator[None]:
    """The servers a test starts in this process (uvicorn in a thread: ``Service``, ``Site``)
    share one pricing process, stopped when the session ends, where each would start its own
    and stop it with itself (about 1.6 s of CPU a start: imports, kernels, tables). ``paigow
    serve`` processes start and stop theirs as in production."""
    from paigow.service.process import app

    stop = app.shutdown_price_worker
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app, "shutdown_price_worker", lambda: None)
        yield
    stop()
