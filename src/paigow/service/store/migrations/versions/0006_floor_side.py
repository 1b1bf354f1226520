"""The floor's side wagers: each side wager's running totals at each table
(``floor_side_totals``; model: ``paigow.service.store.floor_models.FloorSideTotal``), filled from
the side wagers already settled.

Revision ID: 0006_floor_side
Revises: 0005_side_wagers
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_floor_side"
down_revision = "0005_side_wagers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "floor_side_totals",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("wagers", sa.Integer, nullable=False),
        sa.Column("handle", sa.BigInteger, nullable=False),
        sa.Column("handle_sq", sa.BigInteger, nullable=False),
        sa.Column("round_sq", sa.BigInteger, nullable=False),
        sa.Column("returned", sa.BigInteger, nullable=False),
        sa.Column("envy", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    # the side wagers settled before this revision: each round's sums, then each table's
    op.execute(
        """
        INSERT INTO floor_side_totals
            (table_id, name, wagers, handle, handle_sq, round_sq, returned, envy, updated_at)
        SELECT table_id, name, SUM(n), SUM(w), SUM(sq), SUM(w * w), SUM(r), SUM(e), 0.0
        FROM (
            SELECT rounds.table_id AS table_id, s.name AS name, COUNT(*) AS n,
                   SUM(s.amount) AS w, SUM(s.amount * s.amount) AS sq,
                   SUM(COALESCE(s.returned, 0)) AS r, SUM(s.envy) AS e
            FROM round_side_wagers AS s JOIN rounds ON rounds.id = s.round_id
            WHERE s.status = 'settled'
            GROUP BY rounds.table_id, s.round_id, s.name
        ) AS per_round
        GROUP BY table_id, name
        """
    )


def downgrade() -> None:
    op.drop_table("floor_side_totals")
