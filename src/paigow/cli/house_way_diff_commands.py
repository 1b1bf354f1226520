"""``paigow house-way diff A B``: two house ways side by side for a manager deciding whether to
change from A to B: how many of the 154,143,080 hands B sets otherwise, by the pair of rule ids
that set them, each with an example hand set both ways and (``--worth``) what that difference
alone is worth to the house (:mod:`paigow.analysis.house_way_diff`).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Annotated

import typer
from rich.table import Table

from paigow.cli.common import AnalysisJsonOpt, WheelOpt, WorkersOpt, out_console
from paigow.cli.jobs import fail, load_house_way, open_compiled, parse_commission, progress_bar
from paigow.errors import PaigowError
from paigow.ranking import Wheel


def dollars(worth: Fraction) -> str:
    """What a change of the house's edge by ``worth`` is per $100 wagered.

    >>> dollars(Fraction(331, 1_000_000)), dollars(Fraction(-357, 1_000_000))
    ('+$0.0331', '-$0.0357')
    """
    cents = float(100 * worth)
    return f"{'-' if cents < 0 else '+'}${abs(cents):.4f}"


def diff_command(
    a: Annotated[
        str, typer.Argument(metavar="A", help="The house way now: a preset's name or a file.")
    ],
    b: Annotated[
        str, typer.Argument(metavar="B", help="The house way beside it: a preset or a file.")
    ],
    wheel: WheelOpt = Wheel.SECOND,
    workers: WorkersOpt = 2,
    worth: Annotated[
        bool,
        typer.Option(
            "--worth",
            help="Count what each difference is worth to the house (an exact edge each, about "
            "as long as a house way's edge).",
        ),
    ] = False,
    top: Annotated[
        int | None,
        typer.Option("--top", min=1, help="Only the N rule pairs with the most hands."),
    ] = None,
    commission: Annotated[
        str, typer.Option("--commission", metavar="RATE", help="Commission rate, at most 0.05.")
    ] = "0.05",
    as_json: AnalysisJsonOpt = False,
) -> None:
    """How many hands B sets otherwise than A, by the pair of rule ids that set them.

    Otherwise: a high or a low hand of another strength. Pairs most first, each with an example
    hand set both ways (high / low; --json gives the seven cards too); with --worth, what each
    difference alone is worth to the house (A's exact edge with only those hands set B's way,
    less A's own: per hand wagered and per $100)."""
    from paigow.analysis.compiled import HANDS
    from paigow.analysis.house_way_diff import diff_ways, pair_worth

    way_a, way_b = load_house_way(a), load_house_way(b)
    rate = parse_commission(commission)
    try:
        for way in dict.fromkeys([way_a, way_b]):
            open_compiled(way, wheel, workers)
        with progress_bar(f"{way_a.name} beside {way_b.name}", HANDS) as advance:
            diff = diff_ways(way_a, way_b, wheel, workers, progress=advance)
        if top is not None:
            diff = type(diff)(diff.a, diff.b, diff.hands, diff.differ, diff.pairs[:top])
        if worth and diff.pairs:
            from paigow.cli.common import terminal_err_console

            with terminal_err_console().status("the exact edges") as status:
                diff = pair_worth(
                    diff, wheel, workers, rate,
                    progress=lambda what: status.update(f"the exact edge: {what}"),
                )  # fmt: skip
    except PaigowError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps(diff.to_dict() | {"wheel": wheel.value, "commission": rate.as_str()}))
        return
    console = out_console()
    name_a, name_b = way_a.label, way_b.label
    console.print(
        f"{name_b} sets {diff.differ:,} of {diff.hands:,} hands "
        f"({100 * diff.differ / diff.hands:.4f}%) otherwise than {name_a}",
        highlight=False,
    )
    if not diff.pairs:
        return
    table = Table(title=f"Where {name_b} differs from {name_a}")
    for name in (f"{name_a} rule", f"{name_b} rule"):  # an id folded, never cut short
        table.add_column(name, overflow="fold")
    table.add_column("hands", justify="right")
    if worth:  # an example hand set by A above B's setting, high / low: narrow beside the worth
        table.add_column(f"{name_a} sets,\nthen {name_b}", no_wrap=True)
    else:  # side by side
        for name in (f"{name_a} sets", f"{name_b} sets"):
            table.add_column(name, no_wrap=True)
    if worth:
        table.add_column("worth to\nthe house", justify="right", no_wrap=True)
        table.add_column("per $100\nwagered", justify="right", no_wrap=True)
    for p in diff.pairs:
        set_a, set_b = p.settings()
        row = [p.a_rule, p.b_rule, f"{p.hands:,}"]
        row += [f"{set_a}\n{set_b}"] if worth else [set_a, set_b]
        if worth:
            row += ["-", "-"] if p.worth is None else [f"{float(p.worth):+.4%}", dollars(p.worth)]
        table.add_row(*row)
    console.print(table)
    if not worth:
        console.print(
            "--worth adds what each difference is worth to the house (an exact edge each)",
            highlight=False,
        )
