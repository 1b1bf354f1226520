"""The gaming-day report's side wagers, per gaming day, table and wager type, computed twice and
compared to the cent (see :mod:`paigow.service.floor.day_report`):

1. from the **ledger**: at a settlement, what left ``side-wagers-in-play:table-t`` is the handle;
   what left ``house:side-win:table-t`` and what a jackpot took from ``progressive:meter:<bank>``
   what the wagers returned; what left ``house:envy:table-t`` the Envy paid; at a void, what left
   ``side-wagers-in-play`` the returned wagers. Each entry's memo (``spot N NAME ...``) names
   the wager; a meter's entries belong to the table of their settlement (a share goes into
   ``progressive:meter:shares:table-t``; the sweep of every table's shares into the bank's
   account before a jackpot moves nothing out of the meters: it is no figure);
2. from the **records** of the side wagers (``round_side_wagers``) of the same rounds;

and the house's result, ``handle - returned - Envy``, once more from the accounts: the net change
of ``house:side-win`` and ``house:envy`` plus what the table's wagers put into the meters less
the jackpots the meters paid (a meter is a liability: the seeds and resets are the house's own
money moved into it, not a result).

>>> memo_name("spot 3 fortune envy"), memo_name("spot 1 jackpot meter"), memo_name(None)
('fortune', 'jackpot', None)
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.books.ledger import HOUSE_ENVY, HOUSE_SIDE_WIN, METER, SIDE_WAGERS, kind_of
from paigow.service.statuses import WagerStatus
from paigow.service.store.bonus_models import RoundSideWager

SIDE_FIELDS: Final = (
    "wagers",
    "handle",
    "returned",
    "envy_paid",
    "house_result",
    "voided_returned",
)
SIDE_COMPARED: Final = ("handle", "returned", "envy_paid", "voided_returned")

Key = tuple[str, int, str]  # gaming day, table, wager name


def memo_name(memo: str | None) -> str | None:
    """The side wager a ledger entry's memo names (``spot N NAME[ what]``)."""
    parts = (memo or "").split()
    if len(parts) < 3 or parts[0] != "spot":
        return None
    return parts[2]


def empty_side() -> dict[str, int]:
    return dict.fromkeys(SIDE_FIELDS, 0)


