"""The PostgreSQL half of :mod:`paigow.service.store.backup`: ``pg_dump -Fc`` of the database's
schema under the snapshot the counts were read in, and ``pg_restore`` in one transaction into an
empty (or, told so, a replaced) schema. The tools run with argument lists, no shell; the
password goes in the environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess  # nosec B404  # runs pg_dump/pg_restore only, argument lists
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa

from paigow.service.http_errors import BadRequest, Conflict
from paigow.service.store.db import Database

LAST_ROUND: Final = "SELECT id FROM rounds ORDER BY created_at DESC, id DESC LIMIT 1"
SCHEMA_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
"""The schema names restore quotes into its statements (a manifest is read from a file)."""

OpenData = Callable[[Path], AbstractContextManager[Path]]
"""Gives the dump's file, extracted into a folder (and removed after)."""


def pg_tool(name: str) -> str:
    """``pg_dump`` / ``pg_restore``: the newest under /usr/lib/postgresql/*/bin, else on PATH."""
    root = Path("/usr/lib/postgresql")
    if root.is_dir():
        found = sorted(
            (p for p in root.glob(f"*/bin/{name}") if p.parent.parent.name.isdigit()),
            key=lambda p: int(p.parent.parent.name),
        )
        if found:
            return str(found[-1])
    on_path = shutil.which(name)
    if on_path is None:
        raise BadRequest(
            f"{name} not found (install the PostgreSQL client)", code="pg-tool-missing"
        )
    return on_path


def _pg_args(db: Database) -> tuple[list[str], dict[str, str]]:
    """``pg_dump``/``pg_restore`` connection arguments (no shell; the password in the
    environment, never on the command line)."""
    from psycopg.conninfo import make_conninfo

    url = db.url
    params: dict[str, Any] = {}
    for key, value in (("host", url.host), ("port", url.port), ("dbname", url.database)):
        if value:
            params[key] = value
    if url.username:
        params["user"] = url.username
    for key, given in url.query.items():
        params[key] = given if isinstance(given, str) else given[-1]
    env = {**os.environ}
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return ["--dbname", make_conninfo("", **params)], env


def _run(args: list[str], env: dict[str, str], what: str) -> str:
    proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False)  # nosec B603  # fixed tool, list args, no shell
    if proc.returncode != 0:
        raise BadRequest(
            f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}",
            code="backup-tool-failed",
        )
    return proc.stdout


def backup_postgres(db: Database, data: Path) -> tuple[str | None, int, int, int, str | None, str]:
    args, env = _pg_args(db)
    with db.engine.connect() as conn:
        conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            schema = conn.execute(sa.text("SELECT current_schema()")).scalar()
            if schema is None:
                return None, 0, 0, 0, None, ""
            snapshot = conn.execute(sa.text("SELECT pg_export_snapshot()")).scalar_one()
            present = set(sa.inspect(conn).get_table_names(schema=schema))
            if "alembic_version" not in present:
                return None, 0, 0, 0, None, schema
            rev = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            counts = [
                int(conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one())  # nosec B608  # t from a fixed tuple
                for t in ("rounds", "users", "game_tables")
            ]
            last = conn.execute(sa.text(LAST_ROUND)).scalar()
            # pg_dump reads the very snapshot the counts were made in (held while it runs)
            cmd = [pg_tool("pg_dump"), "-Fc", "--no-owner", "--no-privileges"]
            cmd += ["--schema", schema, "--snapshot", str(snapshot), "--file", str(data), *args]
            _run(cmd, env, "pg_dump")
    return rev, counts[0], counts[1], counts[2], last, schema


def _schema_tables(conn: sa.Connection, schema: str) -> set[str]:
    rows = conn.execute(
        sa.text(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = :s"
        ),
        {"s": schema},
    )
    return {r[0] for r in rows}


def _target_schema(conn: sa.Connection) -> str:
    schema = conn.execute(sa.text("SELECT current_schema()")).scalar()
    if schema is not None:
        return str(schema)
    path = str(conn.execute(sa.text("SHOW search_path")).scalar() or "")
    return path.split(",")[0].strip().strip('"')


def restore_postgres(db: Database, dumped: str, open_data: OpenData, *, replace: bool) -> None:
    """Restore a ``pg_dump -Fc`` of the schema ``dumped`` (``open_data(folder)`` gives its file)
    into the URL's schema, refusing one that holds tables unless ``replace``."""
    aside: str | None = None
    """``replace`` into the dumped schema's own name: the old schema, renamed out of the way
    until the restore has committed (then dropped; renamed back if it fails)."""
    with db.engine.connect() as conn:
        target = _target_schema(conn)
        if not SCHEMA_NAME.fullmatch(target):
            raise BadRequest(f"unsupported target schema name {target!r}", code="bad-schema")
        held = _schema_tables(conn, target)
        if held and not replace:
            raise Conflict(
                f"schema {target} of {db.display_url} already holds {len(held)} relations "
                f"({', '.join(sorted(held)[:5])}...): restore only into an empty schema, or "
                "give --replace to put the backup in its place",
                code="restore-not-empty",
            )
        exists = conn.execute(
            sa.text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"), {"s": dumped}
        ).scalar_one()
        if dumped != target and exists:
            raise Conflict(
                f"the backup's schema {dumped} exists in the target database: restore into "
                f"schema {dumped} or into a database without it",
                code="restore-schema-taken",
            )
    if held and dumped == target:
        aside = f"{target[:40]}_replaced_{os.urandom(4).hex()}"
        with db.engine.begin() as conn:
            conn.execute(sa.text(f'ALTER SCHEMA "{target}" RENAME TO "{aside}"'))
    try:
        _pg_restore(db, open_data, dumped, made=dumped != target)
    except BaseException:
        if aside is not None:  # the old schema back as it was
            with db.engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{target}" CASCADE'))
                conn.execute(sa.text(f'ALTER SCHEMA "{aside}" RENAME TO "{target}"'))
        raise
    with db.engine.begin() as conn:  # one transaction: the old schema goes, the new one in
        if aside is not None:
            conn.execute(sa.text(f'DROP SCHEMA "{aside}" CASCADE'))
        if dumped != target:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{target}" CASCADE'))
            conn.execute(sa.text(f'ALTER SCHEMA "{dumped}" RENAME TO "{target}"'))


def _pg_restore(db: Database, open_data: OpenData, dumped: str, *, made: bool) -> None:
    """``pg_restore`` of the backup into the schema ``dumped`` (made here if missing); nothing
    of it is left when it fails (``made``: the schema itself is dropped then)."""
    args, env = _pg_args(db)
    folder = Path(tempfile.gettempdir())
    with open_data(folder) as data:
        listing = _run([pg_tool("pg_restore"), "--list", str(data)], env, "pg_restore --list")
        # the schema itself is made here (or exists already), not by pg_restore
        kept = [line for line in listing.splitlines() if " SCHEMA - " not in line]
        items = data.with_name("items.list")
        items.write_text("\n".join(kept) + "\n")
        with db.engine.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{dumped}"'))
        cmd = [pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error"]
        cmd += ["--single-transaction", "--use-list", str(items), *args, str(data)]
        try:
            _run(cmd, env, "pg_restore")
        except BadRequest:
            if made:  # (one transaction: it left nothing in it)
                with db.engine.begin() as conn:
                    conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{dumped}" CASCADE'))
            raise
