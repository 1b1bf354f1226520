"""The rounds waiting for their rating found from the newest rated one, not from the first round
ever settled: ``rounds.ended_at`` and ``hand_ratings.settled_at`` indexed
(``paigow.service.floor.ratings.waiting_query``; the gaming day's reads by ``ended_at`` use the
first too).

Revision ID: 0014_waiting_index
Revises: 0013_ratings
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0014_waiting_index"
down_revision = "0013_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_ended_at", "rounds", ["ended_at"])
    op.create_index("ix_hand_ratings_settled", "hand_ratings", ["settled_at"])


def downgrade() -> None:
    op.drop_index("ix_hand_ratings_settled", table_name="hand_ratings")
    op.drop_index("ix_rounds_ended_at", table_name="rounds")
