"""``paigow backup`` while bots play and ``paigow restore`` into an empty database: the restored
database's audit and ledger verify, every round over in the backup recalls exactly as the source
recalls it, a round in play there holds a prefix of the source's log; bad input is refused and
nothing is written."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import sqlite3
import tarfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from paigow.cli.main import app
from tests.helpers.service import Service, run_bots


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())  # (Rich wraps at 120 columns)


def recalls(url: str) -> dict[str, dict[str, Any]]:
    """Every round's recall as an operator sees it, by round id."""
    from paigow.service.accounts.auth_tokens import Principal
    from paigow.service.game.rounds.log import load_events
    from paigow.service.game.rounds.recall import round_view
    from paigow.service.store.db import Database, RoundRow
    from paigow.service.store.unit import Tx

    db = Database(url)
    op = Principal(id=0, username="auditor", role="operator")
    try:
        with db.read() as s:
            ids = s.execute(sa.select(RoundRow.id)).scalars().all()
            tx = Tx(s.connection(), s)
            views = {rid: round_view(tx, rid, op) for rid in ids}
            for rid, view in views.items():  # the raw log too (a round in play shows less)
                view["log"] = load_events(tx, rid)
            return views
    finally:
        db.dispose()


def count_rounds(url: str) -> int:
    from paigow.service.store.db import Database, RoundRow

    db = Database(url)
    try:
        with db.read() as s:
            return int(s.execute(sa.select(sa.func.count()).select_from(RoundRow)).scalar_one())
    finally:
        db.dispose()


def backup_during_play(url: str, out: Path) -> tuple[str, dict[str, Any]]:
    """Bots play on a live server; the backup is taken once rounds exist, while they go on.
    The CLI's summary and the bots' report."""
    svc = Service(url)
    report: dict[str, Any] = {}
    try:
        bots = threading.Thread(
            target=lambda: report.update(
                run_bots(svc.url, tables=3, players=2, rounds=8, bad_rate=0.0, retry_rate=0.0)
            )
        )
        bots.start()
        deadline = time.monotonic() + 120
        while count_rounds(url) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
        code, summary = cli("backup", "--database", url, "--to", str(out))
        assert code == 0, summary
        assert bots.is_alive(), "the backup must be taken while play goes on"
        bots.join(300)
    finally:
        svc.stop()
    return summary, report


def check_restored(source: str, restored: str) -> None:
    """Audit and ledger verify; recalls equal the source's (rounds in play: a prefix)."""
    from paigow.service.books.audit import verify
    from paigow.service.store.db import Database

    code, text = cli("audit", "verify", "--database", restored)
    assert code == 0, text
    db = Database(restored)
    try:
        report = verify(db)
    finally:
        db.dispose()
    assert report["ok"] and report["ledger_balanced"] and report["rounds"] > 0, report
    before, after = recalls(source), recalls(restored)
    assert set(after) <= set(before) and after
    over = 0
    for rid, view in after.items():
        if view["over"]:
            over += 1
            assert view == before[rid], rid
        else:
            n = len(view["log"])
            assert view["log"] == before[rid]["log"][:n], rid
    assert over > 0


@pytest.mark.slow
def test_sqlite_backup_while_serving_restores(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    out = tmp_path / "live.backup"
    summary, report = backup_during_play(url, out)
    assert "rounds" in summary and "sqlite" in summary
    manifest = printed(summary, out)
    restored = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    code, text = cli("restore", "--database", restored, "--from", str(out))
    assert code == 0, text
    check_restored(url, restored)
    assert manifest["last_round"] in recalls(restored)  # the round begun last is in it
    assert report.get("ok", True) is not False


@pytest.fixture
def pg_databases() -> Iterator[list[str]]:
    """Two fresh databases on the shared server (their names), dropped afterwards."""
    from tests.helpers.service import pg_admin, pg_user

    if pg_user() is None:
        pytest.skip("no PostgreSQL server")
    names = ["bk_" + uuid.uuid4().hex[:10] for _ in range(2)]
    with pg_admin() as conn:
        for name in names:
            conn.execute(f"CREATE DATABASE {name}")
    try:
        yield names
    finally:
        with pg_admin() as conn:
            for name in names:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                    (name,),
                )
                conn.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.slow
