"""The ``paigow`` command line: look at hands, deal rounds, play at a terminal table."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from paigow.cards import Card, format_cards, parse_cards
from paigow.cli.analysis import register as register_analysis
from paigow.cli.report import install as install_floor_report
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.money import format_money, parse_money
from paigow.narrator import narrate_log
from paigow.ranking import Wheel, best_five
from paigow.round import Round
from paigow.ruleset import Ruleset, StartMethod
from paigow.setting import all_settings

app = typer.Typer(
    name="paigow",
    help="Pai gow poker under Indiana's 68 IAC 10-9: hands, rounds and a terminal table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

HouseWayOpt = Annotated[
    str, typer.Option("--house-way", help="Preset name (standard, foxwoods) or a .toml/.json file.")
]
WheelOpt = Annotated[Wheel, typer.Option("--wheel", help="Where A-2-3-4-5 ranks among straights.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def _console(stderr: bool = False) -> Console:
    """A console; 120 columns wide when the output is not a terminal (pipes, files, tests)."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, highlight=False, width=None if stream.isatty() else 120)


def _fail(message: str, code: int = 2) -> typer.Exit:
    _console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def _load_house_way(name: str) -> HouseWay:
    try:
        return HouseWay.load(name)
    except PaigowError as exc:
        raise _fail(str(exc)) from None


# --------------------------------------------------------------------------------------- hand
def hand_report(cards: tuple[Card, ...], house_way: HouseWay, wheel: Wheel) -> dict[str, Any]:
    """Everything ``paigow hand`` shows about seven cards, JSON-ready."""
    value, five = best_five(cards, wheel)
    hw = house_way.set_hand(cards, wheel)
    hw_value = hw.setting.value(wheel)
    settings = []
    for s in all_settings(cards):
        v = s.value(wheel)
        settings.append(
            {
                "high": [c.code for c in s.high],
                "low": [c.code for c in s.low],
                "foul": v.foul,
                "high_name": v.high.name,
                "low_name": v.low.name,
                "house_way": s.same_hands(hw.setting),
            }
        )
    return {
        "cards": [c.code for c in cards],
        "best": {
            "category": value.category.label,
            "name": value.name,
            "cards": [c.code for c in five],
        },
        "house_way": {
            "preset": house_way.name,
            "high": [c.code for c in hw.setting.high],
            "low": [c.code for c in hw.setting.low],
            "rule": hw.rule,
            "high_name": hw_value.high.name,
            "low_name": hw_value.low.name,
        },
        "settings": settings,
    }


def _print_hand(console: Console, report: dict[str, Any], show_all: bool) -> None:
    best, hw = report["best"], report["house_way"]
    console.print(f"[bold]Cards[/]       {' '.join(report['cards'])}", highlight=False)
    console.print(
        f"[bold]Best five[/]   {' '.join(best['cards'])}  ({best['name']})", highlight=False
    )
    console.print(
        f"[bold]House way[/]   {' '.join(hw['high'])}  /  {' '.join(hw['low'])}   "
        f"({hw['high_name']} / {hw['low_name']})  rule [cyan]{hw['rule']}[/] ({hw['preset']})",
        highlight=False,
    )
    if not show_all:
        return
    table = Table(title="All 21 settings", title_justify="left")
    for col in ("#", "high hand", "", "low", "", "foul"):
        table.add_column(col)
    for i, s in enumerate(report["settings"], start=1):
        mark = " ← house way" if s["house_way"] else ""
        table.add_row(
            str(i),
            " ".join(s["high"]),
            s["high_name"],
            " ".join(s["low"]),
            s["low_name"],
            ("[red]FOUL[/]" if s["foul"] else "") + mark,
        )
    console.print(table)


def _hand_lines(cards: list[str]) -> Iterator[str]:
    if cards == ["-"]:
        for line in sys.stdin:
            if line.strip() and not line.lstrip().startswith("#"):
                yield line.strip()
    else:
        yield " ".join(cards)


@app.command()
def hand(
    cards: Annotated[
        list[str],
        typer.Argument(
            help="Seven cards (e.g. As Kd Qh Jc 9s 7d Jk), or - to read one hand per line from standard input."
        ),
    ],
    show_all: Annotated[
        bool, typer.Option("--all", help="Show all 21 settings, fouls marked.")
    ] = False,
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    as_json: JsonOpt = False,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="optimal: the compiled strategy's setting, its EV and what the house way gives up.",
        ),
    ] = "house-way",
    commission: Annotated[
        str, typer.Option("--commission", help="Commission rate (with --strategy optimal).")
    ] = "0.05",
) -> None:
    """The best five-card hand, the house way's setting with its rule, and all 21 settings."""
    way = _load_house_way(house_way)
    if strategy not in ("house-way", "optimal"):
        raise _fail(f"--strategy takes house-way or optimal, got {strategy!r}")
    if strategy == "optimal":
        from paigow.cli.analysis import strategy_hands

        if strategy_hands(list(_hand_lines(cards)), way, wheel, commission, as_json):
            raise typer.Exit(1 if cards == ["-"] else 2)
        return
    console = _console()
    failures = 0
    for i, line in enumerate(_hand_lines(cards)):
        try:
            seven = parse_cards(line, count=7)
        except PaigowError as exc:
            failures += 1
            if as_json:
                print(json.dumps({"input": line, "error": str(exc)}))
            else:
                _console(stderr=True).print(f"[bold red]error:[/] {line!r}: {exc}", highlight=False)
            continue
        report = hand_report(seven, way, wheel)
        if as_json:
            print(json.dumps(report))
        else:
            if i:
                console.print()
            _print_hand(console, report, show_all)
    if failures:
        raise typer.Exit(1 if cards == ["-"] else 2)


