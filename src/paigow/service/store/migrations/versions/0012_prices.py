"""The price of each setting: ``round_prices``, one row a hand of a settled round at a table
that prices settings (``paigow.service.store.floor_models.RoundPrice``).

Revision ID: 0012_prices
Revises: 0011_play_money
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_prices"
down_revision = "0011_play_money"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "round_prices",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("spot", sa.Integer, primary_key=True),
        sa.Column("dragon", sa.Boolean, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("round_number", sa.Integer, nullable=False),
        sa.Column("wager", sa.BigInteger, nullable=False),
        sa.Column("settled_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("given_up", sa.Float, nullable=False),
        sa.Column("house_given_up", sa.Float, nullable=False),
        sa.Column("data", sa.JSON, nullable=True),
        sa.Column("priced_at", sa.Float, nullable=False),
    )
    op.create_index("ix_round_prices_user_settled", "round_prices", ["user_id", "settled_at"])


def downgrade() -> None:
    op.drop_index("ix_round_prices_user_settled", table_name="round_prices")
    op.drop_table("round_prices")
