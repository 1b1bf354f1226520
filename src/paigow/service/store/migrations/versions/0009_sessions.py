"""Server-side sessions and the operators' second factor: each token names a session (``sid``);
a revoked session's tokens are refused (``sessions``); an operator's TOTP secret, encrypted, and
the last step a code was accepted at (``operator_totp``). Models:
``paigow.service.store.session_models``. Downgrading drops both tables:
tokens lose their sessions (log in again) and operators their second factor (enrol again).

Revision ID: 0009_sessions
Revises: 0008_meter_shares
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_sessions"
down_revision = "0008_meter_shares"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "operator_totp",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("secret", sa.String(200), nullable=False),
        sa.Column("confirmed_at", sa.Float, nullable=True),
        sa.Column("last_step", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("operator_totp")
    op.drop_index("ix_sessions_user_id", table_name="sessions")
    op.drop_table("sessions")
