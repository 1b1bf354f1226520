"""The operator's floor: per-table running aggregates, the chart's points, theoretical edges by
ruleset identity, and players' limits.

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003_floor"
down_revision = "0002_doors"
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
    # the gaming-day report reads the ledger's transactions by time
    op.create_index("ix_ledger_transactions_created_at", "ledger_transactions", ["created_at"])
    _backfill()


def _backfill() -> None:
    """The running totals and chart points of the rounds played before this revision."""
    conn = op.get_bind()
    wagers: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for rid, amount, returned in conn.execute(
        sa.text("SELECT round_id, amount, returned FROM round_wagers WHERE status <> 'in-play'")
    ):
        wagers[rid].append((int(amount), int(returned or 0)))
    totals: dict[int, dict[str, Any]] = {}
    points: list[dict[str, Any]] = []
    rows = conn.execute(
        sa.text(
            "SELECT id, table_id, phase, result FROM rounds "
            "WHERE phase IN ('settled', 'voided') ORDER BY table_id, number"
        )
    )
    for rid, table_id, phase, result in rows:
        t = totals.setdefault(
            int(table_id),
            dict.fromkeys(
                [
                    "rounds",
                    "hands",
                    "handle",
                    "handle_sq",
                    "round_sq",
                    "player_wins",
                    "player_losses",
                    "commission",
                    "voided_rounds",
                    "voided_returned",
                ],
                0,
            ),
        )
        if phase == "voided":
            t["voided_rounds"] += 1
            t["voided_returned"] += sum(r for _, r in wagers[rid])
            continue
        data = json.loads(result) if isinstance(result, str) else (result or {})
        commission = int((data.get("totals") or {}).get("commission", 0))
        total = 0
        for amount, returned in wagers[rid]:
            t["hands"] += 1
            t["handle"] += amount
            t["handle_sq"] += amount * amount
            total += amount
            if returned == 0:
                t["player_losses"] += amount
            else:
                t["player_wins"] += returned - amount
        t["player_wins"] += commission
        t["commission"] += commission
        t["rounds"] += 1
        t["round_sq"] += total * total
        points.append(
            {
                "table_id": int(table_id),
                "seq": t["rounds"],
                "hands": t["hands"],
                "handle": t["handle"],
                "handle_sq": t["handle_sq"],
                "round_sq": t["round_sq"],
                "result": t["player_losses"] - t["player_wins"] + t["commission"],
            }
        )
    if totals:
        conn.execute(
            sa.text(
                "INSERT INTO floor_tables (table_id, rounds, hands, handle, handle_sq, round_sq, "
                "player_wins, player_losses, commission, voided_rounds, voided_returned, flagged, "
                "updated_at) VALUES (:table_id, :rounds, :hands, :handle, :handle_sq, :round_sq, "
                ":player_wins, :player_losses, :commission, :voided_rounds, :voided_returned, "
                ":flagged, 0)"
            ),
            [{"table_id": k, "flagged": False, **v} for k, v in totals.items()],
        )
    for i in range(0, len(points), 5000):
        conn.execute(
            sa.text(
                "INSERT INTO floor_points (table_id, seq, hands, handle, handle_sq, round_sq, "
                "result) VALUES (:table_id, :seq, :hands, :handle, :handle_sq, :round_sq, :result)"
            ),
            points[i : i + 5000],
        )


def downgrade() -> None:
    op.drop_index("ix_ledger_transactions_created_at", "ledger_transactions")
    for table in ("player_limits", "floor_edges", "floor_points", "floor_tables"):
        op.drop_table(table)
