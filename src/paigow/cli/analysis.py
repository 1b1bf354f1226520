"""The analysis commands of the ``paigow`` CLI: cache, analyze, stats, simulate, report.

The heavy modules (numba, numpy, Dask, matplotlib) are imported inside the commands, so the rest
of the CLI starts quickly.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from paigow.cards import parse_cards
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule

if TYPE_CHECKING:
    from paigow.analysis.compiled import CompiledHouseWay
    from paigow.analysis.runner import Runner, TableSpec

cache_app = typer.Typer(
    help="The cache of compiled house ways (the dealer's setting of every seven-card hand).",
    no_args_is_help=True,
)

HouseWayOpt = Annotated[
    str, typer.Option("--house-way", help="Preset name (standard, foxwoods) or a .toml/.json file.")
]
WheelOpt = Annotated[Wheel, typer.Option("--wheel", help="Where A-2-3-4-5 ranks among straights.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
WorkersOpt = Annotated[
    int, typer.Option("--workers", min=1, help="Threads here, or local cluster processes.")
]
SchedulerOpt = Annotated[
    str | None, typer.Option("--scheduler", help="Run on the Dask cluster at this address.")
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="'local': run on a local Dask cluster.")
]
CommissionOpt = Annotated[str, typer.Option("--commission", help="Commission rate, at most 0.05.")]


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _out() -> Console:
    return Console(highlight=False, width=None if sys.stdout.isatty() else 120)


def _fail(message: str, code: int = 2) -> typer.Exit:
    _err().print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


def _way(name: str) -> HouseWay:
    try:
        return HouseWay.load(name)
    except PaigowError as exc:
        raise _fail(str(exc)) from None


def _commission(rate: str) -> Commission:
    try:
        return Commission(rate)
    except PaigowError as exc:
        raise _fail(str(exc)) from None


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on standard error; yields ``advance(n)``."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err(),
        transient=True,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)


def _runner(workers: int, scheduler: str | None, cluster: str | None) -> Runner:
    from paigow.analysis.runner import Runner

    if scheduler and cluster:
        raise _fail("give --scheduler or --cluster, not both")
    if cluster not in (None, "local"):
        raise _fail(f"--cluster takes 'local', got {cluster!r}")
    return Runner(workers=workers, scheduler=scheduler or cluster)


def open_compiled(way: HouseWay, wheel: Wheel, workers: int = 2) -> CompiledHouseWay:
    """The compiled house way, built (with a progress bar) if missing or corrupt."""
    from paigow.analysis.compiled import HANDS, CompiledHouseWay, cache_path

    path = cache_path(way, wheel)
    if path.exists():
        return CompiledHouseWay.open(way, wheel, workers=workers)
    _err().print(
        f"compiling the house way {way.name!r} ({wheel.value} wheel) for all 154,143,080 hands"
    )
    with progress_bar("compiling", HANDS) as advance:
        return CompiledHouseWay.open(way, wheel, progress=advance, workers=workers)


def _job(
    way: HouseWay, wheel: Wheel, workers: int, scheduler: str | None, cluster: str | None
) -> tuple[TableSpec, Runner]:
    """Check where the job runs, then open (or build) the compiled table it needs."""
    runner = _runner(workers, scheduler, cluster)
    return _spec(way, wheel, workers), runner


def _spec(way: HouseWay, wheel: Wheel, workers: int) -> TableSpec:
    from paigow.analysis.runner import TableSpec

    open_compiled(way, wheel, workers)
    return TableSpec.of(way, wheel)


# --------------------------------------------------------------------------------------- cache
@cache_app.command("build")
def cache_build(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    workers: WorkersOpt = 2,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if present.")] = False,
) -> None:
    """Compile the house way for every seven-card hand (about 30 s on two cores)."""
    from paigow.analysis.compiled import _stamp_path, cache_path

    way = _way(house_way)
    path = cache_path(way, wheel)
    if force and path.exists():
        path.unlink()
        _stamp_path(path).unlink(missing_ok=True)
    compiled = open_compiled(way, wheel, workers)
    meta = compiled.meta
    _out().print(
        f"{compiled.path}\n  house way {way.name}, wheel {wheel.value}, {meta['hands']:,} hands, "
        f"built {meta['built_at']} in {meta['build_seconds']} s"
    )


@cache_app.command("info")
def cache_info(as_json: JsonOpt = False) -> None:
    """List the compiled house ways in the cache folder."""
    from paigow.analysis.compiled import (
        CacheError,
        _file_state,
        _stamp_path,
        cache_dir,
        cached_files,
        read_header,
    )

    rows: list[dict[str, Any]] = []
    for path in cached_files():
        try:
            meta = read_header(path)
        except CacheError as exc:
            rows.append({"path": str(path), "error": str(exc)})
            continue
        stamp = _stamp_path(path)
        rows.append(
            {
                "path": str(path),
                "house_way": meta["house_way"]["name"],
                "wheel": meta["wheel"],
                "format": meta["format"],
                "bytes": path.stat().st_size,
                "built_at": meta.get("built_at"),
                "build_seconds": meta.get("build_seconds"),
                "verified": stamp.exists() and stamp.read_text() == _file_state(path),
            }
        )
    if as_json:
        print(json.dumps({"folder": str(cache_dir()), "files": rows}))
        return
    console = _out()
    console.print(f"cache folder: {cache_dir()}")
    if not rows:
        console.print("no compiled house ways (run `paigow cache build`)")
        return
    table = Table()
    for col in ("house way", "wheel", "size", "built", "seconds", "verified", "file"):
        table.add_column(col)
    for r in rows:
        if "error" in r:
            table.add_row("?", "", "", "", "", "[red]damaged[/]", r["path"])
            continue
        table.add_row(
            r["house_way"],
            r["wheel"],
            f"{r['bytes'] / 1e6:.0f} MB",
            str(r["built_at"]),
            str(r["build_seconds"]),
            "yes" if r["verified"] else "no",
            Path(r["path"]).name,
        )
    console.print(table)


@cache_app.command("verify")
def cache_verify(as_json: JsonOpt = False) -> None:
    """Check every compiled house way fully (header, size, checksum). Exit 1 if any is bad."""
    from paigow.analysis.compiled import CacheError, cached_files, verify

    results: list[dict[str, Any]] = []
    for path in cached_files():
        try:
            verify(path)
            results.append({"path": str(path), "ok": True})
        except CacheError as exc:
            results.append({"path": str(path), "ok": False, "error": str(exc)})
    if as_json:
        print(json.dumps({"files": results}))
    else:
        console = _out()
        if not results:
            console.print("no compiled house ways to verify")
        for r in results:
            console.print(
                ("[green]ok[/]  " if r["ok"] else f"[red]BAD[/] {r['error']}  ") + r["path"]
            )
    if not all(r["ok"] for r in results):
        raise typer.Exit(1)


@cache_app.command("clear")
def cache_clear() -> None:
    """Delete every compiled house way in the cache folder, with the optimal player's structures
    and the exact-edge checkpoints and results."""
    import shutil

    from paigow.analysis.compiled import _stamp_path, cache_dir, cached_files

    files = cached_files()
    for path in files:
        path.unlink()
        _stamp_path(path).unlink(missing_ok=True)
        path.with_name(path.name + ".lock").unlink(missing_ok=True)
    others = 0
    folder = cache_dir()
    if folder.exists():
        for extra in [*folder.glob("edge-*.json*"), *folder.glob("optimal-*")]:
            if extra.is_dir():
                shutil.rmtree(extra)
            else:
                extra.unlink()
            others += 1
    _out().print(f"removed {len(files)} compiled house way(s) and {others} other file(s)")


# --------------------------------------------------------------------------------------- analyze
def _analysis_rows(console: Console, data: dict[str, Any]) -> None:
    table = Table(
        title=f"{' '.join(data['cards'])}: all 21 settings against {data['dealer_hands']:,} dealer hands "
        f"(commission {Commission(data['commission'])})",
        title_justify="left",
    )
    for col in ("#", "high", "low", "win", "push", "loss", "EV", ""):
        table.add_column(col, justify="right" if col in ("win", "push", "loss", "EV") else "left")
    for i, s in enumerate(data["settings"]):
        marks = []
        if i == data["house_way"]:
            marks.append(f"house way ({data['house_way_rule']})")
        if i == data["optimal"]:
            marks.append("[bold green]optimal[/]")
        if s["foul"]:
            marks.append("[red]FOUL[/]")
        table.add_row(
            str(i + 1),
            " ".join(s["high"]),
            " ".join(s["low"]),
            f"{s['win']:,}",
            f"{s['push']:,}",
            f"{s['loss']:,}",
            f"{s['ev']:+.6f}",
            ", ".join(marks),
        )
    console.print(table)
    console.print(
        f"EV given up by playing the house way: {data['ev_given_up']:.6f} per unit wagered"
    )


def analyze_command(
    cards: Annotated[
        list[str], typer.Argument(help="Seven cards, or - for one hand per line on standard input.")
    ],
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    foul: Annotated[
        FoulRule, typer.Option("--foul", help="How foul settings are valued.")
    ] = FoulRule.LOSES,
    as_json: JsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Exact EV of all 21 settings of a hand against the dealer's house way."""
    from paigow.analysis.analyze import AnalyzeChunk, analyze_chunk

    way = _way(house_way)
    rate = _commission(commission)
    lines = (
        [line.strip() for line in sys.stdin if line.strip()]
        if cards == ["-"]
        else [" ".join(cards)]
    )
    hands = []
    for line in lines:
        try:
            hands.append(tuple(c.code for c in parse_cards(line, count=7)))
        except PaigowError as exc:
            raise _fail(f"{line!r}: {exc}") from None
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    chunks = [AnalyzeChunk(spec, h, rate.as_str(), foul.value) for h in hands]
    if runner.scheduler is None:
        from paigow.analysis.runner import Runner

        runner = Runner(workers=1)  # one hand at a time; each uses the threads itself
    if len(chunks) > 1:
        with progress_bar("analyzing", len(chunks)) as advance:
            results = runner.map(analyze_chunk, chunks, lambda _r: advance(1))
    else:
        results = runner.map(analyze_chunk, chunks)
    console = _out()
    for data in results:
        if as_json:
            print(json.dumps(data))
        else:
            _analysis_rows(console, data)


