"""The game's commands: ``paigow hand`` (a hand's settings), ``deal`` (one round) and ``play``
(the terminal table)."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from paigow.bonus.hand import BonusCategory
from paigow.bonus.paytable import BONUS_PRESETS, PayTable, Target
from paigow.cards import Card, format_cards, parse_cards
from paigow.cli.common import (
    DEFAULT_COMMISSION,
    DragonOpt,
    HouseWayOpt,
    JsonOpt,
    Player,
    PushOpt,
    VariantCommissionOpt,
    VariantOpt,
    WheelOpt,
    dollars_option,
    err_console,
    fail,
    load_house_way,
    out_console,
    variant_rules,
)
from paigow.cli.side_cards import bonus_cards
from paigow.errors import HouseWayError, PaigowError
from paigow.house_way import HouseWay
from paigow.money import format_money, parse_money
from paigow.narrator import narrate_log, push_words
from paigow.ranking import Wheel, best_five
from paigow.round import Round
from paigow.ruleset import Ruleset, SideWagerOffer, StartMethod
from paigow.setting import all_settings


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
        Player,
        typer.Option(
            "--strategy",
            help="optimal: the compiled strategy's setting, its EV and what the house way gives up.",
        ),
    ] = Player.HOUSE_WAY,
    commission: Annotated[
        str,
        typer.Option(
            "--commission", metavar="RATE", help="Commission rate (with --strategy optimal)."
        ),
    ] = DEFAULT_COMMISSION,
) -> None:
    """The best five-card hand and the house way's setting with its rule (with --all, all 21
    settings)."""
    way = load_house_way(house_way)
    if strategy is Player.OPTIMAL:
        from paigow.cli.strategy_commands import strategy_hands

        lines = list(_hand_lines(cards))
        if strategy_hands(lines, way, wheel, commission, as_json, house_way):
            raise typer.Exit(1 if cards == ["-"] else 2)
        return
    console = out_console()
    failures = 0
    for i, line in enumerate(_hand_lines(cards)):
        try:
            seven = parse_cards(line, count=7)
        except PaigowError as exc:
            failures += 1
            if as_json:
                print(json.dumps({"input": line, "error": str(exc)}))
            else:
                err_console().print(f"[bold red]error:[/] {line!r}: {exc}", highlight=False)
            continue
        try:
            report = hand_report(seven, way, wheel)
        except HouseWayError as exc:  # the file's rule sets this hand into a foul
            failures += 1
            if as_json:
                print(json.dumps({"input": line, "error": str(exc)}))
            else:
                err_console().print(f"[bold red]error:[/] {exc}", highlight=False)
            continue
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
        raise fail(f"--spots takes spot numbers 1..6 separated by commas, got {text!r}") from None
    bad = [s for s in spots if not 1 <= s <= 6]
    if bad or not spots:
        raise fail(f"--spots takes spot numbers 1..6, got {text!r}")
    return spots


def _preset(name: str) -> str:
    """A pay table preset by its name or the start of it (``fortune`` -> ``fortune-a``)."""
    key = name.strip().lower()
    if key in BONUS_PRESETS:
        return key
    found = [p for p in BONUS_PRESETS if p.startswith(key + "-")]
    if len(found) == 1:
        return found[0]
    raise fail(
        f"--side {name!r}: "
        + (f"which one: {', '.join(found)}?" if found else "no such pay table")
        + f" (presets: {', '.join(BONUS_PRESETS)})"
    )


def _side_offers(sides: list[str]) -> tuple[tuple[SideWagerOffer, ...], dict[str, int]]:
    """``--side NAME=DOLLARS`` options: the offers (preset pay tables, each spot's amount within
    the offer's limits) and the amount of each."""
    offers: list[SideWagerOffer] = []
    amounts: dict[str, int] = {}
    for text in sides:
        name, sep, dollars = text.rpartition("=")
        if not sep or not name.strip():
            raise fail(
                f"--side takes NAME=DOLLARS (e.g. fortune-a=5 or my-table.toml=5), got {text!r}"
            )
        table = None
        if name.strip().lower().endswith(".toml") or Path(name.strip()).is_file():
            try:  # an operator's own pay table, by its file
                table = PayTable.load(name.strip())
            except PaigowError as exc:
                raise fail(f"--side {text!r}: {exc}") from None
        preset = table.name if table is not None else _preset(name)
        if preset in amounts:
            raise fail(f"--side {preset} given twice")
        try:
            amount = parse_money(dollars)
            table = table or PayTable.preset(preset)
            fixed = table.progressive.wager if table.progressive is not None else None
            lo, hi = (fixed, fixed) if fixed is not None else (100, 100_000)
            offers.append(SideWagerOffer(preset, table, lo, hi))
        except (PaigowError, ValueError) as exc:
            raise fail(f"--side {text!r}: {exc}") from None
        amounts[preset] = amount
    return tuple(offers), amounts


def deal(
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed a generator: a reproducible round (simulation and replay only; tables use the OS CSPRNG)."
        ),
    ] = None,
    spots: Annotated[
        str, typer.Option(metavar="SPOTS", help="Spots with a wager, e.g. 1,3,4.")
    ] = "1,2,3,4,5,6",
    start: Annotated[
        StartMethod, typer.Option(help="Starting position by three dice or an RNG number 1..7.")
    ] = StartMethod.DICE,
    wager: Annotated[str, dollars_option("Each spot's wager in dollars.")] = "10",
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    dragon: DragonOpt = False,
    side: Annotated[
        list[str] | None,
        typer.Option(
            "--side",
            metavar="NAME=DOLLARS",
            help="A side wager on every spot, NAME=DOLLARS (a pay table preset, e.g. "
            "fortune-a=5); repeatable.",
        ),
    ] = None,
    meter: Annotated[
        str | None,
        typer.Option(
            metavar="DOLLARS",
            help="A progressive's meter in dollars before this round (default: its seed).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Conduct one round with house-way players; print its whole event log and the results
    (with --side, the side wagers, each spot's bonus hand and the Envy paid; with --dragon,
    the dragon hand offered in turn, the first spot taking it at the table minimum)."""
    way = load_house_way(house_way)
    offers, sides = _side_offers(side or [])
    rate, rule, face_up = variant_rules(variant, push, commission)
    try:
        ruleset = Ruleset(
            commission=rate,
            wheel=wheel,
            start=start,
            house_way=way.name,
            side_wagers=offers,
            push=rule,
            face_up=face_up,
            dragon=dragon,
        )
        amount = parse_money(wager)
        before = parse_money(meter) if meter is not None else None
    except (PaigowError, ValueError) as exc:
        raise fail(str(exc)) from None
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()  # nosec B311  # seeded only on request, for replay
    rnd = Round(ruleset, way, round_id=f"seed-{seed}" if seed is not None else None)
    try:
        for spot in _parse_spots(spots):
            rnd.wager(spot, amount)
            for name, cents in sides.items():
                rnd.side_wager(spot, name, cents)
        meters = _meters(rnd, before)
        rnd.deal(rng)
        if rnd.dragon_spot is not None and not rnd.is_over:
            rnd.offer_dragon()
            turn = rnd.dragon_turn
            if turn is not None:
                rnd.accept_dragon(turn, min(ruleset.min_wager, rnd.wagers[turn]))
        for spot in rnd.spots_to_set():  # each player sets their own hand as the house would
            rnd.set_hand(spot, way.set_hand(rnd.hands[spot], ruleset.wheel).setting)
        if not rnd.is_over:
            rnd.finish(meters)
    except PaigowError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(
            json.dumps(
                {
                    "round_id": rnd.round_id,
                    "phase": rnd.phase.value,
                    "events": rnd.log(),
                    "results": [e.to_dict() for e in rnd.results.values()],
                    **(
                        {"dragon": rnd.dragon_result.to_dict()}
                        if rnd.dragon_result is not None
                        else {}
                    ),
                    **_side_report(rnd),
                }
            )
        )
        return
    console = out_console()
    for i, line in enumerate(narrate_log(rnd.events)):
        console.print(Text.assemble((f"{i:>2}", "dim"), " ", line), soft_wrap=True)
    _print_results(console, rnd)
    _print_side(console, rnd)


def _meters(rnd: Round, before: int | None) -> dict[str, int]:
    """Each progressive bank's meter at settlement: ``before`` (default the seed) and this
    round's shares."""
    meters: dict[str, int] = {}
    for offer in rnd.ruleset.side_wagers:
        if offer.bank is not None and offer.table.progressive is not None:
            start = before if before is not None else offer.table.progressive.seed
            meters[offer.bank] = start + rnd.meter_shares().get(offer.bank, 0)
    return meters


def _side_report(rnd: Round) -> dict[str, Any]:
    """The side wagers of a round for ``--json`` (empty when none were made)."""
    if not rnd.side_wagers:
        return {}
    out: dict[str, Any] = {
        "side_results": [e.to_dict() for e in rnd.side_results.values()],
        "envy": [e.to_dict() for e in rnd.envy.values()],
        "meters": rnd.meters,
        "meters_after": rnd.meters_after,
    }
    if rnd.phase.value == "settled":
        out["bonus_hands"] = {
            "dealer" if spot is None else str(spot): {
                "name": hand.name,
                "held": sorted(c.value for c in hand.held),
            }
            for spot, hand in rnd.bonus_hands().items()
        }
    return out


def _print_side(console: Console, rnd: Round) -> None:
    if not rnd.side_results:
        return
    bonus = rnd.bonus_hands()
    table = Table(title="Side wagers (settled on the seven cards)", title_justify="left")
    cols = ("spot", "wager", "on", "cards", "bonus hand", "paid as", "amount", "won", "returned")
    for col in cols:
        table.add_column(col)
    for (spot, name), e in rnd.side_results.items():
        target = rnd.ruleset.offer(name).table.target
        hand = bonus[None] if target is not Target.PLAYER else bonus[spot]
        on = {Target.PLAYER: "own hand", Target.DEALER: "dealer", Target.DEALER_LOW: "dealer low"}
        table.add_row(
            str(spot),
            name,
            on[target],
            format_cards(bonus_cards(rnd, spot, target)),
            hand.name if target is not Target.DEALER_LOW else "",
            BonusCategory(e.hand).label if e.hand else "nothing",
            format_money(e.wager),
            format_money(e.win) if e.win else "",
            format_money(e.returned),
        )
    console.print(table)
    for (spot, name), envy in rnd.envy.items():
        console.print(
            f"Envy: spot {spot} ({name}) is paid {format_money(envy.amount)}", highlight=False
        )


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
            e.outcome.upper() + (f" ({push_words(e.reason)})" if e.reason else ""),
            format_money(e.wager),
            format_money(e.commission) if e.outcome == "win" else "",
            format_money(e.returned),
        )
    d = rnd.dragon_result
    if d is not None and rnd.dragon_setting is not None:
        s = rnd.dragon_setting
        table.add_row(
            f"dragon ({d.spot}'s packet, spot {d.by})",
            f"{format_cards(s.high)} / {format_cards(s.low)}",
            d.high,
            d.low,
            d.outcome.upper() + (f" ({push_words(d.reason)})" if d.reason else ""),
            format_money(d.wager),
            format_money(d.commission) if d.outcome == "win" else "",
            format_money(d.returned),
        )
    console.print(table)


# --------------------------------------------------------------------------------------- play
def play(
    bankroll: Annotated[str, dollars_option("Your starting bankroll in dollars.")] = "500",
    spot: Annotated[int, typer.Option(min=1, max=6, help="Your spot.")] = 3,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed for a reproducible practice game (otherwise the OS CSPRNG)."),
    ] = None,
    start: Annotated[
        StartMethod, typer.Option(help="Starting position by dice or RNG.")
    ] = StartMethod.DICE,
    house_way: HouseWayOpt = "standard",
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    min_wager: Annotated[str, dollars_option("Table minimum in dollars.")] = "5",
    max_wager: Annotated[str, dollars_option("Table maximum in dollars.")] = "1000",
) -> None:
    """Play at a terminal table of six spots: you and five house-way players."""
    from paigow.cli.play import run_game

    way = load_house_way(house_way)
    rate, rule, face_up = variant_rules(variant, push, commission)
    try:
        ruleset = Ruleset(
            commission=rate,
            start=start,
            house_way=way.name,
            min_wager=parse_money(min_wager),
            max_wager=parse_money(max_wager),
            push=rule,
            face_up=face_up,
        )
        cents = parse_money(bankroll)
    except (PaigowError, ValueError) as exc:
        raise fail(str(exc)) from None
    run_game(out_console(), ruleset, way, cents, seed, spot)
