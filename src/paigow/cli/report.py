"""``paigow report``: the par sheet (the default: ``paigow report --out FILE ...``, also
``paigow report sheet``; ``--bonus PAYTABLE|FILE`` adds each side wager offered with its exact
return) and ``paigow report floor``, the floor's report by gaming day.

``paigow report floor --database URL --from DATE --to DATE --format csv|json|html [--out FILE]``
writes the floor report, and exits with status 1, naming every difference, when the round records
and the ledger disagree.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from paigow.cli.bonus import bonus_counts, load_pay_table
from paigow.cli.common import (
    CommissionOpt,
    HouseWayOpt,
    WheelOpt,
    out_console,
    terminal_err_console,
)
from paigow.cli.jobs import (
    ClusterOpt,
    SchedulerOpt,
    WorkersOpt,
    load_house_way,
    parse_commission,
    prepare_job,
    progress_bar,
)
from paigow.errors import PaigowError
from paigow.ranking import Wheel


class ReportGroup(TyperGroup):
    """``report ARGS`` runs ``report sheet ARGS`` unless ARGS start with a subcommand's name."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["sheet", *args]
        return super().parse_args(ctx, args)


report_app = typer.Typer(
    cls=ReportGroup,
    help="Reports: the par sheet (paigow report --out FILE ...) or the floor's report "
    "by gaming day (paigow report floor ...).",
)


@report_app.command("sheet", help="A par sheet for the ruleset and house way (the default).")
def sheet_command(
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write.")],
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = "0.05",
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Rounds to simulate for the edge.")
    ] = 20_000_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation.")] = 1,
    bonus: Annotated[
        list[str] | None,
        typer.Option(
            "--bonus",
            metavar="PAYTABLE|FILE",
            help="A side wager the table offers (repeat for each): its exact return.",
        ),
    ] = None,
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

    way = load_house_way(house_way)
    rate = parse_commission(commission)
    ruleset = Ruleset(commission=rate, wheel=wheel, house_way=way.name)
    tables = [load_pay_table(name) for name in bonus or []]
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    with progress_bar("counting", HANDS) as advance:
        stats = compute_stats(spec, runner, advance)
    with progress_bar("simulating", rounds) as advance:
        sim = simulate(spec, rounds, runner, seed, rate, None, advance)
    costs = None
    try:
        from paigow.analysis.strategy import CompiledStrategy

        costs = CompiledStrategy.open(spec, rate).rule_costs()
    except PaigowError:
        terminal_err_console().print(
            "no compiled strategy: the par sheet leaves out the cost of the house way"
        )
    analyses = []
    if tables:
        from paigow.analysis.bonus_return import analyze

        counts = bonus_counts(way, wheel, workers)
        analyses = [analyze(t, counts) for t in tables]
    edges = exact_edges(way, ruleset)
    write_report(out, render(ruleset, way, stats, sim, edges, costs, analyses))
    out_console().print(f"wrote {out}")


@report_app.command("floor")
def floor_command(
    database: Annotated[str, typer.Option("--database", help="sqlite:///FILE or postgresql://...")],
    first: Annotated[
        dt.datetime, typer.Option("--from", formats=["%Y-%m-%d"], help="First gaming day.")
    ],
    last: Annotated[
        dt.datetime, typer.Option("--to", formats=["%Y-%m-%d"], help="Last gaming day.")
    ],
    fmt: Annotated[
        str, typer.Option("--format", help="csv, json or html.", case_sensitive=False)
    ] = "csv",
    out: Annotated[Path | None, typer.Option("--out", help="Write here (default: stdout).")] = None,
) -> None:
    """The floor report by gaming day (PAIGOW_GAMING_DAY_START, default 06:00, in
    PAIGOW_GAMING_DAY_TZ, default UTC), per table and in total, reconciled to the ledger to the
    cent; exit status 1 if it does not reconcile."""
    from paigow.service.floor.report import ReportMismatch, floor_report, render
    from paigow.service.store.db import Database

    fmt = fmt.lower()
    if fmt not in ("csv", "json", "html"):
        typer.echo(f"error: --format takes csv, json or html, not {fmt!r}", err=True)
        raise typer.Exit(2)
    try:
        db = Database(database)
        try:
            with db.read() as s:
                if db.is_postgres:
                    s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
                report = floor_report(s, first.date(), last.date())
        finally:
            db.dispose()
    except ReportMismatch as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    text = render(report, fmt)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text)
        typer.echo(f"wrote {out} (reconciled to the ledger to the cent)", err=True)