# --------------------------------------------------------------------------------------- deal
def _parse_spots(text: str) -> list[int]:
    try:
        spots = sorted({int(s) for s in text.replace(" ", "").split(",") if s})
    except ValueError:
        raise _fail(f"--spots takes spot numbers 1..6 separated by commas, got {text!r}") from None
    bad = [s for s in spots if not 1 <= s <= 6]
    if bad or not spots:
        raise _fail(f"--spots takes spot numbers 1..6, got {text!r}")
    return spots


@app.command()
def deal(
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed a generator: a reproducible round (simulation and replay only; tables use the OS CSPRNG)."
        ),
    ] = None,
    spots: Annotated[str, typer.Option(help="Spots with a wager, e.g. 1,3,4.")] = "1,2,3,4,5,6",
    start: Annotated[
        StartMethod, typer.Option(help="Starting position by three dice or an RNG number 1..7.")
    ] = StartMethod.DICE,
    wager: Annotated[str, typer.Option(help="Each spot's wager in dollars.")] = "10",
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: Annotated[str, typer.Option(help="Commission rate, at most 0.05.")] = "0.05",
    as_json: JsonOpt = False,
) -> None:
    """Conduct one round with house-way players; print its whole event log and the results."""
    way = _load_house_way(house_way)
    try:
        ruleset = Ruleset(
            commission=Commission(commission), wheel=wheel, start=start, house_way=way.name
        )
        amount = parse_money(wager)
    except (PaigowError, ValueError) as exc:
        raise _fail(str(exc)) from None
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    rnd = Round(ruleset, way, round_id=f"seed-{seed}" if seed is not None else None)
    try:
        for spot in _parse_spots(spots):
            rnd.wager(spot, amount)
        rnd.deal(rng)
        for spot in rnd.spots_to_set():
            rnd.set_house_way(spot)
        if not rnd.is_over:
            rnd.finish()
    except PaigowError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        print(
            json.dumps(
                {
                    "round_id": rnd.round_id,
                    "phase": rnd.phase.value,
                    "events": rnd.log(),
                    "results": [e.to_dict() for e in rnd.results.values()],
                }
            )
        )
        return
    console = _console()
    for i, line in enumerate(narrate_log(rnd.events)):
        console.print(Text.assemble((f"{i:>2}", "dim"), " ", line), soft_wrap=True)
    _print_results(console, rnd)


def _print_results(console: Console, rnd: Round) -> None:
    if not rnd.results:
        return
    table = Table(
        title=f"Results (commission {rnd.ruleset.commission}, posted)", title_justify="left"
    )
    for col in (
        "spot",
        "cards set (high / low)",
        "high",
        "low",
        "outcome",
        "wager",
        "commission",
        "returned",
    ):
        table.add_column(col)
    for spot, e in rnd.results.items():
        s = rnd.settings[spot]
        table.add_row(
            str(spot),
            f"{format_cards(s.high)} / {format_cards(s.low)}" + ("  FOUL" if e.foul else ""),
            e.high,
            e.low,
            e.outcome.upper(),
            format_money(e.wager),
            format_money(e.commission) if e.outcome == "win" else "",
            format_money(e.returned),
        )
    console.print(table)


# --------------------------------------------------------------------------------------- play
@app.command()
def play(
    bankroll: Annotated[str, typer.Option(help="Your starting bankroll in dollars.")] = "500",
    spot: Annotated[int, typer.Option(min=1, max=6, help="Your spot, 1..6.")] = 3,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed for a reproducible practice game (otherwise the OS CSPRNG)."),
    ] = None,
    start: Annotated[
        StartMethod, typer.Option(help="Starting position by dice or RNG.")
    ] = StartMethod.DICE,
    house_way: HouseWayOpt = "standard",
    commission: Annotated[str, typer.Option(help="Commission rate, at most 0.05.")] = "0.05",
    min_wager: Annotated[str, typer.Option(help="Table minimum in dollars.")] = "5",
    max_wager: Annotated[str, typer.Option(help="Table maximum in dollars.")] = "1000",
) -> None:
    """Play at a terminal table of six spots: you and five house-way players."""
    from paigow.cli.play import run_game

    way = _load_house_way(house_way)
    try:
        ruleset = Ruleset(
            commission=Commission(commission),
            start=start,
            house_way=way.name,
            min_wager=parse_money(min_wager),
            max_wager=parse_money(max_wager),
        )
        cents = parse_money(bankroll)
    except (PaigowError, ValueError) as exc:
        raise _fail(str(exc)) from None
    run_game(_console(), ruleset, way, cents, seed, spot)


