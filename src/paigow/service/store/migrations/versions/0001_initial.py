"""The table service's first schema: accounts, ledger, tables, rounds and their logs, audit.

Revision ID: 0001
Revises:
Create Date: 2024-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SYSTEM_ACCOUNTS = ("operator:credits",)  # each table opens its own house accounts
APPEND_ONLY = ("round_events", "ledger_entries", "audit_log")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "server_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "accounts",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("reference", sa.String(64), nullable=True),
        sa.Column("actor", sa.String(32), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("txn_id", sa.Integer, sa.ForeignKey("ledger_transactions.id"), nullable=False),
        sa.Column("pair_no", sa.Integer, nullable=False),
        sa.Column("account", sa.String(64), sa.ForeignKey("accounts.name"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("memo", sa.String(64), nullable=True),
    )
    op.create_index("ix_ledger_entries_txn_id", "ledger_entries", ["txn_id"])
    op.create_index("ix_ledger_entries_account", "ledger_entries", ["account"])
    op.create_table(
        "idempotency_keys",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response", sa.JSON, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("ruleset", sa.JSON, nullable=False),
        sa.Column("house_way", sa.JSON, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("betting_time_ms", sa.Integer, nullable=False),
        sa.Column("setting_time_ms", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("created_by", sa.String(32), nullable=False),
        sa.Column("current_round_id", sa.String(32), nullable=True),
        sa.Column("round_count", sa.Integer, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("spot", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("sat_at", sa.Float, nullable=False),
        sa.UniqueConstraint("table_id", "user_id", name="uq_seats_table_user"),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("deadline", sa.Float, nullable=True),
        sa.Column("event_count", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
        sa.UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),
    )
    op.create_index("ix_rounds_table_id", "rounds", ["table_id"])
    op.create_table(
        "round_events",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "round_wagers",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("spot", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("returned", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_round_wagers_user_id", "round_wagers", ["user_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("target", sa.String(64), nullable=True),
        sa.Column("details", sa.JSON, nullable=False),
    )
    accounts = sa.table(
        "accounts",
        sa.column("name", sa.String),
        sa.column("kind", sa.String),
        sa.column("user_id", sa.Integer),
        sa.column("balance", sa.BigInteger),
    )
    op.bulk_insert(
        accounts,
        [{"name": n, "kind": "system", "user_id": None, "balance": 0} for n in SYSTEM_ACCOUNTS],
    )
    _append_only_triggers()


def _append_only_triggers() -> None:
    """The event logs, the ledger's entries and the audit log refuse UPDATE and DELETE."""
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION paigow_append_only() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END; $$ LANGUAGE plpgsql"
        )
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION paigow_append_only()"
            )
    elif dialect == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in APPEND_ONLY:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        elif dialect == "sqlite":
            for verb in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS paigow_append_only()")
    for table in (
        "audit_log",
        "round_wagers",
        "round_events",
        "rounds",
        "seats",
        "game_tables",
        "idempotency_keys",
        "ledger_entries",
        "ledger_transactions",
        "accounts",
        "server_settings",
        "users",
    ):
        op.drop_table(table)