# --------------------------------------------------------------------------------------- stats
def stats_command(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    as_json: JsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Exact hand frequencies over all 154,143,080 seven-card hands."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.stats import compute_stats

    way = _way(house_way)
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    with progress_bar("counting", HANDS) as advance:
        stats = compute_stats(spec, runner, advance)
    if as_json:
        print(json.dumps(stats.to_dict()))
        return
    console = _out()
    table = Table(
        title=f"All {stats.total:,} seven-card hands ({way.name} house way)", title_justify="left"
    )
    for col in ("hand", "best five cards", "%", "dealer's high hand", "%"):
        table.add_column(col, justify="left" if col == "hand" else "right")
    for name, n in stats.categories.items():
        d = stats.dealer_high[name]
        table.add_row(
            name, f"{n:,}", f"{100 * n / stats.total:.4f}", f"{d:,}", f"{100 * d / stats.total:.4f}"
        )
    console.print(table)
    low = Table(title="Dealer's low hand (the 15 highest)", title_justify="left")
    for col in ("low hand", "count", "%"):
        low.add_column(col, justify="left" if col == "low hand" else "right")
    for name, n in list(stats.dealer_low.items())[:15]:
        low.add_row(name, f"{n:,}", f"{100 * n / stats.total:.4f}")
    console.print(low)


# --------------------------------------------------------------------------------------- simulate
def simulate_command(
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Number of rounds.")] = 10_000_000,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed (reproducible for a given seed).")
    ] = None,
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    player_hand: Annotated[
        str | None,
        typer.Option(
            "--player-hand",
            help="Fixed player cards (house-way setting) against random dealer hands.",
        ),
    ] = None,
    player: Annotated[
        str,
        typer.Option(
            "--player",
            help="house-way, or optimal (the compiled strategy: `paigow strategy build`).",
        ),
    ] = "house-way",
    as_json: JsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Monte Carlo against the dealer's house way: win/push/loss and the house edge with a 95% CI."""
    from paigow.analysis.simulate import simulate

    way = _way(house_way)
    rate = _commission(commission)
    fixed = None
    if player_hand:
        try:
            fixed = parse_cards(player_hand, count=7)
        except PaigowError as exc:
            raise _fail(str(exc)) from None
    if player not in ("house-way", "optimal"):
        raise _fail(f"--player takes house-way or optimal, got {player!r}")
    if player == "optimal" and fixed:
        raise _fail("--player-hand is played by the house way; leave out --player optimal")
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    if player == "optimal":
        open_strategy(way, wheel, rate)  # a clear error if it has not been built
    with progress_bar("simulating", rounds) as advance:
        result = simulate(spec, rounds, runner, seed, rate, fixed, advance, player)
    data = result.to_dict()
    if as_json:
        print(json.dumps(data))
        return
    lo, hi = data["ci95"]
    console = _out()
    who = (
        f"player hand {' '.join(fixed_codes)}"
        if (fixed_codes := data["player_hand"])
        else ("optimal player (compiled strategy)" if player == "optimal" else "house way")
    )
    console.print(
        f"{rounds:,} rounds, {who} against the dealer's house way ({way.name}), "
        f"commission {rate}, seed {result.seed}"
    )
    console.print(
        f"  win {data['win_rate']:.5f}   push {data['push_rate']:.5f}   loss {data['loss_rate']:.5f}"
    )
    console.print(
        f"  house edge per hand {100 * data['house_edge']:.4f}%  (95% CI {100 * lo:.4f}% .. {100 * hi:.4f}%)"
    )
    console.print(f"  house edge per resolved hand {100 * data['house_edge_resolved']:.4f}%")
    console.print(
        f"  {data['rounds_per_second']:,.0f} rounds per second with {runner.workers} worker(s)"
    )


