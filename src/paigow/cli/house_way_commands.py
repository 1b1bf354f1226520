"""``paigow house-way``: the house ways (docs/house-way.md): ``list`` the presets, ``show`` a
house way's rules, ``check`` a file over every hand (exit status 1, with the file's lines and
example hands, where it is unfit for a table).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from paigow.cli.common import AnalysisJsonOpt, WheelOpt, WorkersOpt, out_console
from paigow.cli.jobs import fail, load_house_way, progress_bar
from paigow.ranking import Wheel

house_way_app = typer.Typer(
    help="House ways: the presets, a house way's rules, the check of a file over every hand, its "
    "expected settings (test), the dealer's card and two side by side (diff).",
    no_args_is_help=True,
)

WayArg = Annotated[
    str, typer.Argument(metavar="NAME|FILE", help="A preset's name or a house-way file.")
]


@house_way_app.command("list")
def list_command(as_json: AnalysisJsonOpt = False) -> None:
    """The built-in presets, with where each was published."""
    from paigow.house_way import BUILTIN_PRESETS, HouseWay

    ways = [HouseWay.preset(name) for name in BUILTIN_PRESETS]
    if as_json:
        print(json.dumps([{"name": w.name, "title": w.title, "source": w.source,
                           "rules": len(w.rules)} for w in ways]))  # fmt: skip
        return
    table = Table("preset", "title", "rules", "source")
    for w in ways:
        table.add_row(w.name, w.title, str(len(w.rules)), w.source)
    out_console().print(table)


@house_way_app.command("show")
def show_command(
    house_way: WayArg,
    as_json: AnalysisJsonOpt = False,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain", help="The rules numbered, in plain words, each with an example hand."
        ),
    ] = False,
) -> None:
    """A house way's rules in the order they are tried, with each rule's ``note`` and the ids it
    gives by the high hand kept (``--json``: its file's table; ``--plain``: numbered rules in
    plain words, generated from the rules, each with an example hand it sets)."""
    way = load_house_way(house_way)
    if as_json:
        print(json.dumps(way.to_dict()))
        return
    if plain:
        from paigow.house_way.plain import plain_text

        print(plain_text(way), end="")
        return
    console = out_console()
    console.print(f"[bold]{way.name}[/bold]: {way.title or 'house way'}")
    if way.source:
        console.print(f"source: {way.source}")
    if way.bands:
        console.print("bands: " + ", ".join(f"{k} = {v}" for k, v in way.bands.items()))
    console.print(f"digest: {way.digest}")
    table = Table("#", "rule id", "when", "sets")
    for n, rule in enumerate(way.rules, 1):
        when = " ".join(str(rule.text.get("when", "always")).split())
        table.add_row(str(n), rule.id, when, rule.action_text())
    console.print(table)
    for n, rule in enumerate(way.rules, 1):  # a line each, never cut: to be reviewed
        ids = ", ".join(f"a {cat.label} high is {rid!r}" for cat, rid in rule.ids)
        if ids:
            console.print(f"rule {n} ({rule.id}) ids: {ids}", soft_wrap=True)
        if rule.text.get("note"):
            console.print(f"rule {n} ({rule.id}) note: {rule.text['note']}", soft_wrap=True)


@house_way_app.command("check")
def check_command(
    house_way: WayArg,
    wheel: WheelOpt = Wheel.SECOND,
    workers: WorkersOpt = 2,
    as_json: AnalysisJsonOpt = False,
    again: Annotated[
        bool, typer.Option("--again", help="Run over every hand even if these rules passed before.")
    ] = False,
    one_by_one: Annotated[
        bool,
        typer.Option(
            "--sweep",
            help="Set each hand one by one (the reference: tens of seconds, on --workers "
            "threads), not class by class (about a second); the answer is the same.",
        ),
    ] = False,
) -> None:
    """Run a house way over all 154,143,080 hands: the hands each rule sets, and what makes it
    unfit for a table.

    Hands of the same ranks and flush pattern are set alike, so it runs class by class (about
    a second). Unfit: a hand without a rule, a hand set into a foul, a rule that sets no hand,
    each with its file's line and an example hand; exit status 1 when there is any. A file
    that passed is remembered (by the digest of its rules and of the kernels, in the cache
    folder) and answered at once."""
    from paigow.analysis.compiled import HANDS, check, remember, remembered, sweep

    way = load_house_way(house_way)
    known = None if again or one_by_one else remembered(way, wheel)
    if known is not None and not known["problems"] and isinstance(known.get("by_rule"), list):
        by_rule = [int(n) for n in known["by_rule"]]
        problems: list[str] = []
        seconds, unset, fouls = 0.0, 0, 0
    else:
        known = None
        with progress_bar(f"checking {way.name}", HANDS) as advance:
            if one_by_one:
                survey = sweep(way, wheel, workers, advance)
            else:
                survey = check(way, wheel, advance)
        remember(way, wheel, survey)
        problems, by_rule, seconds = survey.problems(), survey.by_rule(), survey.seconds
        unset, fouls = survey.unset, survey.fouls
    if as_json:
        print(json.dumps({
            "house_way": way.name,
            "digest": way.digest,
            "hands": HANDS,
            "seconds": round(seconds, 1),
            "remembered": known is not None,
            "by_rule": [
                {"rule": r.id, "where": way.where(r), "hands": n}
                for r, n in zip(way.rules, by_rule, strict=True)
            ],
            "unset": unset,
            "fouls": fouls,
            "problems": problems,
        }))  # fmt: skip
    else:
        console = out_console()
        table = Table("#", "rule id", "line", "hands set", "share")
        for n, (rule, hands) in enumerate(zip(way.rules, by_rule, strict=True), 1):
            table.add_row(
                str(n), rule.id, str(rule.line or ""), f"{hands:,}", f"{100 * hands / HANDS:.4f}%"
            )
        console.print(table)
        if known is not None:
            console.print(
                f"{HANDS:,} hands: remembered from an earlier check of these rules "
                f"(digest {way.digest}; --again runs it again)"
            )
        else:
            console.print(f"{HANDS:,} hands in {seconds:.1f} s")
    if problems:
        raise fail("\n".join(problems), code=1)
    if not as_json:
        out_console().print(f"{way.origin or way.name}: every hand is set, none into a foul")
