"""A ready table floor for the first run: ``paigow serve --demo`` makes sure the database has
an operator (its password written once to a file beside the database, readable by the owner
only) and, if it has no tables yet, a casino table and a practice table under the Indiana
rules, a casino table offering side wagers: Fortune (pay table A) with its Envy bonus and the
Fortune progressive, an EZ pai gow table (no commission; the dealer's queen-high pai gow pushes
every wager; the dragon hand offered) and a Face Up practice table. An existing floor is left as it is."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import sqlalchemy as sa

from paigow.bonus.paytable import PayTable
from paigow.house_way import HouseWay
from paigow.ruleset import Ruleset, SideWagerOffer
from paigow.service.config import ServiceConfig
from paigow.service.statuses import Role, TableMode
from paigow.service.store.db import Database, GameTable, User

OPERATOR = "house"


def side_offers() -> tuple[SideWagerOffer, ...]:
    """The demo's side wagers: Fortune A with Envy ($1 to $25) and the Fortune progressive (its
    fixed wager; its bank, the pay table's name)."""
    progressive = PayTable.preset("fortune-progressive")
    assert progressive.progressive is not None
    fixed = progressive.progressive.wager or 100
    return (
        SideWagerOffer("fortune", PayTable.preset("fortune-a"), 100, 2500),
        SideWagerOffer("progressive", progressive, fixed, fixed),
    )


def ensure_demo(database_url: str, password_file: Path) -> list[str]:
    """Create what is missing; returns lines saying what was done."""
    from paigow.service.accounts.operators import create_operator
    from paigow.service.game.table_rows import (
        DEFAULT_BETTING_TIME_MS,
        DEFAULT_SETTING_TIME_MS,
        create_table,
    )
    from paigow.service.store.unit import Tx

    said: list[str] = []
    db = Database.of(ServiceConfig.from_env(database_url))
    try:
        db.migrate()
        with db.read() as s:
            has_operator = s.scalar(sa.select(sa.func.count()).where(User.role == Role.OPERATOR))
            has_tables = s.scalar(sa.select(sa.func.count()).select_from(GameTable))
    finally:
        db.dispose()
    if not has_operator:
        password = secrets.token_urlsafe(12)
        create_operator(database_url, OPERATOR, password)
        password_file.write_text(password + "\n")
        os.chmod(password_file, 0o600)
        said.append(f"operator {OPERATOR!r} created; its password is in {password_file}")
    if not has_tables:
        db = Database.of(ServiceConfig.from_env(database_url))
        try:
            with db.write() as s:
                tx = Tx(s.connection(), s)
                for name, mode, rules in (
                    ("Indiana 1", TableMode.CASINO, Ruleset()),
                    ("Practice 1", TableMode.PRACTICE, Ruleset()),
                    ("Fortune 1", TableMode.CASINO, Ruleset(side_wagers=side_offers())),
                    ("EZ 1", TableMode.CASINO, Ruleset.preset("ez", dragon=True)),
                    ("Face Up practice", TableMode.PRACTICE, Ruleset.preset("face-up")),
                ):
                    create_table(
                        tx,
                        operator=OPERATOR,
                        name=name,
                        ruleset=rules,
                        house_way=HouseWay.preset("standard"),
                        mode=mode,
                        betting_time_ms=DEFAULT_BETTING_TIME_MS,
                        setting_time_ms=DEFAULT_SETTING_TIME_MS,
                    )
                tx.finish()
        finally:
            db.dispose()
        said.append(
            "tables 'Indiana 1' (casino), 'Practice 1' (practice), 'Fortune 1' (casino, "
            "with Fortune, Envy and a progressive), 'EZ 1' (casino, no commission, the dealer's "
            "queen-high pai gow pushes, the dragon hand offered) and 'Face Up practice' (practice, "
            "the dealer's hand "
            "face up) created"
        )
    return said
