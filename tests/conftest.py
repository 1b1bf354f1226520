"""Shared fixtures. The compiled house way (about 460 MB, about 30 s to build on two cores) is
built once into ``.cache/tables`` beside the tests (or ``$PAIGOW_CACHE_DIR``) and reused."""

from __future__ import annotations

import hashlib
import os
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


def _kernels_digest() -> str:
    """:func:`paigow.analysis.kernels.numba_cache.kernels_digest`, read before any kernel loads."""
    h = hashlib.sha256()
    for path in sorted((ROOT / "src" / "paigow" / "analysis" / "kernels").glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


# Each test worker keeps its own compiled kernels: numba's cache is not safe for two processes
# compiling different signatures of one function at once (one's index can come to point at the
# other's machine code, and a later process then counts garbage: seen here, a reduced deck's
# structures built before the house way's edge gave negative counts until the cache was
# cleared). The servers and commands a test starts inherit its worker's folder.
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(
        Path(os.environ["PAIGOW_CACHE_DIR"]) / "numba" / _kernels_digest()
        / os.environ.get("PYTEST_XDIST_WORKER", "main")
    ),
)  # fmt: skip


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
