"""Play money: the house's ``play:bank`` account, the source of every player's play money (each
player's ``play-wallet:<username>`` opens with their first practice; practice tables play for it,
never for the real wallet: ``paigow.service.books.play_money``).

Revision ID: 0011_play_money
Revises: 0010_session_idle
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_play_money"
down_revision = "0010_session_idle"
branch_labels = None
depends_on = None


def upgrade() -> None:
    accounts = sa.table(
        "accounts",
        sa.column("name", sa.String),
        sa.column("kind", sa.String),
        sa.column("user_id", sa.Integer),
        sa.column("balance", sa.BigInteger),
    )
    op.bulk_insert(
        accounts, [{"name": "play:bank", "kind": "system", "user_id": None, "balance": 0}]
    )


def downgrade() -> None:
    op.execute("DELETE FROM accounts WHERE name = 'play:bank'")
