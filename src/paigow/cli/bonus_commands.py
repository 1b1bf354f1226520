"""``paigow bonus``: side wagers' pay tables and their exact returns.

- ``bonus list``: the pay tables shipped with the package;
- ``bonus analyze PAYTABLE|FILE``: the exact count of every hand it pays over all 154,143,080
  hands, the return per unit wagered, Envy's value and, for a progressive, the return at a meter
  and the break-even meter. The first run counts every hand's bonus categories once (under 10 s
  on two cores, after the compiled house way); the counts are cached beside the house way.

The heavy modules (numba, numpy) are imported inside the commands, so that the CLI starts fast.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from paigow.bonus import BONUS_PRESETS, PayTable, PayTableError, Target
from paigow.cli.common import (
    AnalysisJsonOpt,
    HouseWayOpt,
    WheelOpt,
    WorkersOpt,
    out_console,
    terminal_err_console,
)
from paigow.cli.jobs import fail, load_house_way, open_compiled, progress_bar
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.money import format_money, parse_money
from paigow.ranking import Wheel

if TYPE_CHECKING:
    from paigow.analysis.bonus_counts import BonusCounts
    from paigow.analysis.bonus_return import BonusAnalysis

bonus_app = typer.Typer(
    help="Side wagers: the pay tables and their exact returns.", no_args_is_help=True
)


def load_pay_table(name: str) -> PayTable:
    """The pay table a preset name or file names, or exit with status 2 saying what is wrong."""
    try:
        return PayTable.load(name)
    except PaigowError as exc:
        raise fail(str(exc)) from None


def _dollars(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    try:
        return parse_money(text)
    except ValueError as exc:
        raise fail(f"{option}: {exc}") from None


def bonus_counts(way: HouseWay, wheel: Wheel, workers: int) -> BonusCounts:
    """The cached bonus counts, counted with progress bars (house way first) when missing."""
    from paigow.analysis.bonus_counts import counts_path, open_counts
    from paigow.analysis.compiled import HANDS

    if counts_path(way, wheel).exists():
        try:
            return open_counts(way, wheel, build_missing=False)
        except PaigowError:
            pass  # stale or damaged: counted again below
    compiled = open_compiled(way, wheel, workers)
    terminal_err_console().print(
        "counting the bonus hand of all 154,143,080 hands (once; cached beside the house way)"
    )
    with progress_bar("bonus hands", HANDS) as advance:
        return open_counts(way, wheel, progress=advance, workers=workers, compiled=compiled)


@bonus_app.command("list")
def bonus_list(as_json: AnalysisJsonOpt = False) -> None:
    """The pay tables shipped with the package (give one to `paigow bonus analyze`)."""
    tables = [PayTable.preset(name) for name in BONUS_PRESETS]
    if as_json:
        print(json.dumps([t.to_dict() for t in tables]))
        return
    table = Table(
        title="Side-wager pay tables shipped (or write your own .toml)", title_justify="left"
    )
    for col in ("name", "on", "pays", "title"):
        table.add_column(col)
    for t in tables:
        top = next(iter(t.pays.items()))
        extra = " + Envy" if t.envy else (" + meter" if t.progressive else "")
        table.add_row(
            t.name,
            t.target.value,
            f"{len(t.pays)} hand{'' if len(t.pays) == 1 else 's'}, top {top[1].text}{extra}",
            t.title,
        )
    out_console().print(table)


@bonus_app.command("show")
def bonus_show(
    name: Annotated[
        str, typer.Argument(metavar="PAYTABLE", help="A preset's name (`paigow bonus list`).")
    ],
) -> None:
    """A shipped pay table's TOML file, as written: a starting point for one's own."""
    try:
        text = PayTable.preset_text(name)
    except PayTableError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(text)


def _pct(value: Fraction) -> str:
    from paigow.analysis.bonus_return import decimal

    return f"{decimal(100 * value, 4)}%"


def _print(a: BonusAnalysis, players: int, way: HouseWay) -> None:
    from paigow.analysis.bonus_return import MAX_PLAYERS, decimal

    t = a.table
    console = out_console()
    whose = {
        Target.PLAYER: "the player's seven cards",
        Target.DEALER: "the dealer's seven cards",
        Target.DEALER_LOW: f"the dealer's low hand ({way.name} house way)",
    }[t.target]
    at = f", meter {format_money(a.meter)}" if a.meter is not None else ""
    grid = Table(
        title=f"{t.title} ({t.name}): on {whose}, all {a.hands:,} hands, "
        f"wager {format_money(a.wager)}{at}",
        title_justify="left",
    )
    for col in ("hand", "pays", "hands", "probability", "return"):
        grid.add_column(col, justify="left" if col in ("hand", "pays") else "right")
    for line in a.lines:
        grid.add_row(
            line.category.label,
            line.pays,
            f"{line.hands:,}",
            decimal(Fraction(line.hands, a.hands), 8),
            decimal(line.contribution(a.hands), 6),
        )
    lost = a.hands - a.paid_hands
    grid.add_row(
        "not paid",
        "loses",
        f"{lost:,}",
        decimal(Fraction(lost, a.hands), 8),
        decimal(Fraction(-lost, a.hands), 6),
    )
    grid.add_row("[bold]total[/]", "", f"{a.hands:,}", "1", f"[bold]{decimal(a.paid_return)}[/]")
    console.print(grid)
    console.print(
        f"return per unit wagered {decimal(a.paid_return, 8)}  "
        f"(house edge {_pct(-a.paid_return)}; exactly {a.paid_return})"
    )
    if a.envy_per_other is not None and t.envy is not None:
        console.print(
            f"Envy (bonus wager of {format_money(t.envy.minimum)} or more): "
            f"{decimal(a.envy_per_other, 4)} cents expected per other player at the table "
            f"(exactly {a.envy_per_other} cents)"
        )
        if not a.envy_qualifies:
            console.print(f"  a {format_money(a.wager)} wager does not qualify for Envy")
        envy = Table(
            title=f"With Envy, wager {format_money(a.wager)}",
            title_justify="left",
            caption=f"* {players} player{'' if players == 1 else 's'} at the table (--players)",
            caption_justify="left",
        )
        for col in ("players at the table", "return per unit", "house edge"):
            envy.add_column(col, justify="right")
        for n in range(1, MAX_PLAYERS + 1):
            mark = " *" if n == players else ""
            envy.add_row(f"{n}{mark}", decimal(a.total_return(n)), _pct(-a.total_return(n)))
        console.print(envy)
    if a.break_even is not None:
        console.print(
            f"break-even meter {format_money(int(-(-a.break_even // 1)))} "
            f"(exactly {a.break_even / 100} dollars) at a {format_money(a.wager)} wager"
        )
    if players > 1:
        console.print(
            f"with {players} players at the table: return {decimal(a.total_return(players), 8)} "
            f"(house edge {_pct(-a.total_return(players))})"
        )


@bonus_app.command("analyze")
def bonus_analyze(
    pay_table: Annotated[
        str,
        typer.Argument(
            metavar="PAYTABLE|FILE",
            help="A preset's name (`paigow bonus list`) or a pay table's .toml file.",
        ),
    ],
    players: Annotated[
        int,
        typer.Option(
            "--players",
            min=1,
            max=6,
            metavar="N",
            help="Players at the table, you included (Envy is paid for each other one).",
        ),
    ] = 1,
    meter: Annotated[
        str | None,
        typer.Option(
            "--meter", metavar="DOLLARS", help="The progressive meter (default: its seed)."
        ),
    ] = None,
    wager: Annotated[
        str | None,
        typer.Option(
            "--wager",
            metavar="DOLLARS",
            help="The wager (default: the progressive's, else the Envy minimum, else $1).",
        ),
    ] = None,
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    as_json: AnalysisJsonOpt = False,
    workers: WorkersOpt = 2,
) -> None:
    """A pay table's exact counts and return over all 154,143,080 hands, Envy, break-even meter.

    The count of every hand it pays (the dealer's low hand under the house way), the return per
    unit wagered, Envy's value per other player and at 1-6 players, and for a progressive the
    return at a meter and the break-even meter; every figure exact.
    """
    from paigow.analysis.bonus_return import analyze

    table = load_pay_table(pay_table)
    way = load_house_way(house_way)
    meter_cents = _dollars(meter, "--meter")
    wager_cents = _dollars(wager, "--wager")
    if meter_cents is not None and table.progressive is None:
        raise fail(f"--meter: the pay table {table.name!r} has no progressive meter")
    if wager_cents == 0:
        raise fail("--wager: a wager must be more than $0")
    counts = bonus_counts(way, wheel, workers)
    result = analyze(table, counts, wager_cents, meter_cents)
    if as_json:
        print(json.dumps(result.to_dict(players)))
        return
    _print(result, players, way)
