"""The side wagers' tables (migration ``0005_side_wagers``): who holds each side wager of a round
and what became of it, the progressive banks with their meters, and which tables share each bank.

Every money column is integer cents. A bank's ``meter`` is the jackpot a hit pays now: it equals
the balance of the bank's ledger account ``progressive:meter:<bank>`` at every commit
(:func:`paigow.service.books.ledger.check` checks it); ``version`` counts its changes, so that the
live feeds show the latest meter whatever order its notices arrive in.
"""

from __future__ import annotations

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
    meter: Mapped[int] = mapped_column(sa.BigInteger)
    version: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    updated_at: Mapped[float] = mapped_column(sa.Float)


class ProgressiveTable(Base):
    """A table of a bank (its meter is pushed to the table's viewers)."""

    __tablename__ = "progressive_tables"
    bank: Mapped[str] = mapped_column(sa.ForeignKey("progressive_banks.bank"), primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
