"""Side wagers: each round's side wagers and what became of them, the progressive banks with
their meters, and the tables of each bank (models: ``paigow.service.store.bonus_models``).

Revision ID: 0005_side_wagers
Revises: 0004_wallet_version
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_side_wagers"
down_revision = "0004_wallet_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "round_side_wagers",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("spot", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("returned", sa.BigInteger, nullable=True),
        sa.Column("envy", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_round_side_wagers_user_id", "round_side_wagers", ["user_id"])
    op.create_table(
        "progressive_banks",
        sa.Column("bank", sa.String(40), primary_key=True),
        sa.Column("paytable", sa.String(64), nullable=False),
        sa.Column("share", sa.String(32), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("meter", sa.BigInteger, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "progressive_tables",
        sa.Column("bank", sa.String(40), sa.ForeignKey("progressive_banks.bank"), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("progressive_tables")
    op.drop_table("progressive_banks")
    op.drop_index("ix_round_side_wagers_user_id", "round_side_wagers")
    op.drop_table("round_side_wagers")
