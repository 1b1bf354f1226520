"""A player's statement: every movement of their wallet in a range of gaming days, in cents, with
the running balance after each, grouped by round (each group names its table and round, for the
round's recall) and the operators' credits and debits on their own lines; in pages of a bounded
size, or all of the range as CSV.

The range is bounded on both ends and at most :data:`MAX_DAYS` gaming days long: a range without
an end (``unbounded-range``), reversed (``reversed-range``) or too long (``range-too-long``) is
refused with a 422 naming it.

>>> check_range(dt.date(2026, 12, 2), dt.date(2026, 12, 1))
Traceback (most recent call last):
...
paigow.service.http_errors.Unprocessable: the statement's range is reversed: from 2026-12-02 is after to 2026-12-01
>>> check_range(dt.date(9999, 12, 31), dt.date(9999, 12, 31))
Traceback (most recent call last):
...
paigow.service.http_errors.Unprocessable: gaming days run from 1970 to 9998: 9999-12-31 to 9999-12-31 is outside
>>> cents_text(-1250), cents_text(5)
('-12.50', '0.05')
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.books.gaming_day import GamingDay
from paigow.service.http_errors import Unprocessable
from paigow.service.store.db import LedgerEntry, LedgerTransaction, RoundRow

MAX_DAYS: Final = 93
"""The longest range one statement covers (a quarter), in gaming days."""
MAX_PAGE: Final = 200
"""The most movements on one page."""
MAX_CSV_ROWS: Final = 20_000
"""The most movements one CSV export holds (a range with more is refused: ask for fewer days)."""
ROUND_KINDS: Final = frozenset(
    {"wager", "settlement", "void-refund", "play-wager", "play-settlement", "play-void-refund"}
)
"""Ledger transactions whose reference is a round's id."""
MIN_YEAR: Final = 1970
MAX_YEAR: Final = 9998
OPERATOR_KINDS: Final = frozenset({"credit", "debit"})

_E: Final = cast(sa.Table, LedgerEntry.__table__)
_T: Final = cast(sa.Table, LedgerTransaction.__table__)
_R: Final = cast(sa.Table, RoundRow.__table__)


def check_range(first: dt.date | None, last: dt.date | None) -> None:
    """Refuse (422, with its code) a range without both ends, reversed, or too long."""
    if first is None or last is None:
        missing = " and ".join(n for n, v in (("from", first), ("to", last)) if v is None)
        raise Unprocessable(
            f"a statement covers a bounded range of gaming days: give {missing} "
            f"(YYYY-MM-DD, at most {MAX_DAYS} days)",
            code="unbounded-range",
        )
    if first.year < MIN_YEAR or last.year > MAX_YEAR:
        raise Unprocessable(
            f"gaming days run from {MIN_YEAR} to {MAX_YEAR}: {first} to {last} is outside",
            code="bad-dates",
        )
    if last < first:
        raise Unprocessable(
            f"the statement's range is reversed: from {first} is after to {last}",
            code="reversed-range",
        )
    if (last - first).days + 1 > MAX_DAYS:
        raise Unprocessable(
            f"a statement covers at most {MAX_DAYS} gaming days; from {first} to {last} is "
            f"{(last - first).days + 1}",
            code="range-too-long",
        )