# --------------------------------------------------------------------------------------- report
def report_command(
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write.")],
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Rounds to simulate for the edge.")
    ] = 20_000_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation.")] = 1,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """A par sheet for the ruleset and house way, as one self-contained HTML file."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.report import exact_edges, render, write_report
    from paigow.analysis.simulate import simulate
    from paigow.analysis.stats import compute_stats
    from paigow.ruleset import Ruleset

    way = _way(house_way)
    rate = _commission(commission)
    ruleset = Ruleset(commission=rate, wheel=wheel, house_way=way.name)
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    with progress_bar("counting", HANDS) as advance:
        stats = compute_stats(spec, runner, advance)
    with progress_bar("simulating", rounds) as advance:
        sim = simulate(spec, rounds, runner, seed, rate, None, advance)
    costs = None
    try:
        from paigow.analysis.strategy import CompiledStrategy

        costs = CompiledStrategy.open(spec, rate).rule_costs()
    except PaigowError:
        _err().print("no compiled strategy: the par sheet leaves out the cost of the house way")
    write_report(out, render(ruleset, way, stats, sim, exact_edges(way, ruleset), costs))
    _out().print(f"wrote {out}")


# --------------------------------------------------------------------------------------- edge
def edge_command(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    player: Annotated[
        str,
        typer.Option("--player", help="house-way, or optimal (each hand set to maximise its EV)."),
    ] = "house-way",
    as_json: JsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    restart: Annotated[
        bool, typer.Option("--restart", help="Discard the checkpoints of an earlier run.")
    ] = False,
) -> None:
    """The exact house edge over all 8,250,459,031,214,400 deals (resumes from checkpoints)."""
    from paigow.analysis import edge as E
    from paigow.analysis.checkpoint import read_checkpoint

    way = _way(house_way)
    rate = _commission(commission)
    if player not in ("house-way", "optimal"):
        raise _fail(f"--player takes house-way or optimal, got {player!r}")
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    if player == "house-way":
        path = E.checkpoint_path(spec, "house-way", E.FULL_DECK_INDICES)
        if restart:
            path.unlink(missing_ok=True)
        chunks = E.chunks_for(spec)
        done = len(read_checkpoint(path))
        if done:
            _err().print(f"resuming: {done} of {len(chunks)} chunks already done ({path.name})")
        with progress_bar("exact edge", len(chunks) - done) as advance:
            result = E.house_way_edge(spec, runner, rate, checkpoint=path, progress=advance)
    else:
        from paigow.analysis.strategy import strategy_path

        if restart:
            import shutil

            path = strategy_path(spec, rate)
            path.unlink(missing_ok=True)
            shutil.rmtree(path.with_name(path.name + ".work"), ignore_errors=True)
        result = open_strategy(way, wheel, rate, runner, build_missing=True).edge()
    saved = E.save_result(spec, result)
    data = result.to_dict()
    if as_json:
        print(json.dumps(data))
        return
    console = _out()
    console.print(
        f"exact edge, {data['player']} player against the dealer's house way ({way.name}), commission {rate}"
    )
    console.print(f"  deals {data['deals']:,}")
    for key in ("win", "push", "loss"):
        console.print(f"  {key:<5} {data[key]:>26,}  ({data[key] / data['deals']:.6f})")
    console.print(
        f"  house edge per hand {100 * data['house_edge']:.6f}%  (= {data['house_edge_exact']})"
    )
    console.print(f"  {data['seconds']:.1f} s; saved to {saved}")


