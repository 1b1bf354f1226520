"""The table service's commands: ``paigow serve``, ``admin create``, ``audit verify|export``, and
``bots``, the load client that plays against a running server.

They import the service (and the load client) inside the commands, so that the CLI starts fast.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from paigow.cli.common import DatabaseOpt, JsonOpt, err_console, fail, out_console
from paigow.money import format_money


def serve(
    host: Annotated[
        str, typer.Option(metavar="ADDRESS", help="Address to listen on.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            metavar="URL",
            help="Database URL. Default: sqlite:///paigow-tables.sqlite3 in the current folder; "
            "postgresql://... for PostgreSQL.",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(metavar="LEVEL", help="uvicorn log level.")] = "warning",
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="First run: create an operator (password saved beside the database) and a "
            "casino and a practice table if there are none.",
        ),
    ] = False,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="ADDRESSES",
            help="Proxies (comma-separated addresses or networks) whose X-Forwarded-For names "
            "the client. Default: none; every client is its TCP peer.",
        ),
    ] = None,
    data_dir: Annotated[
        str | None,
        typer.Option(
            "--data-dir",
            metavar="FOLDER",
            help="Folder of the token secret file (default: beside the SQLite file; for "
            "PostgreSQL ~/.local/share/paigow). Or give PAIGOW_SECRET.",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes sharing the port (PostgreSQL only; each deals the tables "
            "whose dealer lock it holds).",
        ),
    ] = 1,
) -> None:
    """Run the table service (HTTP API, WebSockets, virtual dealers); prints the URL to open."""
    from paigow.service.process.server import default_database_url
    from paigow.service.process.server import serve as run_server

    try:
        if demo:
            from pathlib import Path

            from paigow.service.process.demo import ensure_demo

            url = database or default_database_url()
            for line in ensure_demo(url, Path.cwd() / "paigow-operator-password.txt"):
                err_console().print(f"paigow table server: {line}")
        run_server(
            host,
            port,
            database,
            log_level=log_level,
            workers=workers,
            forwarded_allow_ips=forwarded_allow_ips,
            data_dir=data_dir,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None


admin_app = typer.Typer(help="Operator accounts of the table service.", no_args_is_help=True)


@admin_app.command("create")
def admin_create(
    database: DatabaseOpt,
    username: Annotated[str, typer.Option(metavar="NAME", help="The operator's username.")],
    password_file: Annotated[
        str,
        typer.Option(
            metavar="FILE", help="A file holding the password (first line); - for standard input."
        ),
    ],
    require_2fa: Annotated[
        bool,
        typer.Option(
            "--require-2fa",
            help="The operator must enrol a second factor (TOTP) at their first sign-in.",
        ),
    ] = False,
) -> None:
    """Create an operator (operators open and close tables, move money and read the audit log)."""
    from pathlib import Path

    from paigow.service.accounts.operators import create_operator
    from paigow.service.http_errors import ServiceError

    try:
        text = sys.stdin.read() if password_file == "-" else Path(password_file).read_text()  # nosec B105
    except OSError as exc:
        raise fail(f"cannot read the password file: {exc.strerror}") from None
    password = text.splitlines()[0] if text.strip() else ""
    try:
        user = create_operator(database, username, password, require_2fa=require_2fa)
    except (ServiceError, ValueError) as exc:
        raise fail(str(exc)) from None
    out_console().print(f"operator {user['username']} created (id {user['id']})")


@admin_app.command("reset-2fa")
def admin_reset_2fa(
    username: Annotated[str, typer.Argument(metavar="USER", help="The operator's username.")],
    database: DatabaseOpt,
) -> None:
    """Remove a locked-out operator's second factor and recovery codes (audited): their
    sessions end and they enrol a new one at their next sign-in."""
    from paigow.service.accounts.operators import reset_second_factor
    from paigow.service.http_errors import ServiceError

    try:
        was = reset_second_factor(database, username)
    except (ServiceError, ValueError) as exc:
        raise fail(str(exc)) from None
    said = "removed" if was else "none was on"
    out_console().print(
        f"second factor of {username}: {said}; they enrol one at their next sign-in"
    )


audit_app = typer.Typer(help="Audit of the table service's database.", no_args_is_help=True)


@audit_app.command("verify")
def audit_verify(database: DatabaseOpt, as_json: JsonOpt = False) -> None:
    """Check the ledger and replay every round's log through the rules engine; exit status 0
    only when everything holds."""
    from paigow.service.books.audit import verify
    from paigow.service.config import ServiceConfig
    from paigow.service.store.db import Database

    try:
        db = Database.of(ServiceConfig.from_env(database))
        report = verify(db)
        db.dispose()
    except ValueError as exc:
        raise fail(str(exc)) from None
    except Exception as exc:  # an unreachable or unmigrated database
        raise fail(f"cannot read the database: {type(exc).__name__}: {exc}") from None
    if as_json:
        print(json.dumps(report))
    else:
        console = out_console()
        ledger = report["ledger"]
        console.print(
            f"ledger: {'balanced' if report['ledger_balanced'] else '[red]NOT BALANCED[/]'} "
            f"({ledger['transactions']} transactions, {ledger['entries']} entries; credited "
            f"{format_money(ledger['credited'])}, accounts hold {format_money(ledger['sum_of_accounts'])})"
        )
        for problem in ledger["problems"]:
            console.print(f"  [red]{problem}[/]")
        console.print(
            f"rounds: {report['rounds']}, replayed {report['replayed']}, "
            f"mismatches {len(report['mismatches'])}"
        )
        for m in report["mismatches"]:
            console.print(f"  [red]round {m['round_id']}: {m['problem']}[/]")
    raise typer.Exit(0 if report["ok"] else 1)


@audit_app.command("export")
def audit_export(database: DatabaseOpt) -> None:
    """Print the audit log (operator actions and faults) as JSON lines."""
    from paigow.service.books.audit import export
    from paigow.service.config import ServiceConfig
    from paigow.service.store.db import Database

    try:
        db = Database.of(ServiceConfig.from_env(database))
        for line in export(db):
            sys.stdout.write(line)
        db.dispose()
    except ValueError as exc:
        raise fail(str(exc)) from None


def bots(
    url: Annotated[
        list[str],
        typer.Option(
            metavar="URL",
            help="The server, e.g. http://127.0.0.1:8000/. Give --url more than once (or "
            "comma-separated URLs) for several processes of one deployment: the players are "
            "spread over them and fail over to another when one is lost.",
        ),
    ],
    tables: Annotated[int, typer.Option(min=1, max=200, help="Tables to create.")] = 2,
    players: Annotated[int, typer.Option(min=1, max=6, help="Players per table.")] = 6,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds each player plays.")] = 5,
    operator: Annotated[str, typer.Option(metavar="NAME", help="Operator username.")] = "operator",
    operator_password_file: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="File with the operator's password (or $PAIGOW_OPERATOR_PASSWORD).",
        ),
    ] = None,
    betting_ms: Annotated[
        int, typer.Option(metavar="MS", help="Betting time of the tables it creates.")
    ] = 2000,
    setting_ms: Annotated[
        int, typer.Option(metavar="MS", help="Setting time of the tables it creates.")
    ] = 5000,
    seed: Annotated[
        int | None, typer.Option(help="Seed the bots' choices (not the cards).")
    ] = None,
    side_wagers: Annotated[
        bool,
        typer.Option(
            help="The tables offer side wagers (Fortune with Envy, and a progressive all the "
            "run's tables share) and the bots place them."
        ),
    ] = True,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="A variant the tables deal in turn (indiana, ez, commission-free, face-up); "
            "repeat for several.",
        ),
    ] = None,
    dragon: Annotated[
        bool,
        typer.Option(
            "--dragon",
            help="The tables offer the dragon hand (an empty spot's packet) and the bots answer "
            "it: wager, decline or let the turn run out (fewer than 6 players leave a spot empty).",
        ),
    ] = False,
    price_settings: Annotated[
        bool,
        typer.Option(
            "--price-settings",
            help="The tables price each setting after each round (the players' My play).",
        ),
    ] = False,
    acks: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Append every step the server acknowledged to FILE as it comes, a JSON line "
            "each: wager (round, user, spot, amount), set (round, user, spot, low), "
            "round-settled or voided (round, user, spot); to compare with the database after "
            "a failover.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Play real rounds against a running server through its public API and WebSockets, then
    check the ledger and every round's result (side wagers included) by replaying its log."""
    import os
    from pathlib import Path

    from paigow.analysis.extras import MissingExtra, require

    try:
        require("aiohttp", "bots")
    except MissingExtra as exc:
        raise fail(str(exc)) from None
    from paigow.cli.bots import print_report, run_bots
    from paigow.cli.bots_player import BotConfig

    if operator_password_file:
        try:
            password = Path(operator_password_file).read_text().splitlines()[0]
        except (OSError, IndexError):
            raise fail("cannot read the operator's password file") from None
    else:
        password = os.environ.get("PAIGOW_OPERATOR_PASSWORD", "")
    if not password:
        raise fail("give --operator-password-file or set PAIGOW_OPERATOR_PASSWORD")
    cfg = BotConfig(
        url=",".join(url),
        tables=tables,
        players=players,
        rounds=rounds,
        operator=operator,
        operator_password=password,
        betting_ms=betting_ms,
        setting_ms=setting_ms,
        seed=seed,
        freeze_gc=True,
        side_wagers=side_wagers,
        variants=tuple(variant or ()),
        dragon=dragon,
        price_settings=price_settings,
        acks_path=acks,
    )
    report = run_bots(cfg)
    if as_json:
        print(json.dumps(report))
    else:
        print_report(out_console(), report)
    ok = (
        report["ledger_balanced"]
        and not report["replay_mismatches"]
        and not report["errors"]["unexpected"]
    )
    raise typer.Exit(0 if ok else 1)