def test_postgres_backup_while_serving_restores(tmp_path: Path, pg_databases: list[str]) -> None:
    from tests.helpers.service import PG_HOST, PG_PORT, pg_schema, pg_user

    out = tmp_path / "pg.backup"
    with pg_schema() as url:
        summary, _ = backup_during_play(url, out)
        assert "postgresql" in summary
        schema = url.rsplit("%3D", 1)[1]
        first, second = (f"postgresql://{pg_user()}@{PG_HOST}:{PG_PORT}/{n}" for n in pg_databases)
        # the same schema name in a new database
        same = f"{first}?options=-csearch_path%3D{schema}"
        code, text = cli("restore", "--database", same, "--from", str(out))
        assert code == 0, text
        check_restored(url, same)
        # another database's default schema: restored, then renamed into place
        code, text = cli("restore", "--database", second, "--from", str(out))
        assert code == 0, text
        check_restored(url, second)
        assert count_tables(second) > 0
        # the backup's schema exists in the target database: refused
        with pg_schema() as other:
            code, text = cli("restore", "--database", other, "--from", str(out))
            assert code != 0 and f"schema {schema} exists" in text, text
            assert count_tables(other) == 0
        # a non-empty target: refused
        code, text = cli("restore", "--database", same, "--from", str(out))
        assert code != 0 and "already holds" in text and "--replace" in text, text
        # --replace: in place of what it holds, into the same-named schema (the old one set
        # aside, then dropped) and into another's default schema (dropped, the new one renamed)
        for target in (same, second):
            with pg_tx(target) as conn:
                conn.execute(sa.text("CREATE TABLE stray (x int)"))
            code, text = cli("restore", "--database", target, "--from", str(out), "--replace")
            assert code == 0, text
            check_restored(url, target)
            with pg_tx(target) as conn:
                names = conn.execute(
                    sa.text("SELECT nspname FROM pg_namespace WHERE nspname LIKE '%replaced%'")
                ).all()
                assert names == [] and not sa.inspect(conn).has_table("stray")


@contextlib.contextmanager
def pg_tx(url: str) -> Iterator[sa.Connection]:
    """A connection in a transaction (committed at the end) to the database at ``url``."""
    from paigow.service.store.db import Database

    db = Database(url)
    try:
        with db.engine.begin() as conn:
            yield conn
    finally:
        db.dispose()


def count_tables(url: str) -> int:
    from paigow.service.store.db import Database

    db = Database(url)
    try:
        with db.engine.connect() as conn:
            return int(
                conn.execute(
                    sa.text(
                        "SELECT count(*) FROM pg_class c JOIN pg_namespace n "
                        "ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
                    )
                ).scalar_one()
            )
    finally:
        db.dispose()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_of(path: Path) -> dict[str, Any]:
    with tarfile.open(path) as tar:
        member = tar.extractfile("paigow-backup.json")
        assert member is not None
        return dict(json.loads(member.read()))


def printed(summary: str, out: Path) -> dict[str, Any]:
    """The backup's manifest, once checked against what ``paigow backup`` printed: the data's
    SHA-256 in full (the bytes in the file have it) and the last round's id."""
    manifest = manifest_of(out)
    with tarfile.open(out) as tar:
        data = tar.extractfile("data.sqlite3" if manifest["backend"] == "sqlite" else "data.pgdump")
        assert data is not None
        assert hashlib.sha256(data.read()).hexdigest() == manifest["sha256"]
    assert re.search(rf"\bsha256 {manifest['sha256']}\b", summary), summary
    assert re.search(rf"\blast round {manifest['last_round'] or '[(]none[)]'}", summary)
    return manifest


