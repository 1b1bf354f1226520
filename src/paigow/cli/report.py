"""``paigow report floor``: the floor's report by gaming day, beside the par sheet.

``paigow report`` stays the par sheet (``paigow report --out FILE ...``, now also ``paigow report
sheet``); ``paigow report floor --database URL --from DATE --to DATE --format csv|json|html
[--out FILE]`` writes the floor report, and exits with status 1, naming every difference, when the
round records and the ledger disagree.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup


class ReportGroup(TyperGroup):
    """``report ARGS`` runs ``report sheet ARGS`` unless ARGS start with a subcommand's name."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["sheet", *args]
        return super().parse_args(ctx, args)


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


def install(app: typer.Typer) -> None:
    """Make ``report`` a group: the par sheet by default, ``report floor`` the floor's report."""
    from paigow.cli.analysis import report_command

    found: Any = [c for c in app.registered_commands if c.name == "report"]
    app.registered_commands = [c for c in app.registered_commands if c.name != "report"]
    group = typer.Typer(
        cls=ReportGroup,
        help="Reports: the par sheet (paigow report --out FILE ...) or the floor's report "
        "by gaming day (paigow report floor ...).",
    )
    sheet = found[0].callback if found else report_command
    group.command("sheet", help="A par sheet for the ruleset and house way (the default).")(sheet)
    group.command("floor")(floor_command)
    app.add_typer(group, name="report")
