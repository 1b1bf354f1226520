"""Reports by gaming day (see :mod:`paigow.service.books.gaming_day`), per table and in total: rounds,
hands, handle, player wins and losses, commission, house result, voided rounds and the wagers they
returned, operator credits and debits, and each side wager's figures by type
(:mod:`paigow.service.floor.day_report_side`) — every figure in integer cents, computed twice
and compared to the cent — and each player rated by their decisions
(:func:`paigow.service.floor.players.day_lines`, apart from the reconciliation):

1. from the **ledger** (entries of the day's transactions on each table's accounts: what left
   ``wagers-in-play`` at a settlement is the handle, what reached ``house:win`` the losses, what
   left it the wins, what reached ``house:commission`` the commission, what left
   ``wagers-in-play`` at a void the returned wagers; ``operator:credits`` the credits and debits),
2. from the **round records** (each settled round's wagers, what each returned and the round's
   commission; each voided round's returned wagers; credits and debits from the transactions'
   own amounts), a round counted on the gaming day of its settlement (or void) transaction;

and the house result once more as the net change of the table's ``house:win`` and
``house:commission`` accounts over the day. A report is produced only when all agree
(``reconciled: true``); otherwise :class:`ReportMismatch` names every difference.

>>> r = empty_figures()
>>> r["handle"], sorted(r)[:3]
(0, ['commission', 'handle', 'hands'])
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import json
from collections import defaultdict
from fractions import Fraction
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.analysis.price import dollars
from paigow.money import format_money
from paigow.service.books.gaming_day import GamingDay
from paigow.service.books.ledger import CREDITS, HOUSE_COMMISSION, HOUSE_WIN, WAGERS
from paigow.service.floor import players
from paigow.service.floor.day_report_side import SIDE_FIELDS, SideBooks, by_type
from paigow.service.statuses import WagerStatus
from paigow.service.store.db import GameTable, LedgerEntry, LedgerTransaction, RoundRow, RoundWager
from paigow.service.store.dragon_models import RoundDragon

FIELDS: Final = (
    "rounds",
    "hands",
    "handle",
    "player_wins",
    "player_losses",
    "commission",
    "house_result",
    "voided_rounds",
    "voided_returned",
    "operator_credits",
    "operator_debits",
)
COMPARED: Final = ("handle", "player_wins", "player_losses", "commission", "voided_returned")


class ReportMismatch(RuntimeError):
    """The round records and the ledger disagree: the report is refused."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the report does not reconcile to the ledger:\n  " + "\n  ".join(problems))
        self.problems = problems


def empty_figures() -> dict[str, int]:
    return dict.fromkeys(FIELDS, 0)


def _table_of(account: str) -> tuple[str, int] | None:
    kind, sep, rest = account.partition(":table-")
    if not sep or not rest.isdigit():
        return None
    return kind, int(rest)


