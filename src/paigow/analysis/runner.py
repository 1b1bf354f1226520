"""Running analysis jobs as deterministic chunks: in this process (threads over nogil kernels) or
on a Dask cluster (a scheduler address, or a local cluster).

A job is a list of chunk specifications and a module-level function that computes one chunk.
The split never depends on where the chunks run, so a job's result is the same on one core, two
cores or a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from paigow.analysis.compiled import CompiledHouseWay, cache_dir
from paigow.analysis.extras import require
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class TableSpec:
    """Which compiled house way a chunk needs: picklable (the house way travels as itself,
    known by its name and digest), and opened once per process."""

    way: HouseWay
    wheel: str
    folder: str

    @classmethod
    def of(cls, way: HouseWay, wheel: Wheel, folder: Path | None = None) -> TableSpec:
        return cls(way, wheel.value, str(folder or cache_dir()))

    def open(self) -> CompiledHouseWay:
        """The compiled table (built on this machine if missing)."""
        return _open(self)


@lru_cache(maxsize=4)
def _open(spec: TableSpec) -> CompiledHouseWay:
    return CompiledHouseWay.open(spec.way, Wheel(spec.wheel), Path(spec.folder))


@dataclass(frozen=True)
class Runner:
    """Where chunks run: ``workers`` threads here, or a Dask scheduler (``scheduler`` address,
    or ``"local"`` for a local cluster of ``workers`` processes)."""

    workers: int = 2
    scheduler: str | None = None

    def map(
        self,
        fn: Callable[[T], R],
        chunks: Sequence[T],
        progress: Callable[[R], None] | None = None,
    ) -> list[R]:
        """``[fn(c) for c in chunks]``, in order, computed here or on the cluster."""
        if self.scheduler is None:
            with ThreadPoolExecutor(max_workers=max(1, self.workers)) as pool:
                futures = [pool.submit(fn, c) for c in chunks]
                if progress is not None:  # as each chunk ends, not in order
                    for future in as_completed(futures):
                        progress(future.result())
                return [f.result() for f in futures]
        return self._map_dask(fn, chunks, progress)

    def _map_dask(
        self,
        fn: Callable[[T], R],
        chunks: Sequence[T],
        progress: Callable[[R], None] | None,
    ) -> list[R]:
        dist: Any = require("distributed", "analysis")
        cluster: Any = None
        if self.scheduler == "local":
            cluster = dist.LocalCluster(
                n_workers=max(1, self.workers),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = dist.Client(cluster)
        else:
            client = dist.Client(self.scheduler)
        try:
            futures = client.map(fn, list(chunks), pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            results: list[Any] = [None] * len(futures)
            for future in dist.as_completed(futures):
                r = future.result()
                results[index[future.key]] = r
                if progress is not None:
                    progress(r)
            return results
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
