"""Backups of the service's database while it serves, and their restore into an empty database.

A backup file is an uncompressed tar archive of two members: ``paigow-backup.json`` (the
:class:`Manifest`: what it is, the Alembic revision, when, what it holds, the data's SHA-256) and
the data: a SQLite copy made through SQLite's online backup API (one consistent snapshot while
writers go on) or a ``pg_dump -Fc`` of the database's schema, taken under a snapshot exported by
the transaction that counted what the manifest reports (the dump and the counts agree).

Restoring checks the manifest (a schema version this release knows) and the data's size and
digest before it writes anything, refuses a target that already holds tables unless told to
replace it, then copies (SQLite: the backup API into a new file moved into place whole;
PostgreSQL: ``pg_restore`` in one transaction, the schema renamed when the target's differs, a
replaced schema set aside until the restore has committed). A full disk during a backup removes
the partial file and says so."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from paigow.service.config import ServiceConfig
from paigow.service.http_errors import BadRequest, Conflict
from paigow.service.store.backup_pg import (
    LAST_ROUND,
    SCHEMA_NAME,
    backup_postgres,
    restore_postgres,
)
from paigow.service.store.db import Database

FORMAT: Final = "paigow-backup"
FORMAT_VERSION: Final = 1
MANIFEST_NAME: Final = "paigow-backup.json"
DATA_NAMES: Final = {"sqlite": "data.sqlite3", "postgresql": "data.pgdump"}
SERVICE_TABLES: Final = ("alembic_version", "users", "rounds", "accounts")
"""A target holding any of these already has the service's tables: restore refuses it."""
SQLITE_STEP_PAGES: Final = 4096
"""Pages the SQLite backup copies a step (the progress shown between steps)."""


Progress = Callable[[int, int], None]
"""Called with (pages copied, pages in all) as a SQLite copy goes."""


@dataclass(frozen=True)
class Manifest:
    """What a backup file records about itself."""

    format: str
    format_version: int
    backend: str
    schema_version: str | None
    """The Alembic revision of the backed-up database."""
    created_at: str
    schema: str | None
    """PostgreSQL: the schema dumped."""
    rounds: int
    users: int
    tables: int
    data_bytes: int
    sha256: str
    last_round: str | None = None
    """The id of the round begun last (None: no rounds)."""


# ----------------------------------------------------------------------------------- helpers
def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _script() -> Any:
    from alembic.script import ScriptDirectory

    from paigow.service.store.migrate import alembic_config

    return ScriptDirectory.from_config(alembic_config(None))  # type: ignore[arg-type]


def known_revision(revision: str | None) -> bool:
    """Whether this code's migrations know ``revision``."""
    if revision is None:
        return False
    try:
        return _script().get_revision(revision) is not None
    except Exception:
        return False


def head_revision() -> str:
    """This release's schema version (its migrations' head)."""
    return str(_script().get_current_head())


Counts = tuple[str | None, int, int, int, str | None]
"""(schema version, rounds, users, tables, the last round's id)."""


def _sqlite_counts(conn: sqlite3.Connection) -> Counts:
    rev = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    counts = [
        int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])  # nosec B608  # t from a fixed tuple
        for t in ("rounds", "users", "game_tables")
    ]
    last = conn.execute(LAST_ROUND).fetchone()
    return (rev[0] if rev else None), counts[0], counts[1], counts[2], (last[0] if last else None)