def floor_report(session: Session, first: dt.date, last: dt.date, day: GamingDay) -> dict[str, Any]:
    """The report for gaming days ``first`` .. ``last`` (inclusive)."""
    if last < first:
        raise ValueError(f"--to {last} is before --from {first}")
    if (last - first).days > 366:
        raise ValueError("a report covers at most 367 gaming days")
    gd = day
    start, _ = gd.bounds(first)
    _, end = gd.bounds(last)
    names = dict(session.execute(sa.select(GameTable.id, GameTable.name)).all())

    ledger: dict[tuple[str, int], dict[str, int]] = defaultdict(empty_figures)
    rounds: dict[tuple[str, int], dict[str, int]] = defaultdict(empty_figures)
    accounts_net: dict[tuple[str, int], int] = defaultdict(int)
    credits: dict[str, dict[tuple[str, str], int]] = {
        "ledger": defaultdict(int),
        "records": defaultdict(int),
    }
    txn_day: dict[int, str] = {}
    settled: dict[str, tuple[str, int]] = {}
    voided: dict[str, tuple[str, int]] = {}

    q = (
        sa.select(
            LedgerTransaction.id,
            LedgerTransaction.kind,
            LedgerTransaction.created_at,
            LedgerTransaction.reference,
            LedgerTransaction.amount,
            LedgerEntry.account,
            LedgerEntry.amount,
            LedgerEntry.memo,
        )
        .join(LedgerEntry, LedgerEntry.txn_id == LedgerTransaction.id)
        .where(LedgerTransaction.created_at >= start, LedgerTransaction.created_at < end)
        .order_by(LedgerTransaction.id, LedgerEntry.id)
    )
    sides = SideBooks()
    for txn_id, kind, at, ref, txn_amount, account, amount, memo in session.execute(q):
        if kind.startswith("play-"):
            continue  # play money (practice tables): never the house's money
        d = txn_day.get(txn_id)
        if d is None:
            d = txn_day[txn_id] = gd.day_of(at).isoformat()
            if kind in ("credit", "debit"):
                credits["records"][(d, kind)] += int(txn_amount)
        if account == CREDITS:
            credits["ledger"][(d, kind)] += -amount if kind == "credit" else amount
            continue
        found = _table_of(account)
        side_kind, side_table = found if found is not None else (None, None)
        sides.entry(txn_id, kind, d, side_kind, side_table, account, int(amount), memo)
        if found is None:
            continue
        acc_kind, table_id = found
        key = (d, table_id)
        fig = ledger[key]
        if acc_kind in (HOUSE_WIN, HOUSE_COMMISSION):
            accounts_net[key] += amount
        if kind == "settlement":
            if ref:
                settled[ref] = key
            if acc_kind == WAGERS and amount < 0:
                fig["handle"] += -amount
            elif acc_kind == HOUSE_WIN:
                fig["player_losses" if amount > 0 else "player_wins"] += abs(amount)
            elif acc_kind == HOUSE_COMMISSION and amount > 0:
                fig["commission"] += amount
        elif kind == "void-refund":
            if ref:
                voided[ref] = key
            if acc_kind == WAGERS and amount < 0:
                fig["voided_returned"] += -amount

    # the round records, each on the day of its settlement or void transaction
    for ids, target in ((list(settled), "settled"), (list(voided), "voided")):
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = session.execute(
                sa.select(RoundRow.id, RoundRow.phase, RoundRow.result).where(
                    RoundRow.id.in_(chunk)
                )
            ).all()
            wagers: dict[str, list[tuple[int, int | None, str]]] = defaultdict(list)
            for rid, amount, returned, status in session.execute(
                sa.select(
                    RoundWager.round_id, RoundWager.amount, RoundWager.returned, RoundWager.status
                )
                .where(RoundWager.round_id.in_(chunk))
                .union_all(  # a dragon hand's wager: a hand of the player who wagered on it
                    sa.select(
                        RoundDragon.round_id,
                        RoundDragon.amount,
                        RoundDragon.returned,
                        RoundDragon.status,
                    ).where(RoundDragon.round_id.in_(chunk), RoundDragon.amount.is_not(None))
                )
            ):
                wagers[rid].append(
                    (int(amount), None if returned is None else int(returned), status)
                )
            for rid, _phase, result in rows:
                key = settled[rid] if target == "settled" else voided[rid]
                fig = rounds[key]
                if target == "settled":
                    fig["rounds"] += 1
                    totals = (result or {}).get("totals") or {}
                    commission = int(totals.get("commission", 0))
                    commission += int(totals.get("dragon_commission", 0))
                    fig["commission"] += commission
                    gain = 0
                    for amount, returned, _status in wagers[rid]:
                        fig["hands"] += 1
                        fig["handle"] += amount
                        if not returned:
                            fig["player_losses"] += amount
                        else:
                            gain += returned - amount
                    fig["player_wins"] += gain + commission
                else:
                    fig["voided_rounds"] += 1
                    fig["voided_returned"] += sum(
                        r or 0 for _, r, s in wagers[rid] if s == WagerStatus.RETURNED
                    )

    problems: list[str] = []
    keys = sorted(set(ledger) | set(rounds) | set(accounts_net))
    lines: list[dict[str, Any]] = []
    for key in keys:
        a, b = ledger[key], rounds[key]
        d, table_id = key
        for f in COMPARED:
            if a[f] != b[f]:
                problems.append(
                    f"gaming day {d} table {table_id}: {f} {b[f]} by the round records but "
                    f"{a[f]} by the ledger"
                )
        fig = dict(b)
        fig["house_result"] = b["player_losses"] - b["player_wins"] + b["commission"]
        if fig["house_result"] != accounts_net[key]:
            problems.append(
                f"gaming day {d} table {table_id}: house result {fig['house_result']} but the "
                f"house accounts moved {accounts_net[key]}"
            )
        lines.append({"gaming_day": d, "table_id": table_id, "table": names.get(table_id), **fig})
    sides.records(session, settled, voided)
    side_lines, side_problems = sides.lines(names)
    problems += side_problems
    for k in set(credits["ledger"]) | set(credits["records"]):
        if credits["ledger"][k] != credits["records"][k]:
            problems.append(
                f"gaming day {k[0]}: {k[1]}s {credits['records'][k]} by the transactions but "
                f"{credits['ledger'][k]} by operator:credits"
            )
    if problems:
        raise ReportMismatch(problems)

    days: dict[str, dict[str, int]] = {}
    for i in range((last - first).days + 1):
        days[(first + dt.timedelta(days=i)).isoformat()] = empty_figures()
    for line in lines:
        tot = days.setdefault(line["gaming_day"], empty_figures())
        for f in FIELDS:
            tot[f] += line[f]
    for (d, kind), amount in credits["records"].items():
        days.setdefault(d, empty_figures())["operator_" + kind + "s"] += amount
    total = empty_figures()
    for tot in days.values():
        for f in FIELDS:
            total[f] += tot[f]
    return {
        "from": first.isoformat(),
        "to": last.isoformat(),
        "gaming_day": gd.describe(),
        "window": [start, end],
        "reconciled": True,
        "reconciliation": (
            "every figure was computed from the ledger's entries and from the round records "
            "and agrees to the cent; the house result equals the net change of the tables' "
            "house accounts; credits and debits equal the operator:credits entries"
        ),
        "tables": lines,
        "side_wagers": side_lines,
        "side_wagers_by_type": by_type(side_lines),
        "days": [{"gaming_day": d, **f} for d, f in sorted(days.items())],
        "players": players.day_lines(session, first, last, gd),
        "total": total,
        "currency": "cents",
    }


