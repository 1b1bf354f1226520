"""Doors locked: a username key (NFKC, case-folded) unique per user, when each seat's player was
last connected, an index to purge old idempotency keys, and no token secret in the database.

Revision ID: 0002_doors
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0002_doors"
down_revision = "0001"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    # the same as paigow.service.accounts.credentials.username_key (a migration keeps its own copy)
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def upgrade() -> None:
    op.add_column("users", sa.Column("username_key", sa.String(64), nullable=True))
    bind = op.get_bind()
    users = sa.table(
        "users",
        sa.column("id", sa.Integer),
        sa.column("username", sa.String),
        sa.column("username_key", sa.String),
    )
    seen: set[str] = set()
    for uid, name in bind.execute(sa.select(users.c.id, users.c.username).order_by(users.c.id)):
        key = _key(name)
        if key in seen:  # two old accounts that differ only by case: the later keeps its name,
            key = f"{key}#{uid}"  # and logs in with it exactly
        seen.add(key)
        bind.execute(users.update().where(users.c.id == uid).values(username_key=key))
    op.create_index("ux_users_username_key", "users", ["username_key"], unique=True)
    op.add_column("seats", sa.Column("seen_at", sa.Float, nullable=True))
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])
    op.execute("DELETE FROM server_settings WHERE key = 'token_secret'")


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_created_at", "idempotency_keys")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("seen_at")
    op.drop_index("ux_users_username_key", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("username_key")