def cents_text(cents: int) -> str:
    """Cents as a plain decimal amount (CSV): ``-12.50``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _rows(
    session: Session, account: str, start: float, end: float, offset: int, limit: int
) -> list[Any]:
    return list(
        session.execute(
            sa.select(
                _E.c.id,
                _E.c.amount,
                _E.c.memo,
                _T.c.id,
                _T.c.kind,
                _T.c.reference,
                _T.c.actor,
                _T.c.created_at,
                _R.c.table_id,
                _R.c.number,
            )
            .join(_T, _T.c.id == _E.c.txn_id)
            .outerjoin(_R, sa.and_(_R.c.id == _T.c.reference, _T.c.kind.in_(ROUND_KINDS)))
            .where(_E.c.account == account, _T.c.created_at >= start, _T.c.created_at < end)
            .order_by(_E.c.id)
            .offset(offset)
            .limit(limit)
        ).all()
    )


def _sum_before(session: Session, account: str, entry_id: int) -> int:
    return int(
        session.execute(
            sa.select(sa.func.coalesce(sa.func.sum(_E.c.amount), 0)).where(
                _E.c.account == account, _E.c.id < entry_id
            )
        ).scalar_one()
    )


def _range_figures(session: Session, account: str, start: float, end: float) -> tuple[int, int]:
    """How many movements the range holds and their sum."""
    n, total = session.execute(
        sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(_E.c.amount), 0))
        .select_from(_E.join(_T, _T.c.id == _E.c.txn_id))
        .where(_E.c.account == account, _T.c.created_at >= start, _T.c.created_at < end)
    ).one()
    return int(n), int(total)


def _opening(session: Session, account: str, start: float) -> int:
    return int(
        session.execute(
            sa.select(sa.func.coalesce(sa.func.sum(_E.c.amount), 0))
            .select_from(_E.join(_T, _T.c.id == _E.c.txn_id))
            .where(_E.c.account == account, _T.c.created_at < start)
        ).scalar_one()
    )


def _movements(
    session: Session, account: str, rows: list[Any], day: GamingDay
) -> list[dict[str, Any]]:
    if not rows:
        return []
    balance = _sum_before(session, account, int(rows[0][0]))
    out = []
    for eid, amount, memo, tid, kind, ref, actor, at, table_id, number in rows:
        balance += int(amount)
        in_round = kind in ROUND_KINDS and table_id is not None
        out.append(
            {
                "entry_id": int(eid),
                "transaction_id": int(tid),
                "at": float(at),
                "gaming_day": day.day_of(float(at)).isoformat(),
                "kind": kind,
                "memo": memo,
                "amount": int(amount),
                "balance": balance,
                "round_id": ref if in_round else None,
                "table_id": int(table_id) if in_round else None,
                "round_number": int(number) if in_round else None,
                "operator": actor if kind in OPERATOR_KINDS else None,
            }
        )
    return out


def _groups(movements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The movements grouped by round (in the order each round first moves money), an
    operator's credit or debit (or any other movement) a group of its own."""
    groups: dict[Any, dict[str, Any]] = {}
    for m in movements:
        key = m["round_id"] or ("transaction", m["transaction_id"])
        g = groups.get(key)
        if g is None:
            g = groups[key] = {
                "round_id": m["round_id"],
                "table_id": m["table_id"],
                "round_number": m["round_number"],
                "recall": (f"#/recall/{m['table_id']}/{m['round_id']}" if m["round_id"] else None),
                "kind": "round" if m["round_id"] else m["kind"],
                "net": 0,
                "movements": [],
            }
        g["net"] += m["amount"]
        g["movements"].append(m)
    return list(groups.values())


def statement(
    session: Session,
    account: str,
    first: dt.date | None,
    last: dt.date | None,
    page: int = 1,
    size: int = 50,
    *,
    day: GamingDay,
) -> dict[str, Any]:
    """Page ``page`` (``size`` movements, at most :data:`MAX_PAGE`) of ``account``'s statement
    for gaming days ``first`` .. ``last``: the range's opening and closing balances, the page's
    movements grouped by round, each with the balance after it."""
    check_range(first, last)
    assert first is not None and last is not None
    if not 1 <= size <= MAX_PAGE:
        raise Unprocessable(f"a page holds 1 to {MAX_PAGE} movements", code="bad-page-size")
    if page < 1:
        raise Unprocessable("pages are numbered from 1", code="bad-page")
    start, end = day.bounds(first)[0], day.bounds(last)[1]
    count, total = _range_figures(session, account, start, end)
    opening = _opening(session, account, start)
    rows = _rows(session, account, start, end, (page - 1) * size, size)
    movements = _movements(session, account, rows, day)
    return {
        "account": account,
        "from": first.isoformat(),
        "to": last.isoformat(),
        "gaming_day": day.describe(),
        "opening_balance": opening,
        "closing_balance": opening + total,
        "movements_in_range": count,
        "page": page,
        "page_size": size,
        "pages": max(1, -(-count // size)),
        "groups": _groups(movements),
    }


CSV_COLUMNS: Final = (
    "time_utc",
    "gaming_day",
    "kind",
    "table_id",
    "round_number",
    "round_id",
    "memo",
    "amount",
    "balance",
    "operator",
)


def statement_csv(
    session: Session,
    account: str,
    first: dt.date | None,
    last: dt.date | None,
    *,
    day: GamingDay,
) -> str:
    """The whole range as CSV, one line a movement (amounts and balances in dollars), in the
    order they happened; refused (``too-many-rows``) past :data:`MAX_CSV_ROWS`."""
    check_range(first, last)
    assert first is not None and last is not None
    start, end = day.bounds(first)[0], day.bounds(last)[1]
    count, _ = _range_figures(session, account, start, end)
    if count > MAX_CSV_ROWS:
        raise Unprocessable(
            f"the range holds {count:,} movements, more than one export's {MAX_CSV_ROWS:,}: "
            "ask for fewer days",
            code="too-many-rows",
        )
    moves = _movements(session, account, _rows(session, account, start, end, 0, count), day)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for m in moves:
        when = dt.datetime.fromtimestamp(m["at"], dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
        w.writerow(
            [
                when,
                m["gaming_day"],
                m["kind"],
                m["table_id"] or "",
                m["round_number"] or "",
                m["round_id"] or "",
                m["memo"] or "",
                cents_text(m["amount"]),
                cents_text(m["balance"]),
                m["operator"] or "",
            ]
        )
    return out.getvalue()
