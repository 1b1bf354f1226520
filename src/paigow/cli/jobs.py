"""Where an analysis job runs and the compiled tables it needs: the ``--workers``,
``--scheduler`` and ``--cluster`` options, the compiled house way and strategy (built, with
progress bars, when missing), the progress bars themselves, and the analysis commands' error exit
(:func:`paigow.cli.common.fail` on their standard-error console).

The heavy modules (numba, numpy, Dask) are imported inside the functions, so that the CLI starts
fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from paigow.cli import common
from paigow.cli.common import terminal_err_console
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

if TYPE_CHECKING:
    from paigow.analysis.compiled import CompiledHouseWay
    from paigow.analysis.runner import Runner, TableSpec

WorkersOpt = Annotated[
    int, typer.Option("--workers", min=1, help="Threads here, or local cluster processes.")
]
SchedulerOpt = Annotated[
    str | None, typer.Option("--scheduler", help="Run on the Dask cluster at this address.")
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="'local': run on a local Dask cluster.")
]

# The analysis commands print their errors as their notices and progress bars: on standard error
# as wide as the terminal.
fail = partial(common.fail, err=terminal_err_console)
load_house_way = partial(common.load_house_way, err=terminal_err_console)
parse_commission = partial(common.parse_commission, err=terminal_err_console)


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on standard error; yields ``advance(n)``."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=terminal_err_console(),
        transient=True,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)


def stage_bars() -> tuple[Callable[[str, int], Callable[[int], None]], Callable[[], None]]:
    """A Rich progress display with one bar per stage; returns (add_stage, stop)."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=terminal_err_console(),
        transient=True,
    )
    progress.start()
    names = {"classes": "optimal settings (chunks)", "hands": "per-hand table"}

    def add(stage: str, total: int) -> Callable[[int], None]:
        task = progress.add_task(names.get(stage, stage), total=total)
        return lambda n: progress.advance(task, n)

    return add, progress.stop


def make_runner(workers: int, scheduler: str | None, cluster: str | None) -> Runner:
    """Where the job runs: ``--workers`` threads here, ``--scheduler``'s cluster or a local one."""
    from paigow.analysis.runner import Runner

    if scheduler and cluster:
        raise fail("give --scheduler or --cluster, not both")
    if cluster not in (None, "local"):
        raise fail(f"--cluster takes 'local', got {cluster!r}")
    return Runner(workers=workers, scheduler=scheduler or cluster)


def open_compiled(way: HouseWay, wheel: Wheel, workers: int = 2) -> CompiledHouseWay:
    """The compiled house way, built (with a progress bar) if missing or corrupt."""
    from paigow.analysis.compiled import HANDS, CompiledHouseWay, cache_path

    path = cache_path(way, wheel)
    if path.exists():
        return CompiledHouseWay.open(way, wheel, workers=workers)
    terminal_err_console().print(
        f"compiling the house way {way.name!r} ({wheel.value} wheel) for all 154,143,080 hands"
    )
    with progress_bar("compiling", HANDS) as advance:
        return CompiledHouseWay.open(way, wheel, progress=advance, workers=workers)


def prepare_job(
    way: HouseWay, wheel: Wheel, workers: int, scheduler: str | None, cluster: str | None
) -> tuple[TableSpec, Runner]:
    """Check where the job runs, then open (or build) the compiled table it needs."""
    runner = make_runner(workers, scheduler, cluster)
    return table_spec(way, wheel, workers), runner


def table_spec(way: HouseWay, wheel: Wheel, workers: int) -> TableSpec:
    """The compiled house way's table as the runner's jobs name it (built first if missing)."""
    from paigow.analysis.runner import TableSpec

    open_compiled(way, wheel, workers)
    return TableSpec.of(way, wheel)


def open_strategy(
    way: HouseWay,
    wheel: Wheel,
    rate: Commission,
    runner: Runner | None = None,
    build_missing: bool = False,
) -> Any:
    """The compiled strategy (built with progress bars when missing and ``build_missing``)."""
    from paigow.analysis.compiled import CacheError
    from paigow.analysis.strategy import CompiledStrategy, strategy_path

    spec = table_spec(way, wheel, runner.workers if runner else 2)
    if not strategy_path(spec, rate).exists() and build_missing:
        terminal_err_console().print(
            f"compiling the optimal strategy against the house way {way.name!r} "
            f"(commission {rate}) for all 154,143,080 hands; resumable if stopped"
        )
        add, stop = stage_bars()
        try:
            return CompiledStrategy.open(spec, rate, True, runner, add)
        finally:
            stop()
    try:
        return CompiledStrategy.open(spec, rate)
    except CacheError as exc:
        raise fail(str(exc)) from None