def _no_space(exc: BaseException) -> bool:
    """Whether ``exc`` is a full disk (the OS's ENOSPC, SQLite's "disk is full", a tool's)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return "no space left on device" in text or "database or disk is full" in text


def _write_archive(out: Path, manifest: Manifest, data: Path) -> None:
    """The archive at ``out``, written beside it and moved into place whole."""
    tmp = out.with_name(f".{out.name}.part")
    try:
        with tarfile.open(tmp, "w") as tar:
            body = json.dumps(asdict(manifest), indent=2).encode()
            info = tarfile.TarInfo(MANIFEST_NAME)
            info.size, info.mtime = len(body), int(datetime.now(UTC).timestamp())
            tar.addfile(info, io.BytesIO(body))
            tar.add(data, arcname=DATA_NAMES[manifest.backend])
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


# ------------------------------------------------------------------------------------ backup
def backup(url: str, out: Path, progress: Progress | None = None) -> Manifest:
    """Back up the database at ``url`` into the new file ``out`` (the service may be serving)."""
    if out.exists():
        raise Conflict(f"{out} exists: give a new file", code="backup-exists")
    if not out.parent.is_dir():
        raise BadRequest(f"no folder {out.parent} for {out.name}", code="no-folder")
    db = Database.of(ServiceConfig.from_env(url))
    try:
        return _backup(db, out, progress)
    except (OSError, sqlite3.Error, BadRequest) as exc:
        if not _no_space(exc):
            raise
        # the temporary folder and the archive's .part are gone (their context managers)
        raise BadRequest(
            f"no space left on the device of {out.parent}: the backup was not written and its "
            f"partial file was removed; make room (or give another place) and run it again",
            code="backup-no-space",
        ) from None
    finally:
        db.dispose()


def _backup(db: Database, out: Path, progress: Progress | None) -> Manifest:
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".paigow-backup-") as tmpdir:
        data = Path(tmpdir) / "data"
        if db.is_sqlite:
            (rev, rounds, users, tables, last), schema = _backup_sqlite(db, data, progress), None
        else:
            rev, rounds, users, tables, last, schema = backup_postgres(db, data)
        if rev is None:
            raise BadRequest(
                f"{db.display_url} has no service tables (never migrated)", code="not-migrated"
            )
        manifest = Manifest(
            FORMAT,
            FORMAT_VERSION,
            db.backend,
            rev,
            datetime.now(UTC).isoformat(timespec="seconds"),
            schema,
            rounds,
            users,
            tables,
            data.stat().st_size,
            _digest(data),
            last,
        )
        _write_archive(out, manifest, data)
    return manifest


def _backup_sqlite(db: Database, data: Path, progress: Progress | None) -> Counts:
    assert db.path is not None
    if not db.path.exists():
        raise BadRequest(f"no database file {db.path}", code="no-database")
    src = sqlite3.connect(db.path, timeout=30)
    dst = sqlite3.connect(data)
    try:
        # the whole copy inside one read transaction: one WAL snapshot, however many steps
        src.execute("BEGIN")
        src.execute("SELECT count(*) FROM sqlite_master").fetchone()

        def step(_status: int, remaining: int, total: int) -> None:
            if progress is not None:
                progress(total - remaining, total)

        src.backup(dst, pages=SQLITE_STEP_PAGES, progress=step, sleep=0)
        src.rollback()
        dst.execute("PRAGMA journal_mode=DELETE")
        return _sqlite_counts(dst)
    except sqlite3.DatabaseError as exc:
        if "no such table" in str(exc):
            return None, 0, 0, 0, None
        raise
    finally:
        src.close()
        dst.close()


# ----------------------------------------------------------------------------------- restore
def read_manifest(path: Path) -> Manifest:
    """The manifest of the backup file at ``path``; a clear refusal if it is not one."""
    try:
        with tarfile.open(path, "r:") as tar:
            first = tar.next()  # the manifest is written first (a file cut short still has it)
            if first is None or first.name != MANIFEST_NAME:
                raise KeyError(MANIFEST_NAME)
            member = tar.extractfile(first)
            if member is None:
                raise KeyError(MANIFEST_NAME)
            raw = json.loads(member.read())
        manifest = Manifest(**raw)
    except FileNotFoundError:
        raise BadRequest(f"no backup file {path}", code="no-backup") from None
    except (tarfile.TarError, KeyError, ValueError, TypeError, OSError) as exc:
        raise BadRequest(
            f"{path} is not a paigow backup (or is damaged): {type(exc).__name__}: {exc}",
            code="backup-unreadable",
        ) from None
    if manifest.format != FORMAT or manifest.format_version != FORMAT_VERSION:
        raise BadRequest(
            f"{path} is {manifest.format} version {manifest.format_version}, not {FORMAT} "
            f"version {FORMAT_VERSION}",
            code="backup-unreadable",
        )
    if manifest.schema is not None and not SCHEMA_NAME.fullmatch(manifest.schema):
        raise BadRequest(f"{path}: bad schema name {manifest.schema!r}", code="backup-unreadable")
    if manifest.backend not in DATA_NAMES:
        raise BadRequest(f"unknown backend {manifest.backend!r}", code="backup-unreadable")
    if not known_revision(manifest.schema_version):
        raise BadRequest(
            f"the backup's schema version {manifest.schema_version} is unknown to this release "
            f"of paigow, whose schema version is {head_revision()} (a newer release, or another "
            "program, made it): restore it with the release that made it",
            code="backup-newer",
        )
    return manifest


@contextlib.contextmanager
def _extracted(path: Path, manifest: Manifest, folder: Path) -> Iterator[Path]:
    """The backup's data extracted into ``folder`` and checked against its digest."""
    with tempfile.TemporaryDirectory(dir=folder, prefix=".paigow-restore-") as tmpdir:
        data = Path(tmpdir) / "data"
        try:
            with tarfile.open(path, "r:") as tar:
                member = tar.extractfile(DATA_NAMES[manifest.backend])
                if member is None:
                    raise KeyError(DATA_NAMES[manifest.backend])
                with data.open("wb") as f:
                    shutil.copyfileobj(member, f, 1 << 20)
        except (tarfile.TarError, KeyError, OSError, EOFError) as exc:
            raise BadRequest(
                f"{path}: the backup is cut short or damaged: its data cannot be read whole "
                f"({type(exc).__name__}: {exc}); nothing was restored",
                code="backup-unreadable",
            ) from None
        size, digest = data.stat().st_size, _digest(data)
        if size != manifest.data_bytes:
            raise BadRequest(
                f"{path}: the backup is cut short or damaged: its data has {size:,} bytes, its "
                f"manifest says {manifest.data_bytes:,}; nothing was restored",
                code="backup-unreadable",
            )
        if digest != manifest.sha256:
            raise BadRequest(
                f"{path}: the backup was changed or damaged: its data's SHA-256 is {digest}, its "
                f"manifest's {manifest.sha256}; nothing was restored",
                code="backup-unreadable",
            )
        yield data


