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
    as_json: JsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Monte Carlo: house way against house way, win/push/loss and the house edge with a 95% CI."""
    from paigow.analysis.simulate import simulate

    way = _way(house_way)
    rate = _commission(commission)
    fixed = None
    if player_hand:
        try:
            fixed = parse_cards(player_hand, count=7)
        except PaigowError as exc:
            raise _fail(str(exc)) from None
    spec, runner = _job(way, wheel, workers, scheduler, cluster)
    with progress_bar("simulating", rounds) as advance:
        result = simulate(spec, rounds, runner, seed, rate, fixed, advance)
    data = result.to_dict()
    if as_json:
        print(json.dumps(data))
        return
    lo, hi = data["ci95"]
    console = _out()
    who = (
        f"player hand {' '.join(fixed_codes)}"
        if (fixed_codes := data["player_hand"])
        else "house way"
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
    write_report(out, render(ruleset, way, stats, sim, exact_edges(way, ruleset)))
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
        done = len(E._read_checkpoint(path))
        if done:
            _err().print(f"resuming: {done} of {len(chunks)} chunks already done ({path.name})")
        with progress_bar("exact edge", len(chunks) - done) as advance:
            result = E.house_way_edge(spec, runner, rate, checkpoint=path, progress=advance)
    else:
        import paigow.analysis.optimal as O

        path = O.checkpoint_path(spec, rate)
        if restart:
            path.unlink(missing_ok=True)
        result = O.optimal_edge(spec, runner, rate, checkpoint=path, progress_bar=progress_bar)
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
