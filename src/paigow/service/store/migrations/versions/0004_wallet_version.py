"""A version on each account that counts a wallet's balance changes, so that the balance can
travel in the change's notice (a watcher keeps the highest version) instead of being read back.

Revision ID: 0004_wallet_version
Revises: 0003_floor
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_wallet_version"
down_revision = "0003_floor"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ALTER TABLE on both back ends (SQLite adds and drops columns in place since 3.35,
    # where a batch copy of the table would trip the foreign keys that point at it)
    op.add_column(
        "accounts", sa.Column("version", sa.BigInteger, nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.drop_column("accounts", "version")