def register(app: typer.Typer) -> None:
    """Add the analysis commands to the main CLI."""
    app.add_typer(cache_app, name="cache")
    app.command("analyze")(analyze_command)
    app.command("stats")(stats_command)
    app.command("simulate")(simulate_command)
    app.command("report")(report_command)
    app.command("edge")(edge_command)
    app.add_typer(strategy_app, name="strategy")


# --------------------------------------------------------------------------------------- strategy
strategy_app = typer.Typer(
    help="The compiled strategy: the optimal setting of every seven-card hand.",
    no_args_is_help=True,
)


def _stage_bars() -> tuple[Callable[[str, int], Callable[[int], None]], Callable[[], None]]:
    """A Rich progress display with one bar per stage; returns (add_stage, stop)."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err(),
        transient=True,
    )
    progress.start()
    names = {"classes": "optimal settings (chunks)", "hands": "per-hand table"}

    def add(stage: str, total: int) -> Callable[[int], None]:
        task = progress.add_task(names.get(stage, stage), total=total)
        return lambda n: progress.advance(task, n)

    return add, progress.stop


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

    spec = _spec(way, wheel, runner.workers if runner else 2)
    if not strategy_path(spec, rate).exists() and build_missing:
        _err().print(
            f"compiling the optimal strategy against the house way {way.name!r} "
            f"(commission {rate}) for all 154,143,080 hands; resumable if stopped"
        )
        add, stop = _stage_bars()
        try:
            return CompiledStrategy.open(spec, rate, True, runner, add)
        finally:
            stop()
    try:
        return CompiledStrategy.open(spec, rate)
    except CacheError as exc:
        raise _fail(str(exc)) from None


@strategy_app.command("build")
def strategy_build(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Compute the optimal setting of every hand and the exact optimal edge (resumable)."""
    way = _way(house_way)
    rate = _commission(commission)
    runner = _runner(workers, scheduler, cluster)
    from paigow.analysis.edge import save_result

    strat = open_strategy(way, wheel, rate, runner, build_missing=True)
    meta = strat.meta
    save_result(_spec(way, wheel, workers), strat.edge())
    edge = strat.edge().to_dict()
    if as_json:
        print(
            json.dumps(
                {
                    "path": str(strat.path),
                    **{
                        k: meta[k]
                        for k in (
                            "classes",
                            "hands",
                            "built_at",
                            "build_seconds",
                            "compute_seconds",
                        )
                    },
                    "edge": edge,
                }
            )
        )
        return
    _out().print(
        f"{strat.path}\n  house way {way.name}, wheel {wheel.value}, commission {rate}: "
        f"{meta['classes']:,} classes, {meta['hands']:,} hands, built {meta['built_at']} "
        f"in {meta['build_seconds']} s\n  optimal player's house edge "
        f"{100 * edge['house_edge']:.6f}% (= {edge['house_edge_exact']})"
    )