def rewritten(src: Path, dst: Path, **changes: Any) -> None:
    """``dst``: the backup ``src`` with its manifest's fields changed (its data kept)."""
    manifest = {**manifest_of(src), **changes}
    with tarfile.open(src) as tin, tarfile.open(dst, "w") as tout:
        for member in tin.getmembers():
            body = tin.extractfile(member)
            assert body is not None
            raw = body.read()
            if member.name == "paigow-backup.json":
                raw = json.dumps(manifest).encode()
                member.size = len(raw)
            tout.addfile(member, io.BytesIO(raw))


def users(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return sorted(r[0] for r in conn.execute("SELECT username FROM users"))


def test_bad_input_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    from paigow.service.accounts.operators import create_operator

    url = f"sqlite:///{tmp_path / 'src.sqlite3'}"
    create_operator(url, "boss", "operator-password")
    out = tmp_path / "src.backup"
    code, text = cli("backup", "--database", url, "--to", str(out))
    assert code == 0 and "1 users" in text, text
    assert printed(text, out)["last_round"] is None  # no rounds yet: "last round (none)"
    # a second backup over the first: refused
    code, text = cli("backup", "--database", url, "--out", str(out))
    assert code != 0 and "exists" in text
    # into the non-empty source itself: refused, unchanged
    src_file = tmp_path / "src.sqlite3"
    before = digest(src_file)
    code, text = cli("restore", "--database", url, "--from", str(out))
    assert code != 0 and "already holds tables" in text, text
    assert digest(src_file) == before
    target = tmp_path / "new.sqlite3"
    new = f"sqlite:///{target}"
    # a foreign file
    foreign = tmp_path / "foreign.bin"
    foreign.write_bytes(b"not a backup at all\n" * 100)
    code, text = cli("restore", "--database", new, "--from", str(foreign))
    assert code != 0 and "not a paigow backup" in text, text
    # a damaged one: the data's bytes changed, the manifest kept
    damaged = tmp_path / "damaged.backup"
    raw = bytearray(out.read_bytes())
    with tarfile.open(out) as tar:
        data = tar.getmember("data.sqlite3")
    raw[data.offset_data + 200] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    code, text = cli("restore", "--database", new, "--from", str(damaged))
    assert code != 0 and "changed or damaged" in text and "SHA-256" in text, text
    # cut short: the last quarter of the file gone, then only the manifest and a few bytes
    size = out.stat().st_size
    for keep in (size * 3 // 4, data.offset_data + 100):
        short = tmp_path / "short.backup"
        short.write_bytes(out.read_bytes()[:keep])
        code, text = cli("restore", "--database", new, "--from", str(short))
        assert code != 0 and "cut short" in text and "nothing was restored" in text, text
        short.unlink()
    # a schema version this release does not know: refused, naming both
    from paigow.service.store.backup import head_revision

    newer = tmp_path / "newer.backup"
    rewritten(out, newer, schema_version="9999_from_the_future")
    code, text = cli("restore", "--database", new, "--from", str(newer))
    assert code != 0 and "9999_from_the_future" in text and head_revision() in text, text
    newer.unlink()
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    # the good one restores, the operator with it
    code, text = cli("restore", "--database", new, "--from", str(out))
    assert code == 0, text
    code, text = cli("audit", "verify", "--database", new)
    assert code == 0, text


def test_replace_puts_the_backup_in_place_of_a_sqlite_database(tmp_path: Path) -> None:
    """``--replace`` swaps a database holding other data for the backup whole (its WAL too)."""
    from paigow.service.accounts.operators import create_operator

    src, other = tmp_path / "src.sqlite3", tmp_path / "other.sqlite3"
    create_operator(f"sqlite:///{src}", "boss", "operator-password")
    create_operator(f"sqlite:///{other}", "someone", "operator-password")
    create_operator(f"sqlite:///{other}", "else", "operator-password")
    out = tmp_path / "src.backup"
    assert cli("backup", "--database", f"sqlite:///{src}", "--to", str(out))[0] == 0
    # a live WAL beside the target (a reader's connection left open): not replayed afterwards
    held = sqlite3.connect(other)
    held.execute("PRAGMA journal_mode=WAL")
    held.execute("CREATE TABLE scratch (x)")
    held.commit()
    held.close()
    code, text = cli("restore", "--database", f"sqlite:///{other}", "--from", str(out))
    assert code != 0 and "--replace" in text and users(other) == ["else", "someone"], text
    code, text = cli("restore", "--database", f"sqlite:///{other}", "--from", str(out), "--replace")
    assert code == 0, text
    assert users(other) == ["boss"]
    with contextlib.closing(sqlite3.connect(other)) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "scratch" not in names
    code, text = cli("audit", "verify", "--database", f"sqlite:///{other}")
    assert code == 0, text
    # a bad backup with --replace: refused, the database as it was
    before = digest(other)
    damaged = tmp_path / "damaged.backup"
    damaged.write_bytes(out.read_bytes()[: out.stat().st_size // 2])
    code, text = cli(
        "restore", "--database", f"sqlite:///{other}", "--from", str(damaged), "--replace"
    )
    assert code != 0 and digest(other) == before, text


@pytest.mark.slow
@pytest.mark.parametrize("room_kb", [512, 1536])
def test_a_full_disk_during_backup_removes_the_partial_file(tmp_path: Path, room_kb: int) -> None:
    """The backup's target on a small tmpfs (mounted here, unmounted after, even on failure):
    too small for the copy (512 KiB) or for the archive beside the copy (1.5 MiB, the copy
    fits): a clear error, and nothing is left there."""
    from paigow.service.accounts.operators import create_operator
    from tests.helpers.disk import tmpfs

    src = tmp_path / "src.sqlite3"
    create_operator(f"sqlite:///{src}", "boss", "operator-password")
    with contextlib.closing(sqlite3.connect(src)) as conn:  # about 1 MiB of pages
        conn.execute("CREATE TABLE ballast (b BLOB)")
        conn.executemany("INSERT INTO ballast VALUES (randomblob(4000))", [()] * 256)
        conn.commit()
    assert 1 << 20 < src.stat().st_size < 1536 << 10
    with tmpfs(1) as disk:
        subprocess_remount(disk, room_kb)
        out = disk / "nightly.backup"
        code, text = cli("backup", "--database", f"sqlite:///{src}", "--to", str(out))
        assert code != 0, text
        assert "no space left" in text and "partial file was removed" in text, text
        assert list(disk.iterdir()) == []  # no archive, no .part, no temporary folder
    code, text = cli("audit", "verify", "--database", f"sqlite:///{src}")
    assert code == 0, text


def subprocess_remount(path: Path, size_kb: int) -> None:
    import subprocess

    subprocess.run(
        ["mount", "-o", f"remount,size={size_kb}k", str(path)], check=True, capture_output=True
    )


@pytest.mark.slow
def test_pg_basebackup_and_wal_archive_recover_to_an_audited_cluster(tmp_path: Path) -> None:
    """The continuous way: WAL archiving and a base backup taken while bots play; a cluster made
    from the base backup replays the archive and its audit verifies, every round as the source."""
    import shutil
    import tempfile

    from tests.helpers import pg_cluster

    if not pg_cluster.available():
        pytest.skip("no private PostgreSQL clusters here")
    archive = Path(tempfile.mkdtemp(prefix="paigow-wal-"))
    shutil.chown(archive, "postgres", "postgres")
    restored = pg_cluster.Cluster()
    try:
        with pg_cluster.cluster(
            archive_mode="on",
            archive_command=f"'cp %p {archive}/%f.part && mv {archive}/%f.part {archive}/%f'",
        ) as pg:
            url = pg.url()
            svc = Service(url)
            try:
                failed: list[BaseException] = []

                def play() -> None:
                    try:
                        run_bots(
                            svc.url, tables=2, players=2, rounds=25, bad_rate=0.0, retry_rate=0.0
                        )
                    except BaseException as exc:
                        failed.append(exc)

                bots = threading.Thread(target=play)
                bots.start()
                deadline = time.monotonic() + 120
                while count_rounds(url) < 2 and time.monotonic() < deadline:
                    time.sleep(0.2)
                t0 = time.monotonic()
                pg_cluster._as_postgres(
                    str(pg_cluster.BIN / "pg_basebackup"), "-h", pg_cluster.HOST,
                    "-p", str(pg.port), "-U", "postgres", "-D", str(restored.data),
                    "-X", "stream", "-c", "fast",
                )  # fmt: skip
                assert bots.is_alive(), (
                    f"the base backup must be taken while play goes on ({failed}, {time.monotonic() - t0:.1f} s)"
                )
                bots.join(300)
            finally:
                svc.stop()
            segment = pg.sql("SELECT pg_walfile_name(pg_switch_wal())").strip()
            deadline = time.monotonic() + 60
            while not (archive / segment).exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert (archive / segment).exists(), pg.log_text()
            source = recalls(url)
            restored.configure(
                port=str(restored.port),
                unix_socket_directories=f"'{restored.root}'",
                archive_mode="off",
                restore_command=f"'cp {archive}/%f %p'",
            )
            (restored.data / "recovery.signal").touch()
            shutil.chown(restored.data / "recovery.signal", "postgres", "postgres")
            restored.start()
            deadline = time.monotonic() + 60
            while restored.sql("SELECT pg_is_in_recovery()").strip() != "f":
                assert time.monotonic() < deadline, restored.log_text()
                time.sleep(0.2)
            code, text = cli("audit", "verify", "--database", restored.url())
            assert code == 0, text
            after = recalls(restored.url())
            assert after == source  # every round, to the last archived commit
    finally:
        restored.remove()
        shutil.rmtree(archive, ignore_errors=True)


@pytest.mark.slow
def test_point_in_time_recovery_to_between_two_rounds(tmp_path: Path) -> None:
    """PITR, shown working: a base backup, rounds played, a named restore point
    (``pg_create_restore_point``), more rounds; a cluster made from the base backup replays the
    archived WAL to that point only (``recovery_target_name``, ``recovery_target_action =
    'promote'``): every round of before the point recalls as the source did then, the later
    rounds are absent, and ``audit verify`` is clean."""
    import shutil
    import tempfile

    from tests.helpers import pg_cluster

    if not pg_cluster.available():
        pytest.skip("no private PostgreSQL clusters here")
    archive = Path(tempfile.mkdtemp(prefix="paigow-wal-"))
    shutil.chown(archive, "postgres", "postgres")
    restored = pg_cluster.Cluster()

    def play(svc: Any, rounds: int) -> None:
        run_bots(svc.url, tables=1, players=2, rounds=rounds, bad_rate=0.0, retry_rate=0.0)

    try:
        # copied under a temporary name, then renamed: a segment is whole once it is there
        command = f"'test ! -f {archive}/%f && cp %p {archive}/%f.part && mv {archive}/%f.part {archive}/%f'"
        with pg_cluster.cluster(archive_mode="on", archive_command=command) as pg:
            url = pg.url()
            svc = Service(url)
            try:
                pg_cluster._as_postgres(
                    str(pg_cluster.BIN / "pg_basebackup"), "-h", pg_cluster.HOST,
                    "-p", str(pg.port), "-U", "postgres", "-D", str(restored.data),
                    "-X", "stream", "-c", "fast",
                )  # fmt: skip
                play(svc, 3)
                time.sleep(1)  # the last settlement's work done
                at_point = recalls(url)
                pg.sql("SELECT pg_create_restore_point('paigow-between')")
                assert recalls(url) == at_point  # nothing written around the point
                play(svc, 3)
            finally:
                svc.stop()
            later = recalls(url)
            added = set(later) - set(at_point)
            assert added and all(later[r]["over"] for r in added)
            assert all(v["over"] for v in at_point.values()) and at_point
            segment = pg.sql("SELECT pg_walfile_name(pg_switch_wal())").strip()
            deadline = time.monotonic() + 60
            while not (archive / segment).exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert (archive / segment).exists(), pg.log_text()
        restored.configure(
            port=str(restored.port),
            unix_socket_directories=f"'{restored.root}'",
            archive_mode="off",
            restore_command=f"'cp {archive}/%f %p'",
            recovery_target_name="'paigow-between'",
            recovery_target_action="'promote'",
        )
        (restored.data / "recovery.signal").touch()
        shutil.chown(restored.data / "recovery.signal", "postgres", "postgres")
        restored.start()
        deadline = time.monotonic() + 60
        while restored.sql("SELECT pg_is_in_recovery()").strip() != "f":
            assert time.monotonic() < deadline, restored.log_text()
            time.sleep(0.2)
        assert "recovery stopping at restore point" in restored.log_text()
        code, text = cli("audit", "verify", "--database", restored.url())
        assert code == 0, text
        after = recalls(restored.url())
        assert after == at_point  # to the point: the earlier rounds whole, the later absent
        assert not added & set(after)
    finally:
        restored.remove()
        shutil.rmtree(archive, ignore_errors=True)


def test_postgres_replace_is_all_or_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--replace`` on PostgreSQL into the dumped schema's own name: when ``pg_restore`` fails
    after the old schema was set aside, the old schema comes back as it was (its extra user
    there, no ``_replaced_`` schema left); the real restore then replaces it whole."""
    from paigow.service.accounts.operators import create_operator
    from paigow.service.http_errors import BadRequest
    from paigow.service.store import backup_pg as store_backup
    from tests.helpers.service import pg_admin, pg_schema

    with pg_schema() as url:
        schema = url.rsplit("%3D", 1)[1]
        try:
            create_operator(url, "boss", "operator-password")
            out = tmp_path / "pg.backup"
            assert cli("backup", "--database", url, "--to", str(out))[0] == 0
            create_operator(url, "extra", "operator-password")

            def names() -> list[str]:
                with pg_tx(url) as conn:
                    return sorted(conn.execute(sa.text("SELECT username FROM users")).scalars())

            real = store_backup._pg_restore

            def failing(*args: Any, **kwargs: Any) -> None:
                real(*args, **kwargs)  # the new schema restored ... then a failure, say
                raise BadRequest("pg_restore failed (exit 1): simulated", code="backup-tool-failed")

            monkeypatch.setattr(store_backup, "_pg_restore", failing)
            code, text = cli("restore", "--database", url, "--from", str(out), "--replace")
            assert code != 0 and "simulated" in text, text
            assert names() == ["boss", "extra"]
            monkeypatch.setattr(store_backup, "_pg_restore", real)
            code, text = cli("restore", "--database", url, "--from", str(out), "--replace")
            assert code == 0, text
            assert names() == ["boss"]
            code, text = cli("audit", "verify", "--database", url)
            assert code == 0, text
        finally:
            with pg_admin() as conn:
                left = conn.execute(
                    "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                    (f"{schema}_replaced_%",),
                ).fetchall()
                for (name,) in left:
                    conn.execute(f'DROP SCHEMA "{name}" CASCADE')
        assert left == []


def test_an_older_releases_backup_is_restored_and_migrated(tmp_path: Path) -> None:
    """A backup of a database at an earlier schema version (one this release knows) restores and
    is migrated to this release's head; the summary names the backup's version."""
    from paigow.service.store.backup import head_revision
    from paigow.service.store.db import Database
    from paigow.service.store.migrate import current_revision, upgrade

    old = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    db = Database(old)
    try:
        upgrade(db, "0008_meter_shares")
    finally:
        db.dispose()
    out = tmp_path / "old.backup"
    code, text = cli("backup", "--database", old, "--to", str(out))
    assert code == 0 and "schema version 0008_meter_shares" in text, text
    new = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    code, text = cli("restore", "--database", new, "--from", str(out))
    assert code == 0 and "schema version 0008_meter_shares" in text, text
    assert f"migrated from schema version 0008_meter_shares to {head_revision()}" in text, text
    db = Database(new)
    try:
        assert current_revision(db) == head_revision() != "0008_meter_shares"
    finally:
        db.dispose()
    code, text = cli("audit", "verify", "--database", new)
    assert code == 0, text
