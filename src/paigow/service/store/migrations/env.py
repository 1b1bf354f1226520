"""Alembic environment of the table service: migrations run on the connection that
:func:`paigow.service.store.migrate.upgrade` hands over (inside its transaction). ``alembic`` on the command
line works too, given ``sqlalchemy.url``."""

from __future__ import annotations

from alembic import context

from paigow.service.store import bonus_models as bonus_db  # noqa: F401  (side wagers: 0005)
from paigow.service.store import dragon_models as dragon_db  # noqa: F401  (the dragon hand: 0007)
from paigow.service.store import floor_models as floor_db  # noqa: F401  (the floor's models: 0003_floor)
from paigow.service.store.db import Base


def run() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if connection is None:  # the alembic command line: make an engine from the URL
        import sqlalchemy as sa

        from paigow.service.store.db import normalize_url

        url = normalize_url(config.get_main_option("sqlalchemy.url") or "")
        with sa.create_engine(url).begin() as conn:
            _migrate(conn)
    else:
        _migrate(connection)


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=Base.metadata,
        render_as_batch=True,  # SQLite needs batch mode to alter tables
        transactional_ddl=True,
    )
    with context.begin_transaction():
        context.run_migrations()


try:
    _in_alembic = context.config is not None
except (NameError, AttributeError):  # imported outside Alembic (e.g. by doctest collection)
    _in_alembic = False

if _in_alembic:
    run()
