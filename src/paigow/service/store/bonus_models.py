"""The side wagers' tables (migrations ``0005_side_wagers`` and ``0008_meter_shares``): who holds
each side wager of a round and what became of it, the progressive banks with their meters, and
which tables share each bank.

Every money column is integer cents. A bank's meter (the jackpot a hit pays now) is kept in
parts, so that the settlements of different tables never wait on one shared row: the bank's
``base`` (what the last hit, seed or reset left) and each of its tables' ``contribution`` (the
shares that table's settlements added since). The meter is their sum (:func:`meter_totals`);
the base equals the balance of the bank's ledger account ``progressive:meter:<bank>`` and a
table's contributions to its banks that of ``progressive:meter:shares:table-<t>`` at every commit
(:func:`paigow.service.books.ledger.check` checks both). The meter's version is the bank's
``version`` plus its tables' (each counts its own row's changes, so their sum only grows), so
that the live feeds show the latest meter whatever order its notices arrive in.
"""

from __future__ import annotations

from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from paigow.service.store.db import Base


class RoundSideWager(Base):
    """One side wager of a round: its spot, the offer's name, its holder and its outcome."""

    __tablename__ = "round_side_wagers"
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    amount: Mapped[int] = mapped_column(sa.BigInteger)
    status: Mapped[str] = mapped_column(sa.String(16))  # a statuses.WagerStatus
    returned: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    """What the wager returned (wager and win; 0 when lost; the wager on a void)."""
    envy: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """The Envy bonus it was paid for the other players' hands."""


class ProgressiveBank(Base):
    """A progressive jackpot shared by a bank of tables."""

    __tablename__ = "progressive_banks"
    bank: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    paytable: Mapped[str] = mapped_column(sa.String(64))
    """The pay table's name (every table of the bank offers the same progressive)."""
    share: Mapped[str] = mapped_column(sa.String(32))
    """The exact share of each wager that goes to the meter (a fraction, e.g. ``3/20``)."""
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    """What the house seeds the meter with, and resets it to after a hit."""
    base: Mapped[int] = mapped_column(sa.BigInteger)
    """The meter less its tables' contributions: what the last hit, seed or reset left (a hit,
    a seed or a reset sweeps the contributions into it)."""
    version: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """How many times the base has changed (the meter's version adds its tables')."""
    updated_at: Mapped[float] = mapped_column(sa.Float)


class ProgressiveTable(Base):
    """A table of a bank (its meter is pushed to the table's viewers) and what its settlements
    added to the bank's meter since the last sweep."""

    __tablename__ = "progressive_tables"
    bank: Mapped[str] = mapped_column(sa.ForeignKey("progressive_banks.bank"), primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
    contribution: Mapped[int] = mapped_column(sa.BigInteger, default=0, server_default="0")
    """The shares this table's settled wagers added to the meter since the bank's last hit,
    seed or reset (held in the ledger's ``progressive:meter:shares:table-<t>``)."""
    version: Mapped[int] = mapped_column(sa.BigInteger, default=0, server_default="0")
    """How many times this row has changed (a part of the meter's version)."""


MEMBER = sa.alias(ProgressiveTable.__table__, "member")
"""The table a bank's meter is read for, in :func:`meter_totals` ``by_table``."""


def meter_totals(by_table: bool = False) -> sa.Select[Any]:
    """Each bank's meter and its version: (bank, base + contributions, version + the tables'
    versions), one row per bank (add a ``where`` on ``ProgressiveBank.bank``); ``by_table``:
    (table, bank, meter, version), one row per table of a bank (a ``where`` on
    ``MEMBER.c.table_id``)."""
    banks = cast(sa.Table, ProgressiveBank.__table__)
    tables = cast(sa.Table, ProgressiveTable.__table__)
    meter = (banks.c.base + sa.func.coalesce(sa.func.sum(tables.c.contribution), 0)).label("meter")
    version = (banks.c.version + sa.func.coalesce(sa.func.sum(tables.c.version), 0)).label(
        "version"
    )
    both = banks.outerjoin(tables, tables.c.bank == banks.c.bank)
    group = (banks.c.bank, banks.c.base, banks.c.version)
    if not by_table:
        return sa.select(banks.c.bank, meter, version).select_from(both).group_by(*group)
    return (
        sa.select(MEMBER.c.table_id, banks.c.bank, meter, version)
        .select_from(
            banks.join(MEMBER, MEMBER.c.bank == banks.c.bank).outerjoin(
                tables, tables.c.bank == banks.c.bank
            )
        )
        .group_by(MEMBER.c.table_id, *group)
    )