register_analysis(app)
install_floor_report(app)  # paigow report floor (paigow report alone stays the par sheet)


# --------------------------------------------------------------------------------------- service
# The table service's commands import the service lazily, so that the CLI starts fast.
DatabaseOpt = Annotated[
    str,
    typer.Option(
        "--database", help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB (the source of truth)."
    ),
]


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            help="Database URL. Default: sqlite:///paigow-tables.sqlite3 in the current folder; "
            "postgresql://... for PostgreSQL.",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "warning",
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
            help="Proxies (comma-separated addresses or networks) whose X-Forwarded-For names "
            "the client. Default: none; every client is its TCP peer.",
        ),
    ] = None,
    data_dir: Annotated[
        str | None,
        typer.Option(
            "--data-dir",
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
                _console(stderr=True).print(f"paigow table server: {line}")
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
        raise _fail(str(exc)) from None


admin_app = typer.Typer(help="Operator accounts of the table service.", no_args_is_help=True)
app.add_typer(admin_app, name="admin")


@admin_app.command("create")
def admin_create(
    database: DatabaseOpt,
    username: Annotated[str, typer.Option(help="The operator's username.")],
    password_file: Annotated[
        str, typer.Option(help="A file holding the password (first line); - for standard input.")
    ],
) -> None:
    """Create an operator (operators open and close tables, move money and read the audit log)."""
    from pathlib import Path

    from paigow.service.accounts.operators import create_operator
    from paigow.service.errors import ServiceError

    try:
        text = sys.stdin.read() if password_file == "-" else Path(password_file).read_text()
    except OSError as exc:
        raise _fail(f"cannot read the password file: {exc.strerror}") from None
    password = text.splitlines()[0] if text.strip() else ""
    try:
        user = create_operator(database, username, password)
    except (ServiceError, ValueError) as exc:
        raise _fail(str(exc)) from None
    _console().print(f"operator {user['username']} created (id {user['id']})")


audit_app = typer.Typer(help="Audit of the table service's database.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("verify")
def audit_verify(database: DatabaseOpt, as_json: JsonOpt = False) -> None:
    """Check the ledger and replay every round's log through the rules engine; exit status 0
    only when everything holds."""
    from paigow.service.books.audit import verify
    from paigow.service.store.db import Database

    try:
        db = Database(database)
        report = verify(db)
        db.dispose()
    except ValueError as exc:
        raise _fail(str(exc)) from None
    except Exception as exc:  # an unreachable or unmigrated database
        raise _fail(f"cannot read the database: {type(exc).__name__}: {exc}") from None
    if as_json:
        print(json.dumps(report))
    else:
        console = _console()
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
    from paigow.service.store.db import Database

    try:
        db = Database(database)
        for line in export(db):
            sys.stdout.write(line)
        db.dispose()
    except ValueError as exc:
        raise _fail(str(exc)) from None


@app.command()
def bots(
    url: Annotated[
        list[str],
        typer.Option(
            help="The server, e.g. http://127.0.0.1:8000/. Give --url more than once (or "
            "comma-separated URLs) for several processes of one deployment: the players are "
            "spread over them and fail over to another when one is lost."
        ),
    ],
    tables: Annotated[int, typer.Option(min=1, max=200, help="Tables to create.")] = 2,
    players: Annotated[int, typer.Option(min=1, max=6, help="Players per table.")] = 6,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds each player plays.")] = 5,
    operator: Annotated[str, typer.Option(help="Operator username.")] = "operator",
    operator_password_file: Annotated[
        str | None,
        typer.Option(help="File with the operator's password (or $PAIGOW_OPERATOR_PASSWORD)."),
    ] = None,
    betting_ms: Annotated[int, typer.Option(help="Betting time of the tables it creates.")] = 2000,
    setting_ms: Annotated[int, typer.Option(help="Setting time of the tables it creates.")] = 5000,
    seed: Annotated[
        int | None, typer.Option(help="Seed the bots' choices (not the cards).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Play real rounds against a running server through its public API and WebSockets, then
    check the ledger and every round's result by replaying its log."""
    import os
    from pathlib import Path

    from paigow.cli.bots import BotConfig, print_report, run_bots

    if operator_password_file:
        try:
            password = Path(operator_password_file).read_text().splitlines()[0]
        except (OSError, IndexError):
            raise _fail("cannot read the operator's password file") from None
    else:
        password = os.environ.get("PAIGOW_OPERATOR_PASSWORD", "")
    if not password:
        raise _fail("give --operator-password-file or set PAIGOW_OPERATOR_PASSWORD")
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
    )
    report = run_bots(cfg)
    if as_json:
        print(json.dumps(report))
    else:
        print_report(_console(), report)
    ok = (
        report["ledger_balanced"]
        and not report["replay_mismatches"]
        and not report["errors"]["unexpected"]
    )
    raise typer.Exit(0 if ok else 1)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
