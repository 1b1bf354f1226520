"""The operator's floor: per-table running aggregates, the chart's points, theoretical edges by
ruleset identity, and players' limits.

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_floor"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "floor_tables",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("handle", sa.BigInteger, nullable=False),
        sa.Column("handle_sq", sa.BigInteger, nullable=False),
        sa.Column("round_sq", sa.BigInteger, nullable=False),
        sa.Column("player_wins", sa.BigInteger, nullable=False),
        sa.Column("player_losses", sa.BigInteger, nullable=False),
        sa.Column("commission", sa.BigInteger, nullable=False),
        sa.Column("voided_rounds", sa.Integer, nullable=False),
        sa.Column("voided_returned", sa.BigInteger, nullable=False),
        sa.Column("flagged", sa.Boolean, nullable=False),
        sa.Column("flag", sa.JSON, nullable=True),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "floor_points",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("handle", sa.BigInteger, nullable=False),
        sa.Column("handle_sq", sa.BigInteger, nullable=False),
        sa.Column("round_sq", sa.BigInteger, nullable=False),
        sa.Column("result", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "floor_edges",
        sa.Column("ident", sa.String(64), primary_key=True),
        sa.Column("house_way", sa.JSON, nullable=False),
        sa.Column("wheel", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("deals", sa.BigInteger, nullable=True),
        sa.Column("win", sa.BigInteger, nullable=True),
        sa.Column("push", sa.BigInteger, nullable=True),
        sa.Column("loss", sa.BigInteger, nullable=True),
        sa.Column("optimal", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_table(
        "player_limits",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("daily_loss_limit", sa.BigInteger, nullable=True),
        sa.Column("pending_loss_limit", sa.BigInteger, nullable=True),
        sa.Column("pending_from", sa.Float, nullable=True),
        sa.Column("excluded_until", sa.Float, nullable=True),
        sa.Column("excluded_at", sa.Float, nullable=True),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    # the report finds a round's settlement by its reference
    op.create_index("ix_ledger_transactions_created_at", "ledger_transactions", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_ledger_transactions_created_at", "ledger_transactions")
    for table in ("player_limits", "floor_edges", "floor_points", "floor_tables"):
        op.drop_table(table)
