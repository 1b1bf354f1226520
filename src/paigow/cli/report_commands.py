"""``paigow report``: the par sheet (the default: ``paigow report --out FILE ...``, also
``paigow report sheet``; ``--bonus PAYTABLE|FILE`` adds each side wager offered with its exact
return, ``--ruleset FILE`` takes a table's ruleset, its side wagers offered included) and
``paigow report floor``, the floor's report by gaming day, and ``paigow report house-ways``, the
house ways side by side (their exact edges and where they differ).

``paigow report floor --database URL --from DATE --to DATE --format csv|json|html [--out FILE]``
writes the floor report, and exits with status 1, naming every difference, when the round records
and the ledger disagree.
"""

from __future__ import annotations

import datetime as dt
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from paigow.cli.bonus_commands import bonus_counts, load_pay_table
from paigow.cli.common import (
    ClusterOpt,
    HouseWayOpt,
    OutOpt,
    PushOpt,
    SchedulerOpt,
    VariantCommissionOpt,
    VariantOpt,
    WheelOpt,
    WorkersOpt,
    fail,
    out_console,
    parse_commission,
    terminal_err_console,
    variant_rules,
)
from paigow.cli.jobs import (
    load_house_way,
    prepare_job,
    progress_bar,
)
from paigow.errors import PaigowError
from paigow.ranking import Wheel

if TYPE_CHECKING:
    from paigow.bonus import PayTable
    from paigow.ruleset import Ruleset, SideWagerOffer


class ReportGroup(TyperGroup):
    """``report ARGS`` runs ``report sheet ARGS`` unless ARGS start with a subcommand's name;
    ``report --help`` lists the commands (``report sheet --help``: the sheet's options)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["sheet", *args]
        return super().parse_args(ctx, args)


class ReportFormat(StrEnum):
    """``report floor --format``."""

    CSV = "csv"
    JSON = "json"
    HTML = "html"


report_app = typer.Typer(
    cls=ReportGroup,
    help="Reports: the par sheet (paigow report --out FILE ...), the floor's report by gaming "
    "day (paigow report floor ...) or the house ways side by side (paigow report house-ways). "
    "Each command's options: paigow report sheet --help, and so on.",
)


@report_app.command("sheet", help="A par sheet for the ruleset and house way (the default).")
def sheet_command(
    out: OutOpt,
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Rounds to simulate for the edge.")
    ] = 20_000_000,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the simulation.")] = 1,
    bonus: Annotated[
        list[str] | None,
        typer.Option(
            "--bonus",
            metavar="PAYTABLE|FILE",
            help="A side wager the table offers (repeat for each): its exact return.",
        ),
    ] = None,
    ruleset_file: Annotated[
        Path | None,
        typer.Option(
            "--ruleset",
            metavar="FILE",
            help="A table's ruleset (JSON, as the service posts it): its commission, wheel, "
            "house way and side wagers offered (each with its limits); options given beside it "
            "must agree with it.",
        ),
    ] = None,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """A par sheet for the ruleset and house way, as one self-contained HTML file."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.par_sheet import exact_edges, render, write_report
    from paigow.analysis.simulate import simulate
    from paigow.analysis.stats import compute_stats
    from paigow.ruleset import Ruleset

    if ruleset_file is not None:
        if variant is not None or push is not None:
            raise fail(
                "--ruleset names the table's variant already: leave out --variant and --push"
            )
        ruleset = _read_ruleset(ruleset_file, house_way, wheel, commission)
        way, wheel, rate = load_house_way(ruleset.house_way), ruleset.wheel, ruleset.commission
        rule = ruleset.push
    else:
        way = load_house_way(house_way)
        rate, rule, face_up = variant_rules(variant, push, commission, err=terminal_err_console)
        ruleset = Ruleset(
            commission=rate, wheel=wheel, house_way=way.name, push=rule, face_up=face_up
        )
    err = terminal_err_console()
    offers: list[tuple[PayTable, str | None]] = [(o.table, _limits(o)) for o in ruleset.side_wagers]
    offers += [(load_pay_table(name), None) for name in bonus or []]
    spec, runner = prepare_job(way, wheel, workers, scheduler, cluster)
    err.print(f"par sheet 1/3: the frequencies of all {HANDS:,} hands")
    with progress_bar("counting", HANDS) as advance:
        stats = compute_stats(spec, runner, advance)
    err.print(f"par sheet 2/3: the edge by simulation, {rounds:,} rounds")
    with progress_bar("simulating", rounds) as advance:
        sim = simulate(spec, rounds, runner, seed, rate, None, advance, "house-way", rule)
    err.print("par sheet 3/3: the exact edges and the cost of the house way; the charts")
    with err.status(f"writing {out}"):
        costs = None
        try:
            from paigow.analysis.strategy import CompiledStrategy

            if rule.value == "none":  # a compiled strategy knows no push rule
                costs = CompiledStrategy.open(spec, rate).rule_costs()
        except PaigowError:
            err.print("no compiled strategy: the par sheet leaves out the cost of the house way")
        analyses = []
        if offers:
            from paigow.analysis.bonus_return import analyze

            counts = bonus_counts(way, wheel, workers)
            analyses = [analyze(t, counts) for t, _ in offers]
        edges = exact_edges(way, ruleset)
        notes = [note for _, note in offers]
        write_report(out, render(ruleset, way, stats, sim, edges, costs, analyses, notes))
    out_console().print(f"wrote {out}")