@strategy_app.command("explain")
def strategy_explain(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    as_json: JsonOpt = False,
) -> None:
    """What the house way costs against the optimal strategy, rule by rule."""
    way = _way(house_way)
    rate = _commission(commission)
    strat = open_strategy(way, wheel, rate)
    costs = strat.rule_costs()
    edge = strat.edge()
    if as_json:
        print(json.dumps({"house_way": way.name, "commission": rate.as_str(),
                          "optimal_edge": edge.to_dict(),
                          "rules": [c.to_dict() for c in costs]}))  # fmt: skip
        return
    from paigow.analysis.compiled import HANDS

    table = Table(
        title=f"The cost of the house way ({way.name}, commission {rate}) against the optimal "
        f"setting, over all {HANDS:,} hands",
        title_justify="left",
    )
    for col in ("rule", "hands", "optimal differs", "%", "EV given up", "per hand set"):
        table.add_column(col, justify="left" if col == "rule" else "right")
    for c in costs:
        if not c.hands:
            continue
        table.add_row(
            c.rule, f"{c.hands:,}", f"{c.differ:,}", f"{100 * c.differ / c.hands:.2f}",
            f"{float(c.given_up):,.1f}", f"{float(c.per_hand):.6f}",
        )  # fmt: skip
    total = sum(c.given_up for c in costs)
    table.add_row(
        "all", f"{HANDS:,}", f"{sum(c.differ for c in costs):,}",
        f"{100 * sum(c.differ for c in costs) / HANDS:.2f}", f"{float(total):,.1f}",
        f"{float(total) / HANDS:.6f}",
    )  # fmt: skip
    console = _out()
    console.print(table)
    console.print(
        f"optimal player's house edge {100 * float(edge.house_edge):.6f}% "
        f"(= {edge.house_edge}); EV given up by the house way, per hand dealt, "
        f"{float(total) / HANDS:.6f}"
    )


