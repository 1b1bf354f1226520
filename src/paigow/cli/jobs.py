"""Where an analysis job runs (``--workers``, ``--scheduler``, ``--cluster``: the options are in
:mod:`paigow.cli.common`) and the compiled tables it needs: the compiled house way and strategy
(built, with progress bars, when missing), the progress bars themselves, and the analysis
commands' error exit (:func:`paigow.cli.common.fail` on their standard-error console).

The heavy modules (numba, numpy, Dask) are imported inside the functions, so that the CLI starts
fast.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from paigow.cli import common
from paigow.cli.common import terminal_err_console
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

if TYPE_CHECKING:
    from paigow.analysis.compiled import CompiledHouseWay
    from paigow.analysis.runner import Runner, TableSpec

# The analysis commands print their errors as their notices and progress bars: on standard error
# as wide as the terminal.
fail = partial(common.fail, err=terminal_err_console)
load_house_way = partial(common.load_house_way, err=terminal_err_console)
parse_commission = partial(common.parse_commission, err=terminal_err_console)


def _columns() -> tuple[ProgressColumn, ...]:
    """A bar's columns: what it does, how far (``38,367,980/154,143,080``), the time it has
    taken and the estimate of the time left (``0:00:23 elapsed, about 0:00:41 left``)."""
    return (
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
        TimeElapsedColumn(),
        TextColumn("elapsed, about"),
        TimeRemainingColumn(),
        TextColumn("left"),
    )


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on standard error (with an estimate of the time left); yields
    ``advance(n)``."""
    progress = Progress(*_columns(), console=terminal_err_console(), transient=True)
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)


def stage_bars() -> tuple[Callable[[str, int], Callable[[int], None]], Callable[[], None]]:
    """A Rich progress display with one bar per stage; returns (add_stage, stop)."""
    progress = Progress(*_columns(), console=terminal_err_console(), transient=True)
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
    from paigow.analysis.compiled import FILE_SIZE, HANDS, CompiledHouseWay, cache_path

    path = cache_path(way, wheel)
    if path.exists():
        return CompiledHouseWay.open(way, wheel, workers=workers)
    terminal_err_console().print(
        f"compiling the house way {way.name!r} ({wheel.value} wheel) for all {HANDS:,} hands "
        f"into a {FILE_SIZE / 1e6:,.0f} MB file in {path.parent}, once for this house way and "
        "wheel (about a minute on two cores)"
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


def build_command(house_way: str, wheel: Wheel, rate: Commission, push: str = "none") -> str:
    """The ``paigow strategy build`` that builds the strategy these options need (the options
    that differ from the defaults).

    >>> build_command("foxwoods", Wheel.SECOND, Commission("0.05"))
    'paigow strategy build --house-way foxwoods'
    >>> build_command("my way.toml", Wheel.SECOND, Commission("0.05"))
    "paigow strategy build --house-way 'my way.toml'"
    >>> build_command("standard", Wheel.LOWEST, Commission("0.04"))
    'paigow strategy build --wheel lowest --commission 0.04'
    >>> build_command("standard", Wheel.SECOND, Commission("0"), "nine-high-low")
    'paigow strategy build --commission 0 --push nine-high-low'
    """
    words = ["paigow strategy build"]
    if house_way != "standard":
        words.append(f"--house-way {shlex.quote(house_way)}")
    if wheel is not Wheel.SECOND:
        words.append(f"--wheel {wheel.value}")
    if rate != Commission():
        words.append(f"--commission {rate.as_str()}")
    if push != "none":
        words.append(f"--push {push}")
    return " ".join(words)


def open_strategy(
    way: HouseWay,
    wheel: Wheel,
    rate: Commission,
    runner: Runner | None = None,
    build_missing: bool = False,
    *,
    house_way: str = "standard",
    push: str = "none",
) -> Any:
    """The compiled strategy (built with progress bars when missing and ``build_missing``)
    against the push rule ``push``; when it is missing, the error names the ``paigow strategy
    build`` (with ``house_way``, the ``--house-way`` given) that builds it."""
    from paigow.analysis.compiled import CacheError
    from paigow.analysis.strategy import CompiledStrategy, strategy_path

    spec = table_spec(way, wheel, runner.workers if runner else 2)
    path = strategy_path(spec, rate, push)
    against = f", {push} pushing" if push != "none" else ""
    if not path.exists() and build_missing:
        terminal_err_console().print(
            f"compiling the optimal strategy against the house way {way.name!r} "
            f"(commission {rate}{against}) for all 154,143,080 hands; resumable if stopped"
        )
        add, stop = stage_bars()
        try:
            return CompiledStrategy.open(spec, rate, True, runner, add, push=push)
        finally:
            stop()
    if not path.exists():
        raise fail(
            f"no compiled strategy for the house way {way.name!r} ({wheel.value} wheel, "
            f"commission {rate}{against}) at {path}: run "
            f"`{build_command(house_way, wheel, rate, push)}`"
        )
    try:
        return CompiledStrategy.open(spec, rate, push=push)
    except CacheError as exc:
        raise fail(str(exc)) from None
