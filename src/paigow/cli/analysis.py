"""The analysis commands: ``paigow analyze`` (one hand's settings), ``stats`` (hand
frequencies), ``simulate`` (Monte Carlo) and ``edge`` (the exact house edge).

The heavy modules (numba, numpy, Dask) are imported inside the commands, so that the CLI starts
fast.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from paigow.cards import parse_cards
from paigow.cli.common import (
    DEFAULT_COMMISSION,
    AnalysisJsonOpt,
    ClusterOpt,
    CommissionOpt,
    HouseWayOpt,
    PushOpt,
    SchedulerOpt,
    SimPlayer,
    VariantCommissionOpt,
    VariantOpt,
    WheelOpt,
    WorkersOpt,
    out_console,
    terminal_err_console,
    variant_rules,
)
from paigow.cli.jobs import (
    fail,
    load_house_way,
    open_strategy,
    parse_commission,
    prepare_job,
    progress_bar,
)
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, PushRule

if TYPE_CHECKING:
    from paigow.analysis.runner import Runner, TableSpec
    from paigow.bonus import PayTable
    from paigow.house_way import HouseWay


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
    commission: CommissionOpt = DEFAULT_COMMISSION,
    foul: Annotated[
        FoulRule, typer.Option("--foul", help="How foul settings are valued.")
    ] = FoulRule.LOSES,
    push: PushOpt = None,
    as_json: AnalysisJsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Exact EV of all 21 settings of a hand against the dealer's house way (with ``--push``,
    every wager but a foul pushing on the dealer hands that trigger the rule)."""
    from paigow.analysis.analyze import AnalyzeChunk, analyze_chunk

    way = load_house_way(house_way)
    rate = parse_commission(commission)
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
            raise fail(f"{line!r}: {exc}") from None
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    rule = (push or PushRule.NONE).value
    chunks = [AnalyzeChunk(spec, h, rate.as_str(), foul.value, rule) for h in hands]
    if runner.scheduler is None:
        from paigow.analysis.runner import Runner

        runner = Runner(workers=1)  # one hand at a time; each uses the threads itself
    if len(chunks) > 1:
        with progress_bar("analyzing", len(chunks)) as advance:
            results = runner.map(analyze_chunk, chunks, lambda _r: advance(1))
    else:
        results = runner.map(analyze_chunk, chunks)
    console = out_console()
    for data in results:
        if as_json:
            print(json.dumps(data))
        else:
            _analysis_rows(console, data)


