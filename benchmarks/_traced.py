"""``paigow`` with Python's allocations traced, for ``bench_soak.py --tracemalloc``: tracemalloc
on from the start (8 frames a trace), and on each ``SIGUSR2`` a snapshot written to the folder
``$PAIGOW_BENCH_TRACEMALLOC`` (``<pid>.<n>.snap``, after a garbage collection), so that what
Python holds can be compared between two moments of a long run (:func:`compare`).

    PAIGOW_BENCH_TRACEMALLOC=/tmp/snaps python benchmarks/_traced.py serve --database ...
"""

from __future__ import annotations

import gc
import os
import signal
import tracemalloc
from pathlib import Path
from typing import Any


def compare(first: Path, last: Path, top: int = 12) -> dict[str, Any]:
    """What Python held at ``last`` against ``first`` (two snapshots of one process): the
    traced totals in KiB and the ``top`` lines whose allocations grew most."""
    a = tracemalloc.Snapshot.load(str(first))
    b = tracemalloc.Snapshot.load(str(last))
    keep = [tracemalloc.Filter(False, tracemalloc.__file__)]
    a, b = a.filter_traces(keep), b.filter_traces(keep)
    total = [sum(s.size for s in snap.statistics("filename")) // 1024 for snap in (a, b)]
    lines = [
        {"kib": round(s.size_diff / 1024, 1), "count": s.count_diff, "at": str(s.traceback[0])}
        for s in b.compare_to(a, "lineno")[:top]
    ]
    return {"traced_kib_first": total[0], "traced_kib_last": total[1], "grew": lines}


def _install(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tracemalloc.start(8)
    taken = [0]

    def snapshot(_sig: int, _frame: Any) -> None:
        gc.collect()
        taken[0] += 1
        tracemalloc.take_snapshot().dump(str(folder / f"{os.getpid()}.{taken[0]}.snap"))

    signal.signal(signal.SIGUSR2, snapshot)


if __name__ == "__main__":
    _install(Path(os.environ["PAIGOW_BENCH_TRACEMALLOC"]))
    from paigow.cli.main import main

    main()
