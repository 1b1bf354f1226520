"""Players rated by their decisions: ``hand_ratings``, one row a hand of a settled round at a
casino table, with the exact theoretical win of the setting the player chose
(``paigow.service.store.floor_models.HandRating``).

Revision ID: 0013_ratings
Revises: 0012_prices
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_ratings"
down_revision = "0012_prices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hand_ratings",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("spot", sa.Integer, primary_key=True),
        sa.Column("dragon", sa.Boolean, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("wager", sa.BigInteger, nullable=False),
        sa.Column("settled_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("theo_units", sa.BigInteger, nullable=True),
        sa.Column("house_units", sa.BigInteger, nullable=True),
        sa.Column("rated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_hand_ratings_user_settled", "hand_ratings", ["user_id", "settled_at"])


def downgrade() -> None:
    op.drop_index("ix_hand_ratings_user_settled", table_name="hand_ratings")
    op.drop_table("hand_ratings")
