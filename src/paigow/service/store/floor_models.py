"""The floor's tables (migration ``0003_floor``): running per-table aggregates kept in the
settlement transaction, the chart's points, the theoretical edges by ruleset identity, and players'
limits.

Every money column is integer cents. ``handle_sq`` (the sum of each hand's wager squared) and
``round_sq`` (the sum of each round's total wager squared) give the spread of the hold: see
:mod:`paigow.service.floor.hold`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from paigow.service.store.db import Base, LedgerTransaction


class FloorTable(Base):
    """One table's running totals since it opened (updated with every settlement and void)."""

    __tablename__ = "floor_tables"
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
    rounds: Mapped[int] = mapped_column(sa.Integer, default=0)
    """Rounds settled."""
    hands: Mapped[int] = mapped_column(sa.Integer, default=0)
    """Wagers settled (one hand each)."""
    handle: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """The sum of the settled wagers."""
    handle_sq: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    round_sq: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    player_wins: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """What the bank paid on winning wagers (before commission)."""
    player_losses: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """The wagers the bank took."""
    commission: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    voided_rounds: Mapped[int] = mapped_column(sa.Integer, default=0)
    voided_returned: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    flagged: Mapped[bool] = mapped_column(sa.Boolean, default=False)
    """Outside the 99.9% band now (set and cleared by settlements; each setting is audited)."""
    flag: Mapped[Any | None] = mapped_column(sa.JSON, nullable=True)
    """The figures of the latest flag."""
    updated_at: Mapped[float] = mapped_column(sa.Float, default=0.0)


class FloorSideTotal(Base):
    """One side wager's running totals at one table (migration ``0006_floor_side``), updated in
    the transaction of each settlement that settles it."""

    __tablename__ = "floor_side_totals"
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    wagers: Mapped[int] = mapped_column(sa.Integer, default=0)
    handle: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    handle_sq: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    round_sq: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """The sum over rounds of the round's total of this wager, squared."""
    returned: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    """What the wagers returned (the wager and its win; jackpots included)."""
    envy: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    updated_at: Mapped[float] = mapped_column(sa.Float, default=0.0)


class FloorPoint(Base):
    """The table's cumulative figures after each settled round (the chart's points)."""

    __tablename__ = "floor_points"
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    hands: Mapped[int] = mapped_column(sa.Integer)
    handle: Mapped[int] = mapped_column(sa.BigInteger)
    handle_sq: Mapped[int] = mapped_column(sa.BigInteger)
    round_sq: Mapped[int] = mapped_column(sa.BigInteger)
    result: Mapped[int] = mapped_column(sa.BigInteger)


class FloorEdge(Base):
    """The exact outcome counts of house way against house way for one (house way, wheel): the
    theoretical hold at any commission follows from them."""

    __tablename__ = "floor_edges"
    ident: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    house_way: Mapped[Any] = mapped_column(sa.JSON)
    wheel: Mapped[str] = mapped_column(sa.String(16))
    status: Mapped[str] = mapped_column(sa.String(16))  # computing | ready | failed
    deals: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    win: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    push: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    loss: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    optimal: Mapped[Any | None] = mapped_column(sa.JSON, nullable=True)
    """The optimal player's results by commission, when a saved analysis has them."""
    error: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    started_at: Mapped[float] = mapped_column(sa.Float)
    finished_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)


class PlayerLimit(Base):
    """A player's own limits: a daily loss limit and a self-exclusion."""

    __tablename__ = "player_limits"
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), primary_key=True)
    daily_loss_limit: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    pending_loss_limit: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    """A higher limit (or none: -1) asked for, in force from ``pending_from``."""
    pending_from: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    excluded_until: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    excluded_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    updated_at: Mapped[float] = mapped_column(sa.Float)


# the gaming-day report reads the ledger's transactions by time
ix_ledger_transactions_created_at = sa.Index(
    "ix_ledger_transactions_created_at", LedgerTransaction.created_at
)


class RoundPrice(Base):
    """The price of one hand's setting after its round settled (migration ``0012_prices``,
    :mod:`paigow.service.floor.prices`): the setting played, the best and the house way's, each
    with its exact EV for the wager (``data``: :meth:`paigow.analysis.price.HandPrice.to_dict`),
    or why it is not priced (``status`` ``unavailable``, ``reason``). ``dragon``: the dragon
    hand wagered on from ``spot``."""

    __tablename__ = "round_prices"
    __table_args__ = (sa.Index("ix_round_prices_user_settled", "user_id", "settled_at"),)
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    dragon: Mapped[bool] = mapped_column(sa.Boolean, primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"))
    round_number: Mapped[int] = mapped_column(sa.Integer)
    wager: Mapped[int] = mapped_column(sa.BigInteger)
    settled_at: Mapped[float] = mapped_column(sa.Float)
    status: Mapped[str] = mapped_column(sa.String(16))
    reason: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    given_up: Mapped[float] = mapped_column(sa.Float, default=0.0)
    """What the setting gave up against the best, in cents (for ordering; exact in ``data``)."""
    house_given_up: Mapped[float] = mapped_column(sa.Float, default=0.0)
    data: Mapped[Any | None] = mapped_column(sa.JSON, nullable=True)
    priced_at: Mapped[float] = mapped_column(sa.Float)


class HandRating(Base):
    """One hand of a settled round at a casino table rated by the decision its player made
    (migration ``0013_ratings``, :mod:`paigow.service.floor.ratings`): ``theo_units`` is the
    house's exact theoretical win on it, minus the EV of the setting the player chose for the
    wager, in units of 1/53,524,680 of a cent (an integer: every EV's denominator divides the
    dealer hands); ``status`` ``unavailable`` with the ``reason`` when it cannot be priced."""

    __tablename__ = "hand_ratings"
    __table_args__ = (
        sa.Index("ix_hand_ratings_user_settled", "user_id", "settled_at"),
        sa.Index("ix_hand_ratings_settled", "settled_at"),
    )
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    dragon: Mapped[bool] = mapped_column(sa.Boolean, primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"))
    wager: Mapped[int] = mapped_column(sa.BigInteger)
    settled_at: Mapped[float] = mapped_column(sa.Float)
    status: Mapped[str] = mapped_column(sa.String(16))
    reason: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    theo_units: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    house_units: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    """The same for the house way's setting of the hand (what its play would have given)."""
    rated_at: Mapped[float] = mapped_column(sa.Float)
