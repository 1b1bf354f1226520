"""Runs the Alembic migrations shipped in ``paigow/service/store/migrations`` programmatically.

It needs of a database only its engine and kind (:class:`Schema`), so the database
(:meth:`paigow.service.store.db.Database.migrate`) calls it without an import circle."""

from __future__ import annotations

import re
from importlib import resources
from typing import TYPE_CHECKING, Protocol

import sqlalchemy as sa

if TYPE_CHECKING:
    from alembic.config import Config


class Schema(Protocol):
    """What migrating needs of a database."""

    @property
    def engine(self) -> sa.Engine: ...

    @property
    def is_postgres(self) -> bool: ...

    def namespace_key(self) -> int: ...


def alembic_config(db: Schema) -> Config:
    """An Alembic configuration pointing at the packaged migrations (no alembic.ini needed)."""
    from alembic.config import Config

    cfg = Config()
    location = resources.files("paigow.service.store").joinpath("migrations")
    cfg.set_main_option("script_location", str(location))
    return cfg


def upgrade(db: Schema, revision: str = "head") -> None:
    """Upgrade to ``revision`` in one transaction (PostgreSQL: under an advisory lock, so that
    several processes starting at once migrate once)."""
    from alembic import command

    cfg = alembic_config(db)
    with db.engine.begin() as conn:
        if db.is_postgres:
            schema = conn.execute(sa.text("SELECT current_schema()")).scalar()
            if schema is None:  # the search path names a schema that does not exist yet
                path = conn.execute(sa.text("SHOW search_path")).scalar() or ""
                first = path.split(",")[0].strip().strip('"')
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", first):
                    conn.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{first}"'))
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k, 0)"), {"k": db.namespace_key()})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(db: Schema) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