def strategy_hands(
    lines: list[str], way: HouseWay, wheel: Wheel, commission: str, as_json: bool
) -> int:
    """``paigow hand --strategy optimal``: the compiled strategy's answer for each line; returns
    the number of lines that failed to parse."""
    import numpy as np

    from paigow.cards import FULL_DECK

    rate = _commission(commission)
    strat = open_strategy(way, wheel, rate)
    codes = {c.code.lower(): c.index for c in FULL_DECK}
    good: list[int] = []
    idx: list[list[int]] = []
    errors: dict[int, str] = {}
    failures = 0
    for n, line in enumerate(lines):
        parts = line.replace(",", " ").lower().split()
        try:
            row = [codes[p] for p in parts]
            if len(row) != 7 or len(set(row)) != 7:
                raise KeyError
        except KeyError:
            try:  # the core's parser says what is wrong
                parse_cards(line, count=7)
                msg = "not seven distinct cards"
            except PaigowError as exc:
                msg = str(exc)
            failures += 1
            errors[n] = json.dumps({"input": line, "error": msg})
            if not as_json:
                _err().print(f"[bold red]error:[/] {line!r}: {msg}")
            continue
        good.append(n)
        idx.append(row)
    if not idx:
        if as_json and errors:
            sys.stdout.write("\n".join(errors.values()) + "\n")
        return failures
    hands = np.array(idx, dtype=np.int64)
    rows = strat.lookup_indices(hands)
    srt = np.sort(hands, axis=1)
    names = [c.code for c in FULL_DECK]
    low_i = np.array([i for i, _ in _low_positions()])
    low_j = np.array([j for _, j in _low_positions()])
    pay = float(1 - rate.rate)
    from paigow.analysis.strategy import DEALER_HANDS

    ev = (rows[:, 3] * pay - rows[:, 4]) / DEALER_HANDS
    hw_ev = (rows[:, 5] * pay - rows[:, 6]) / DEALER_HANDS
    from paigow.house_way import RULE_IDS

    out = []
    for k in range(len(idx)):
        h = srt[k]
        q, hq = rows[k, 0], rows[k, 1]
        lo = f"{names[h[low_i[q]]]} {names[h[low_j[q]]]}"
        hi = " ".join(names[h[m]] for m in range(7) if m != low_i[q] and m != low_j[q])
        hlo = f"{names[h[low_i[hq]]]} {names[h[low_j[hq]]]}"
        hhi = " ".join(names[h[m]] for m in range(7) if m != low_i[hq] and m != low_j[hq])
        if as_json:
            out.append(
                f'{{"cards": "{lines[good[k]]}", "high": "{hi}", "low": "{lo}", '
                f'"ev": {ev[k]:.9f}, "house_way_high": "{hhi}", "house_way_low": "{hlo}", '
                f'"house_way_rule": "{RULE_IDS[rows[k, 2]]}", "house_way_ev": {hw_ev[k]:.9f}, '
                f'"ev_given_up": {ev[k] - hw_ev[k]:.9f}}}'
            )
        else:
            out.append(
                f"{lines[good[k]]}  optimal {hi} / {lo}  EV {ev[k]:+.6f}  house way {hhi} / "
                f"{hlo} ({RULE_IDS[rows[k, 2]]})  gives up {ev[k] - hw_ev[k]:.6f}"
            )
    if as_json and errors:  # each answer or error in the order of the input
        merged = dict(zip(good, out, strict=True)) | errors
        out = [merged[n] for n in sorted(merged)]
    sys.stdout.write("\n".join(out) + "\n")
    return failures


def _low_positions() -> tuple[tuple[int, int], ...]:
    from paigow.setting import LOW_POSITIONS

    return LOW_POSITIONS
