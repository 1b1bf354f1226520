"""Sessions' idle expiry and the operators' recovery codes: when a session was last used
(``sessions.last_seen_at``, refused once idle longer than ``session_idle_s``), whether an operator
must enrol a second factor at their next sign-in (``enrolment_required``), and each operator's
ten one-time recovery codes, stored hashed (``recovery_codes``). Model:
``paigow.service.store.session_models``.

Revision ID: 0010_session_idle
Revises: 0009_sessions
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_session_idle"
down_revision = "0009_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("last_seen_at", sa.Float, nullable=True))
    op.create_table(
        "enrolment_required",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_table(
        "recovery_codes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("used_at", sa.Float, nullable=True),
    )
    op.create_index("ix_recovery_codes_user_id", "recovery_codes", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_recovery_codes_user_id", table_name="recovery_codes")
    op.drop_table("recovery_codes")
    op.drop_table("enrolment_required")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("last_seen_at")