@report_app.command("house-ways")
def house_ways_command(
    house_way: Annotated[
        list[str] | None,
        typer.Option(
            "--house-way",
            metavar="NAME|FILE",
            help="A house way to show (repeat for each; default: every preset).",
        ),
    ] = None,
    base: Annotated[
        str,
        typer.Option(
            "--base", metavar="NAME|FILE", help="The house way the others are set beside."
        ),
    ] = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: Annotated[
        str, typer.Option("--commission", metavar="RATE", help="Commission rate, at most 0.05.")
    ] = "0.05",
    no_worth: Annotated[
        bool,
        typer.Option(
            "--no-worth",
            help="Leave out what each difference is worth to the house (an exact edge each).",
        ),
    ] = False,
    workers: WorkersOpt = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """House ways side by side: each one's exact house edge and push rate (the house-way player
    against the dealer), the optimal player's edge where its strategy is compiled, and the rule
    ids that set hands otherwise than the base: how many, and what each difference alone is
    worth to the house (the base's exact edge with only those hands changed, less its own)."""
    import json

    from rich.table import Table

    from paigow.analysis.house_ways import compare
    from paigow.analysis.runner import Runner
    from paigow.cli.jobs import build_command, open_compiled
    from paigow.house_way import BUILTIN_PRESETS

    rate = parse_commission(commission)
    named = list(house_way or BUILTIN_PRESETS)
    ways = [load_house_way(name) for name in named]
    given = dict(zip(ways, named, strict=True))  # each way as the command line named it
    base_way = load_house_way(base)
    err = terminal_err_console()
    for way in dict.fromkeys([base_way, *ways]):
        open_compiled(way, wheel, workers)
    with err.status("counting the exact edges") as status:
        figures = compare(
            ways, base_way, wheel, rate, Runner(workers=workers),
            progress=lambda what: status.update(f"counting the exact edges: {what}"),
            worth=not no_worth,
        )  # fmt: skip
    if as_json:
        print(json.dumps({"base": base_way.name, "commission": rate.as_str(),
                          "wheel": wheel.value, "house_ways": [f.to_dict() for f in figures]}))  # fmt: skip
        return
    console = out_console()
    table = Table("house way", "house edge", "push rate", "optimal edge", "cost to the player",
                  f"hands set otherwise than {base_way.name}", title="The house ways")  # fmt: skip
    for f in figures:
        table.add_row(
            f.way.name,
            f"{float(f.edge.house_edge):.6%}",
            f"{float(f.push_rate):.4%}",
            "-" if f.optimal is None else f"{float(f.optimal.house_edge):.6%}",
            "-" if f.cost is None else f"{float(f.cost):.4%}",
            f"{f.differ:,}",
        )
    console.print(table)
    for f in figures:
        if not f.rules:
            continue
        rows = Table("rule id", "hands it sets", "set otherwise", "worth to the house",
                     title=f"{f.way.name}: where it differs from {base_way.name}")  # fmt: skip
        for r in sorted(f.rules, key=lambda r: -r.differ):
            worth = "-" if r.worth is None else f"{float(r.worth):+.4%}"
            rows.add_row(r.rule, f"{r.hands:,}", f"{r.differ:,}", worth)
        console.print(rows)
    missing = [f.way for f in figures if f.optimal is None]
    if missing:
        console.print(
            "no optimal edge (its strategy is not compiled) for "
            + ", ".join(w.name for w in missing)
            + ": "
            + "; ".join(build_command(given.get(w, w.name), wheel, rate) for w in missing),
            highlight=False,
            soft_wrap=True,
        )


def _read_ruleset(path: Path, house_way: str, wheel: Wheel, commission: str | None) -> Ruleset:
    """The ruleset in the JSON file ``path``; an option given beside it (one not at its
    default) must say the same, or exit with status 2 saying which."""
    import json

    from paigow.ruleset import Ruleset

    try:
        ruleset = Ruleset.from_dict(json.loads(path.read_text("utf-8")))
    except OSError as exc:
        raise fail(f"--ruleset {path}: {exc.strerror}") from None
    except ValueError as exc:  # bad JSON
        raise fail(f"--ruleset {path}: not JSON ({exc})") from None
    except (PaigowError, TypeError) as exc:
        raise fail(f"--ruleset {path}: {exc}") from None
    given: list[tuple[str, str, str | None, str]] = [
        ("--house-way", house_way, "standard", ruleset.house_way),
        ("--wheel", wheel.value, Wheel.SECOND.value, ruleset.wheel.value),
    ]
    if commission is not None:
        given.append(
            ("--commission", str(parse_commission(commission)), None, str(ruleset.commission))
        )
    for option, value, default, theirs in given:
        if value != default and value != theirs:
            raise fail(f"{option} {value} disagrees with the ruleset in {path} ({theirs})")
    return ruleset


def _limits(offer: SideWagerOffer) -> str:
    """How the table offers a side wager: its name there, its limits and a meter's bank."""
    from paigow.money import format_money

    text = f"Offered as {offer.name}: {format_money(offer.min_wager)}"
    if offer.max_wager != offer.min_wager:
        text += f" to {format_money(offer.max_wager)}"
    return text + (f"; meter shared by bank {offer.bank}" if offer.bank is not None else "")


@report_app.command("floor")
def floor_command(
    database: Annotated[
        str, typer.Option("--database", metavar="URL", help="sqlite:///FILE or postgresql://...")
    ],
    first: Annotated[
        dt.datetime,
        typer.Option(
            "--from", metavar="YYYY-MM-DD", formats=["%Y-%m-%d"], help="First gaming day."
        ),
    ],
    last: Annotated[
        dt.datetime,
        typer.Option("--to", metavar="YYYY-MM-DD", formats=["%Y-%m-%d"], help="Last gaming day."),
    ],
    fmt: Annotated[
        ReportFormat, typer.Option("--format", help="csv, json or html.", case_sensitive=False)
    ] = ReportFormat.CSV,
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="Write here (default: stdout).")
    ] = None,
) -> None:
    """The floor report by gaming day (PAIGOW_GAMING_DAY_START, default 06:00, in
    PAIGOW_GAMING_DAY_TZ, default UTC), per table and in total, reconciled to the ledger to the
    cent; exit status 1 if it does not reconcile."""
    from paigow.service.books.gaming_day import GamingDay
    from paigow.service.config import ServiceConfig
    from paigow.service.floor.day_report import ReportMismatch, floor_report, render
    from paigow.service.store.db import Database

    try:
        config = ServiceConfig.from_env(database)
        db = Database.of(config)
        try:
            with db.read() as s:
                if db.is_postgres:
                    s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
                report = floor_report(s, first.date(), last.date(), GamingDay.of(config))
        finally:
            db.dispose()
    except ReportMismatch as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    text = render(report, fmt.value)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text)
        typer.echo(f"wrote {out} (reconciled to the ledger to the cent)", err=True)