class SideBooks:
    """Collects the side wagers' figures from the ledger's entries (:meth:`entry`, in entry
    order) and from their records (:meth:`records`), then compares them (:meth:`lines`)."""

    def __init__(self) -> None:
        self.ledger: dict[Key, dict[str, int]] = defaultdict(empty_side)
        self.records_: dict[Key, dict[str, int]] = defaultdict(empty_side)
        self.accounts_net: dict[tuple[str, int], int] = defaultdict(int)
        self.txn_table: dict[int, tuple[str, int]] = {}
        self.meter_entries: list[tuple[int, str, int, str | None]] = []

    def entry(
        self,
        txn_id: int,
        kind: str,
        day: str,
        acc_kind: str | None,
        table_id: int | None,
        account: str,
        amount: int,
        memo: str | None,
    ) -> None:
        """One ledger entry of the window (``acc_kind``/``table_id``: a table's account)."""
        if table_id is not None:
            self.txn_table.setdefault(txn_id, (day, table_id))
        if kind_of(account) == METER and kind == "settlement":
            self.meter_entries.append((txn_id, day, amount, memo))
            return
        if acc_kind not in (SIDE_WAGERS, HOUSE_SIDE_WIN, HOUSE_ENVY) or table_id is None:
            return
        name = memo_name(memo)
        if acc_kind in (HOUSE_SIDE_WIN, HOUSE_ENVY):
            self.accounts_net[(day, table_id)] += amount
        if name is None:
            return
        fig = self.ledger[(day, table_id, name)]
        if kind == "settlement":
            if acc_kind == SIDE_WAGERS and amount < 0:
                fig["handle"] += -amount
            elif acc_kind == HOUSE_SIDE_WIN and amount < 0:
                fig["returned"] += -amount
            elif acc_kind == HOUSE_ENVY and amount < 0:
                fig["envy_paid"] += -amount
        elif kind == "void-refund" and acc_kind == SIDE_WAGERS and amount < 0:
            fig["voided_returned"] += -amount

    def records(
        self,
        session: Session,
        settled: dict[str, tuple[str, int]],
        voided: dict[str, tuple[str, int]],
    ) -> None:
        """The side wagers' records of the rounds settled (or voided) in the window."""
        for rounds, done in ((settled, True), (voided, False)):
            ids = list(rounds)
            for i in range(0, len(ids), 500):
                q = sa.select(
                    RoundSideWager.round_id,
                    RoundSideWager.name,
                    RoundSideWager.amount,
                    RoundSideWager.status,
                    RoundSideWager.returned,
                    RoundSideWager.envy,
                ).where(RoundSideWager.round_id.in_(ids[i : i + 500]))
                for rid, name, amount, status, returned, envy in session.execute(q):
                    day, table_id = rounds[rid]
                    fig = self.records_[(day, table_id, str(name))]
                    if done and status == WagerStatus.SETTLED:
                        fig["wagers"] += 1
                        fig["handle"] += int(amount)
                        fig["returned"] += int(returned or 0)
                        fig["envy_paid"] += int(envy or 0)
                    elif not done and status == WagerStatus.RETURNED:
                        fig["voided_returned"] += int(returned or 0)

    def lines(self, names: dict[int, str]) -> tuple[list[dict[str, Any]], list[str]]:
        """Each (gaming day, table, wager) line, and every difference found."""
        meter_net: dict[tuple[str, int], int] = defaultdict(int)
        problems: list[str] = []
        for txn_id, _day, amount, memo in self.meter_entries:
            where = self.txn_table.get(txn_id)
            what = (memo or "").rsplit(" ", 1)[-1]
            if where is None:
                problems.append(f"ledger transaction {txn_id}: a meter entry of no table")
                continue
            name = memo_name(memo)
            if what == "jackpot" and name is not None:
                self.ledger[(where[0], where[1], name)]["returned"] += -amount
                meter_net[where] += amount
            elif what == "meter":
                meter_net[where] += amount
        out: list[dict[str, Any]] = []
        result_by_table: dict[tuple[str, int], int] = defaultdict(int)
        for key in sorted(set(self.ledger) | set(self.records_)):
            a, b = self.ledger[key], self.records_[key]
            day, table_id, name = key
            for f in SIDE_COMPARED:
                if a[f] != b[f]:
                    problems.append(
                        f"gaming day {day} table {table_id} side wager {name}: {f} {b[f]} by "
                        f"the records but {a[f]} by the ledger"
                    )
            fig = dict(b)
            fig["house_result"] = b["handle"] - b["returned"] - b["envy_paid"]
            result_by_table[(day, table_id)] += fig["house_result"]
            out.append(
                {
                    "gaming_day": day,
                    "table_id": table_id,
                    "table": names.get(table_id),
                    "wager": name,
                    **fig,
                }
            )
        for where in set(result_by_table) | set(self.accounts_net) | set(meter_net):
            moved = self.accounts_net[where] + meter_net[where]
            if result_by_table[where] != moved:
                problems.append(
                    f"gaming day {where[0]} table {where[1]}: side wagers' house result "
                    f"{result_by_table[where]} but the house's side accounts and the meters "
                    f"moved {moved}"
                )
        return out, problems


def by_type(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The side-wager lines summed by gaming day and wager type (all tables)."""
    days: dict[tuple[str, str], dict[str, int]] = defaultdict(empty_side)
    for line in lines:
        tot = days[(line["gaming_day"], line["wager"])]
        for f in SIDE_FIELDS:
            tot[f] += line[f]
    return [{"gaming_day": d, "wager": w, **f} for (d, w), f in sorted(days.items())]