# --------------------------------------------------------------------------------------- stats
def stats_command(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    as_json: AnalysisJsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Exact hand frequencies over all 154,143,080 seven-card hands."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.stats import compute_stats

    way = load_house_way(house_way)
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    with progress_bar("counting", HANDS) as advance:
        stats = compute_stats(spec, runner, advance)
    if as_json:
        print(json.dumps(stats.to_dict()))
        return
    console = out_console()
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
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    player_hand: Annotated[
        str | None,
        typer.Option(
            "--player-hand",
            metavar="CARDS",
            help="Fixed player cards (house-way setting) against random dealer hands.",
        ),
    ] = None,
    player: Annotated[
        SimPlayer,
        typer.Option(
            "--player",
            help="house-way, optimal (the compiled strategy: `paigow strategy build`), or "
            "face-up (the best setting against the dealer's setting shown face up).",
        ),
    ] = SimPlayer.HOUSE_WAY,
    bonus: Annotated[
        list[str] | None,
        typer.Option(
            "--bonus",
            metavar="PAYTABLE|FILE",
            help="Also settle this side wager on every round (repeat for each), beside its "
            "exact return.",
        ),
    ] = None,
    as_json: AnalysisJsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Monte Carlo against the dealer's house way: win/push/loss and the house edge with a 95% CI
    (with a push rule, the dealer hands that trigger it push every wager)."""
    from paigow.analysis.simulate import simulate
    from paigow.cli.bonus_commands import load_pay_table

    way = load_house_way(house_way)
    rate, rule, _ = variant_rules(variant, push, commission, err=terminal_err_console)
    fixed = None
    if player_hand:
        try:
            fixed = parse_cards(player_hand, count=7)
        except PaigowError as exc:
            raise fail(str(exc)) from None
    if player is not SimPlayer.HOUSE_WAY and fixed:
        raise fail(f"--player-hand is played by the house way; leave out --player {player.value}")
    tables = [load_pay_table(name) for name in bonus or []]
    if tables and (fixed or player is not SimPlayer.HOUSE_WAY):
        raise fail("side wagers are simulated on random hands of house-way players")
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    if player is SimPlayer.OPTIMAL:  # a clear error if not built
        open_strategy(way, wheel, rate, house_way=house_way, push=rule.value)
    with progress_bar("simulating", rounds) as advance:
        result = simulate(spec, rounds, runner, seed, rate, fixed, advance, player.value, rule)
    data = result.to_dict()
    lines = _simulate_bonus(tables, spec, rounds, runner, result.seed, way, wheel, data)
    if as_json:
        print(json.dumps(data))
        return
    lo, hi = data["ci95"]
    console = out_console()
    who = (
        f"player hand {' '.join(fixed_codes)}"
        if (fixed_codes := data["player_hand"])
        else ("optimal player (compiled strategy)" if player is SimPlayer.OPTIMAL else "house way")
    )
    if player is SimPlayer.FACE_UP and not fixed_codes:
        who = "best setting against the dealer's exposed setting (face up)"
    pushing = f", {rule.words}: every wager pushes" if rule is not PushRule.NONE else ""
    console.print(
        f"{rounds:,} rounds, {who} against the dealer's house way ({way.name}), "
        f"commission {rate}{pushing}, seed {result.seed}"
    )
    console.print(
        f"  win {data['win_rate']:.5f}   push {data['push_rate']:.5f}   loss {data['loss_rate']:.5f}"
    )
    console.print(
        f"  house edge per hand {100 * data['house_edge']:.4f}%  (95% CI {100 * lo:.4f}% .. {100 * hi:.4f}%)"
    )
    console.print(f"  house edge per resolved hand {100 * data['house_edge_resolved']:.4f}%")
    if "pushed_by_rule" in data:
        console.print(f"  pushed by the rule {data['pushed_by_rule'] / rounds:.5f}")
    console.print(
        f"  {data['rounds_per_second']:,.0f} rounds per second with {runner.workers} worker(s)"
    )
    for line in lines:
        console.print(f"  {line}")


def _simulate_bonus(
    tables: list[PayTable],
    spec: TableSpec,
    rounds: int,
    runner: Runner,
    seed: int,
    way: HouseWay,
    wheel: Wheel,
    data: dict[str, Any],
) -> list[str]:
    """Settle the side wagers on the simulation's rounds; their figures go into ``data``
    (``bonus``) and come back as lines of text, each beside the exact return."""
    if not tables:
        return []
    from paigow.analysis.bonus_return import analyze
    from paigow.analysis.bonus_sim import simulate_bonus
    from paigow.cli.bonus_commands import bonus_counts

    with progress_bar("side wagers", rounds) as advance:
        results = simulate_bonus(spec, rounds, runner, seed, tables, advance)
    counts = bonus_counts(way, wheel, runner.workers)
    exact = [analyze(t, counts).paid_return for t in tables]
    data["bonus"] = [r.to_dict(e) for r, e in zip(results, exact, strict=True)]
    return [r.line(e) for r, e in zip(results, exact, strict=True)]


# --------------------------------------------------------------------------------------- edge
def edge_command(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    player: Annotated[
        SimPlayer,
        typer.Option(
            "--player",
            help="house-way, optimal (each hand set to maximise its EV), or face-up (each hand "
            "set best against the dealer's setting shown face up).",
        ),
    ] = SimPlayer.HOUSE_WAY,
    as_json: AnalysisJsonOpt = False,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    restart: Annotated[
        bool, typer.Option("--restart", help="Discard the checkpoints of an earlier run.")
    ] = False,
) -> None:
    """The exact house edge over all 8,250,459,031,214,400 deals (resumes from checkpoints); with a
    push rule, the dealer hands that trigger it push every wager."""
    from paigow.analysis import edge as E
    from paigow.analysis.checkpoint import read_checkpoint

    way = load_house_way(house_way)
    rate, rule, _ = variant_rules(variant, push, commission, err=terminal_err_console)
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    if player is SimPlayer.FACE_UP:
        from paigow.analysis import faceup as F

        path = F.checkpoint_path(spec, E.FULL_DECK_INDICES, rule)
        if restart:
            path.unlink(missing_ok=True)
        n_chunks = len(F.chunks_for(spec, push=rule))
        done = len(read_checkpoint(path))
        computed = done < n_chunks
        if done and computed:
            terminal_err_console().print(
                f"resuming: {done} of {n_chunks} chunks already done ({path.name})"
            )
        with progress_bar("face-up edge", n_chunks - done) as advance:
            result = F.face_up_edge(
                spec, runner, rate, push=rule, checkpoint=path, progress=advance
            )
    elif player is SimPlayer.HOUSE_WAY:
        path = E.checkpoint_path(spec, "house-way", E.FULL_DECK_INDICES, rule)
        if restart:
            path.unlink(missing_ok=True)
        chunks = E.chunks_for(spec, push=rule)
        done = len(read_checkpoint(path))
        computed = done < len(chunks)
        if done and computed:
            terminal_err_console().print(
                f"resuming: {done} of {len(chunks)} chunks already done ({path.name})"
            )
        with progress_bar("exact edge", len(chunks) - done) as advance:
            result = E.house_way_edge(
                spec, runner, rate, checkpoint=path, progress=advance, push=rule
            )
    else:
        from paigow.analysis.strategy import strategy_path

        path = strategy_path(spec, rate, rule.value)
        if restart:
            import shutil

            path.unlink(missing_ok=True)
            shutil.rmtree(path.with_name(path.name + ".work"), ignore_errors=True)
        computed = not path.exists()
        strat = open_strategy(
            way, wheel, rate, runner, build_missing=True, house_way=house_way, push=rule.value
        )
        result = strat.edge()
    saved = E.save_result(spec, result)
    data = result.to_dict()
    if as_json:
        print(json.dumps(data))
        return
    console = out_console()
    pushing = f", {rule.words}: every wager pushes" if rule is not PushRule.NONE else ""
    console.print(
        f"exact edge, {data['player']} player against the dealer's house way ({way.name}), "
        f"commission {rate}{pushing}"
    )
    console.print(f"  deals {data['deals']:,}")
    for key in ("win", "push", "loss"):
        console.print(f"  {key:<5} {data[key]:>26,}  ({data[key] / data['deals']:.6f})")
    if "pushed_by_rule" in data:
        n = data["pushed_by_rule"]
        console.print(f"  of the pushes, by the rule {n:>14,}  ({n / data['deals']:.6f})")
    console.print(
        f"  house edge per hand {100 * data['house_edge']:.6f}%  (= {data['house_edge_exact']})"
    )
    if computed:
        console.print(f"  {data['seconds']:.1f} s; saved to {saved}")
    else:
        console.print(
            f"  reused the saved result in {path} (nothing computed; --restart computes it again)"
        )