def restore(
    url: str, source: Path, progress: Progress | None = None, *, replace: bool = False
) -> Manifest:
    """Restore the backup ``source`` into the empty database at ``url`` (``replace``: or in
    place of what it holds, swapped in whole once the copy is complete); then migrate it to this
    code's head (a backup made by an older release)."""
    manifest = read_manifest(source)
    db = Database.of(ServiceConfig.from_env(url))
    try:
        if manifest.backend != db.backend:
            raise BadRequest(
                f"the backup is of {manifest.backend}; the target is {db.backend}",
                code="backup-backend-mismatch",
            )
        if db.is_sqlite:
            _restore_sqlite(db, source, manifest, progress, replace=replace)
        else:
            restore_postgres(
                db,
                manifest.schema or "public",
                lambda folder: _extracted(source, manifest, folder),
                replace=replace,
            )
    finally:
        db.dispose()
    db = Database.of(ServiceConfig.from_env(url))
    try:
        db.migrate()
    finally:
        db.dispose()
    return manifest


def _refuse_sqlite_target(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise Conflict(
            f"{path} is not an empty SQLite file: {exc}", code="restore-not-empty"
        ) from None
    if names:
        raise Conflict(
            f"{path} already holds tables ({', '.join(sorted(names)[:5])}...): restore only into "
            "a new or empty database, or give --replace to put the backup in its place",
            code="restore-not-empty",
        )


def _restore_sqlite(
    db: Database, source: Path, manifest: Manifest, progress: Progress | None, *, replace: bool
) -> None:
    assert db.path is not None
    if not replace:
        _refuse_sqlite_target(db.path)
    db.path.parent.mkdir(parents=True, exist_ok=True)
    with (
        _extracted(source, manifest, db.path.parent) as data,
        contextlib.closing(sqlite3.connect(f"file:{data}?mode=ro", uri=True)) as src,
    ):
        check = src.execute("PRAGMA integrity_check").fetchone()
        if check is None or check[0] != "ok":
            raise BadRequest(
                f"{source}: the SQLite copy fails its integrity check: {check}",
                code="backup-unreadable",
            )

        def step(_status: int, remaining: int, total: int) -> None:
            if progress is not None:
                progress(total - remaining, total)

        part = db.path.with_name(f".{db.path.name}.restoring")
        try:
            with contextlib.closing(sqlite3.connect(part)) as dst:
                src.backup(dst, pages=SQLITE_STEP_PAGES, progress=step, sleep=0)
                dst.execute("PRAGMA journal_mode=WAL")
            if replace:
                _retire_wal(db.path)
            os.replace(part, db.path)  # the restored file appears whole, or not at all
        finally:
            part.unlink(missing_ok=True)


def _retire_wal(path: Path) -> None:
    """Before a file is replaced: fold its WAL in and remove the ``-wal``/``-shm`` files, so
    that no stale log is replayed onto the restored file."""
    if path.exists():
        with (
            contextlib.suppress(sqlite3.DatabaseError),
            contextlib.closing(sqlite3.connect(path, timeout=30)) as conn,
        ):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for tail in ("-wal", "-shm"):
        path.with_name(path.name + tail).unlink(missing_ok=True)
