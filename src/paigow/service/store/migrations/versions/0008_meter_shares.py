"""A progressive meter kept in parts, so that the settlements of a bank's tables never wait on one
shared row: the bank's ``meter`` becomes its ``base``, each table of a bank gets its
``contribution`` (the shares its settlements added since the last hit, seed or reset) and a
``version``, and each such table its ledger account ``progressive:meter:shares:table-<t>``
(model: ``paigow.service.store.bonus_models``). The meter is the base plus the contributions:
an existing meter stays whole in the base, every contribution starts at zero, so every meter,
its version and every account's balance are what they were.

Downgrading sweeps each bank's contributions into its base (a ledger transaction
``progressive-sweep`` per bank, from the tables' accounts to the bank's, so that the ledger
still balances) and drops the columns; the tables' accounts that no entry names are removed,
the others stay, emptied.

Revision ID: 0008_meter_shares
Revises: 0007_dragon
Create Date: 2026-12-03
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0008_meter_shares"
down_revision = "0007_dragon"
branch_labels = None
depends_on = None

SHARES = "progressive:meter:shares:table-"
_BANK_TABLES = sa.table(
    "progressive_tables",
    sa.column("bank", sa.String),
    sa.column("table_id", sa.Integer),
    sa.column("contribution", sa.BigInteger),
    sa.column("version", sa.BigInteger),
)
_ACCOUNTS = sa.table(
    "accounts",
    sa.column("name", sa.String),
    sa.column("kind", sa.String),
    sa.column("user_id", sa.Integer),
    sa.column("balance", sa.BigInteger),
    sa.column("version", sa.BigInteger),
)
_ENTRIES = sa.table(
    "ledger_entries",
    sa.column("txn_id", sa.Integer),
    sa.column("pair_no", sa.Integer),
    sa.column("account", sa.String),
    sa.column("amount", sa.BigInteger),
    sa.column("memo", sa.String),
)
_TXNS = sa.table(
    "ledger_transactions",
    sa.column("id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("amount", sa.BigInteger),
    sa.column("reference", sa.String),
    sa.column("actor", sa.String),
    sa.column("created_at", sa.Float),
)


def upgrade() -> None:
    # plain ALTER TABLE on both back ends (a batch copy of progressive_banks would trip the
    # foreign keys of progressive_tables that point at it)
    op.execute("ALTER TABLE progressive_banks RENAME COLUMN meter TO base")
    for column in ("contribution", "version"):
        op.add_column(
            "progressive_tables",
            sa.Column(column, sa.BigInteger, nullable=False, server_default="0"),
        )
    conn = op.get_bind()
    tables = {int(t) for (t,) in conn.execute(sa.select(_BANK_TABLES.c.table_id))}
    known = {str(n) for (n,) in conn.execute(sa.select(_ACCOUNTS.c.name))}
    rows = [
        {"name": f"{SHARES}{t}", "kind": "system", "user_id": None, "balance": 0, "version": 0}
        for t in sorted(tables)
        if f"{SHARES}{t}" not in known  # (kept by a downgrade)
    ]
    if rows:
        conn.execute(sa.insert(_ACCOUNTS), rows)


def downgrade() -> None:
    conn = op.get_bind()
    banks = sa.table(
        "progressive_banks",
        sa.column("bank", sa.String),
        sa.column("base", sa.BigInteger),
        sa.column("version", sa.BigInteger),
    )
    parts: dict[str, list[tuple[int, int, int]]] = {}
    for bank, table_id, contribution, version in conn.execute(
        sa.select(_BANK_TABLES).order_by(_BANK_TABLES.c.bank, _BANK_TABLES.c.table_id)
    ):
        parts.setdefault(str(bank), []).append((int(table_id), int(contribution), int(version)))
    for bank, rows in parts.items():
        swept = [(t, c) for t, c, _v in rows if c]
        if swept:
            txn = conn.execute(
                sa.insert(_TXNS)
                .values(
                    kind="progressive-sweep",
                    amount=0,
                    reference=f"bank:{bank}",
                    actor="migration",
                    created_at=time.time(),
                )
                .returning(_TXNS.c.id)
            ).scalar_one()
            account = f"progressive:meter:{bank}"
            entries = []
            for pair, (t, c) in enumerate(swept):
                memo = f"table {t} shares swept"
                entries += [
                    {
                        "txn_id": txn,
                        "pair_no": pair,
                        "account": f"{SHARES}{t}",
                        "amount": -c,
                        "memo": memo,
                    },
                    {"txn_id": txn, "pair_no": pair, "account": account, "amount": c, "memo": memo},
                ]
                conn.execute(
                    sa.update(_ACCOUNTS)
                    .where(_ACCOUNTS.c.name == f"{SHARES}{t}")
                    .values(balance=_ACCOUNTS.c.balance - c)
                )
            conn.execute(sa.insert(_ENTRIES), entries)
            conn.execute(
                sa.update(_ACCOUNTS)
                .where(_ACCOUNTS.c.name == account)
                .values(balance=_ACCOUNTS.c.balance + sum(c for _t, c in swept))
            )
        # the meter whole in the base; its version still the sum, so it only grows
        conn.execute(
            sa.update(banks)
            .where(banks.c.bank == bank)
            .values(
                base=banks.c.base + sum(c for _t, c, _v in rows),
                version=banks.c.version + sum(v for _t, _c, v in rows),
            )
        )
    named = sa.select(_ENTRIES.c.account).where(_ENTRIES.c.account == _ACCOUNTS.c.name)
    conn.execute(sa.delete(_ACCOUNTS).where(_ACCOUNTS.c.name.like(f"{SHARES}%"), ~sa.exists(named)))
    for column in ("version", "contribution"):
        op.drop_column("progressive_tables", column)
    op.execute("ALTER TABLE progressive_banks RENAME COLUMN base TO meter")
