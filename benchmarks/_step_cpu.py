"""``paigow`` with its SQLite steps timed, for ``bench_service.py``: the CPU each group of steps
takes where it runs (``time.thread_time()`` around ``SqliteWriter._run_steps``, which runs the
group's steps one after another on the event loop, their statements included), its running
total in seconds written to the file ``$PAIGOW_BENCH_STEP_CPU`` ten times a second. Any tree
since the group commit has that method; in one without it nothing is timed (the file says
``nan``).

    PAIGOW_BENCH_STEP_CPU=/tmp/steps python benchmarks/_step_cpu.py serve --database ...
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

try:
    from paigow.service.store import writer
except ImportError:  # a tree from before the store package: nothing timed
    writer = None  # type: ignore[assignment]

_total = [0.0]
_timed = writer is not None and hasattr(getattr(writer, "SqliteWriter", None), "_run_steps")


def _patch() -> None:
    assert writer is not None
    run_steps = writer.SqliteWriter._run_steps

    def timed(self: Any, *args: Any) -> None:
        t0 = time.thread_time()
        try:
            run_steps(self, *args)
        finally:
            _total[0] += time.thread_time() - t0

    writer.SqliteWriter._run_steps = timed  # type: ignore[method-assign]


def _publish(path: str) -> None:
    while True:
        tmp = f"{path}.tmp"
        with open(tmp, "w") as f:
            f.write(repr(_total[0]) if _timed else "nan")
        os.replace(tmp, path)
        time.sleep(0.1)


if __name__ == "__main__":
    if _timed:
        _patch()
    threading.Thread(
        target=_publish, args=(os.environ["PAIGOW_BENCH_STEP_CPU"],), daemon=True
    ).start()
    from paigow.cli.main import main

    main()
