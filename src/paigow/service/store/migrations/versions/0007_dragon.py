"""The dragon hand: each round's dragon hand, its offer and its wager (model:
``paigow.service.store.dragon_models.RoundDragon``).

Revision ID: 0007_dragon
Revises: 0006_floor_side
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_dragon"
down_revision = "0006_floor_side"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "round_dragons",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("spot", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("turn_deadline", sa.Float, nullable=True),
        sa.Column("by_spot", sa.Integer, nullable=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("amount", sa.BigInteger, nullable=True),
        sa.Column("returned", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_round_dragons_user_id", "round_dragons", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_round_dragons_user_id", "round_dragons")
    op.drop_table("round_dragons")
