"""``paigow house-way test``: run a cases file of expected settings against a house way
(docs/house-way.md#expected-settings): each disagreement with the rule that set the hand, a
summary; exit status 0 when every case agrees, 1 when any disagrees, 2 for a malformed file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paigow.cli import common
from paigow.cli.common import load_house_way, out_console
from paigow.errors import HouseWayError
from paigow.house_way import HouseWay
from paigow.house_way.cases import CaseResult, Cases, preset_cases, read_cases, run_cases

WayArg = Annotated[
    str, typer.Argument(metavar="NAME|FILE", help="A preset's name or a house-way file.")
]
CasesArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="CASES",
        help="The cases file (TOML). Left out: a preset's shipped cases, or FILE's own "
        "beside it (mine.cases.toml for mine.toml).",
        show_default=False,
    ),
]


def test_command(house_way: WayArg, cases: CasesArg = None) -> None:
    """Set each case's seven cards by the house way and compare with the high, low and rule id
    the case expects; print each disagreement (the hand, what was expected, what was set and by
    which rule) and a summary. Exit status 1 when any case disagrees, 2 for a malformed cases
    file."""
    way = load_house_way(house_way)
    read = _cases(way, house_way, cases)
    results = run_cases(way, read)
    console = out_console()
    if read.house_way and read.house_way != way.name:
        console.print(
            f"note: these cases were written for {read.house_way!r}", highlight=False, markup=False
        )
    wrong = [r for r in results if not r.agrees]
    for r in wrong:
        console.print(_disagreement(way, read, r), highlight=False, markup=False, soft_wrap=True)
    agree = len(results) - len(wrong)
    summary = f"{way.origin or way.name} against {read.origin}: {len(results)} case{'' if len(results) == 1 else 's'}, {agree} agree"
    console.print(
        summary + (f", {len(wrong)} disagree" if wrong else ""),
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    if wrong:
        raise typer.Exit(1)


def fail(message: str) -> typer.Exit:
    """``error: message`` (its brackets, ``[[case]]``, printed as they are); exit status 2."""
    return common.fail(message)


def _cases(way: HouseWay, given: str, path: Path | None) -> Cases:
    """The cases file named, else the preset's shipped one, else ``<stem>.cases.toml`` beside
    the house way's file; exit status 2 where there is none or it is malformed."""
    if path is None:
        shipped = preset_cases(way.name.lower()) if way.is_preset else None
        if shipped is not None:
            return shipped
        beside = Path(given).with_suffix(".cases.toml")
        if not Path(given).is_file() or not beside.is_file():
            raise fail(
                f"no cases for {way.name!r}: give a cases file (only the presets ship theirs; a "
                f"file's are looked for beside it, as {beside.name})"
            )
        path = beside
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise fail(f"cannot read cases file {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise fail(f"cases file {str(path)!r} is not UTF-8 text") from None
    try:
        return read_cases(text, str(path))
    except HouseWayError as exc:
        raise fail(str(exc)) from None


def _disagreement(way: HouseWay, cases: Cases, r: CaseResult) -> str:
    """A disagreement in a few lines: the case, what it expected, what was set, by which rule."""
    case = r.case
    hand = " ".join(c.code for c in case.hand)
    lines = [f"{cases.origin}:{case.line}: case {case.number}: {hand}"]
    lines.append(f"  expected: {case.expected}")
    if r.got is None:
        lines.append(f"  got:      {r.problems[0]}")
    else:
        high = " ".join(c.code for c in r.got.setting.high)
        low = " ".join(c.code for c in r.got.setting.low)
        rule = way.rules[r.rule_number - 1]
        lines.append(
            f"  got:      high {high}, low {low} by rule {r.got.rule} "
            f"(rule {r.rule_number}, {way.where(rule)})"
        )
        lines += [f"  differs:  {p}" for p in r.problems]
    if case.why:
        lines.append(f"  why:      {case.why}")
    return "\n".join(lines)
