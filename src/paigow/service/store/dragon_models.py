"""The dragon hand's table (migration ``0007_dragon``): each round's dragon hand, from its offer
to what became of its wager.

A row is written when the dragon hand is offered (status ``offered``, with the deadline of the
turn of the player it is offered to now), moves to ``declined`` when every player declined, or,
once a player wagers on it, holds that player, the spot of their own wager and the amount, and
moves like a main wager: ``in-play``, then ``settled`` or ``returned`` (a void). Every money
column is integer cents; the wager is held in the table's ``wagers-in-play`` account, so the
ledger's check counts it there (:func:`paigow.service.books.ledger.check`).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from paigow.service.store.db import Base


class RoundDragon(Base):
    """One round's dragon hand: the packet's spot, the offer's turn, the wager and its outcome."""

    __tablename__ = "round_dragons"
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer)
    """The spot whose packet is the dragon hand (a spot without a wager)."""
    status: Mapped[str] = mapped_column(sa.String(16))
    """``offered``, ``declined``, or the wager's (a statuses.WagerStatus)."""
    turn_deadline: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    """While the offer is open: when the turn of the player it is offered to ends."""
    by_spot: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    """The spot of the main wager of the player who wagered on the dragon hand."""
    user_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("users.id"), nullable=True, index=True
    )
    amount: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    returned: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)
    """What the wager returned (wager and win less commission; 0 when lost; the wager on a void)."""