# ------------------------------------------------------------------------------------ formats
COUNTS: Final = frozenset({"rounds", "hands", "voided_rounds", "wagers"})
"""The figures that are counts; every other figure is an amount of money (cents)."""


def csv_heads(fields: tuple[str, ...]) -> list[str]:
    """The CSV's column names: an amount says its unit.

    >>> csv_heads(("rounds", "handle"))
    ['rounds', 'handle_cents']
    """
    return [f if f in COUNTS else f"{f}_cents" for f in fields]


def to_csv(report: dict[str, Any]) -> str:
    """One line per gaming day and table, then each day's total and the grand total (amounts in
    cents, each such column's name ending ``_cents``)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["gaming_day", "table_id", "table", *csv_heads(FIELDS)])
    for line in report["tables"]:
        w.writerow(
            [line["gaming_day"], line["table_id"], line["table"] or ""] + [line[f] for f in FIELDS]
        )
    for day in report["days"]:
        w.writerow([day["gaming_day"], "", "ALL TABLES"] + [day[f] for f in FIELDS])
    w.writerow(
        [f"{report['from']}..{report['to']}", "", "TOTAL"] + [report["total"][f] for f in FIELDS]
    )
    if report.get("side_wagers"):
        w.writerow([])
        w.writerow(["gaming_day", "table_id", "table", "side_wager", *csv_heads(SIDE_FIELDS)])
        for line in report["side_wagers"]:
            w.writerow(
                [line["gaming_day"], line["table_id"], line["table"] or "", line["wager"]]
                + [line[f] for f in SIDE_FIELDS]
            )
        for t in report["side_wagers_by_type"]:
            w.writerow(
                [t["gaming_day"], "", "ALL TABLES", t["wager"]] + [t[f] for f in SIDE_FIELDS]
            )
    if report.get("players"):
        w.writerow([])
        w.writerow(["gaming_day", "player", "player_id", *PLAYER_FIELDS])
        for p in report["players"]:
            w.writerow([p["gaming_day"], p["username"], p["user_id"], *player_cells(p)])
    w.writerow([f"# reconciled to the ledger to the cent: {str(report['reconciled']).lower()}"])
    return out.getvalue()


PLAYER_FIELDS: Final = ("handle_cents", "actual_cents", "flat_theo", "exact_theo", "hands_rated")
"""The players' columns: the theoretical wins in dollars, rounded to the cent (empty until
the exact edge or hold is known)."""


def player_cells(p: dict[str, Any]) -> list[Any]:
    """A player's figures in the report's CSV and HTML."""
    theo = [
        dollars(Fraction(p[k])) if p[k] is not None else "" for k in ("flat_theo", "exact_theo")
    ]
    return [p["handle"], p["actual"], *theo, f"{p['hands_rated']} of {p['hands']}"]


def to_html(report: dict[str, Any]) -> str:
    """A self-contained HTML page of the report."""
    money = {f for f in FIELDS if f not in ("rounds", "hands", "voided_rounds")}

    def row(cells: list[str], head: bool = False) -> str:
        tag = "th" if head else "td"
        return "<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in cells) + "</tr>"

    def fig(d: dict[str, Any]) -> list[str]:
        return [format_money(d[f]) if f in money else str(d[f]) for f in FIELDS]

    heads = ["Gaming day", "Table", *[f.replace("_", " ") for f in FIELDS]]
    body = [row(heads, head=True)]
    body += [
        row([x["gaming_day"], f"{x['table'] or ''} (#{x['table_id']})", *fig(x)])
        for x in report["tables"]
    ]
    body += [row([d["gaming_day"], "all tables", *fig(d)]) for d in report["days"]]
    body.append(row([f"{report['from']} to {report['to']}", "total", *fig(report["total"])]))
    side = ""
    if report.get("side_wagers"):
        cells = [
            row(
                ["Gaming day", "Table", "Side wager", *[f.replace("_", " ") for f in SIDE_FIELDS]],
                head=True,
            )
        ]

        def sfig(d: dict[str, Any]) -> list[str]:
            return [str(d[f]) if f == "wagers" else format_money(d[f]) for f in SIDE_FIELDS]

        cells += [
            row([x["gaming_day"], f"{x['table'] or ''} (#{x['table_id']})", x["wager"], *sfig(x)])
            for x in report["side_wagers"]
        ]
        cells += [
            row([x["gaming_day"], "all tables", x["wager"], *sfig(x)])
            for x in report["side_wagers_by_type"]
        ]
        side = f"<h2>Side wagers by type</h2><table id='side-wagers'>{''.join(cells)}</table>"
    if report.get("players"):
        heads = ["Gaming day", "Player", "Handle", "Actual", "Flat theo", "Exact theo", "Rated"]
        cells = [row(heads, head=True)]
        for p in report["players"]:
            c = player_cells(p)
            cells.append(
                row(
                    [
                        p["gaming_day"],
                        str(p["username"]),
                        format_money(c[0]),
                        format_money(c[1]),
                        *c[2:],
                    ]
                )
            )
        side += f"<h2>Players rated</h2><table id='players'>{''.join(cells)}</table>"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Floor report {html.escape(report['from'])} to {html.escape(report['to'])}</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:1rem}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:.2rem .4rem;text-align:right}</style></head><body>"
        f"<h1>Floor report, gaming days {html.escape(report['from'])} to {html.escape(report['to'])}</h1>"
        f"<p>Gaming day: {html.escape(report['gaming_day'])}. Amounts in dollars and cents.</p>"
        f"<p id='reconciled'><strong>Reconciled to the ledger to the cent.</strong> "
        f"{html.escape(report['reconciliation'])}.</p>"
        f"<table>{''.join(body)}</table>{side}</body></html>\n"
    )


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    if fmt == "csv":
        return to_csv(report)
    if fmt == "html":
        return to_html(report)
    raise ValueError(f"format must be csv, json or html, not {fmt!r}")
