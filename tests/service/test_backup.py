"""``paigow backup`` while bots play and ``paigow restore`` into an empty database: the restored
database's audit and ledger verify, every round over in the backup recalls exactly as the source
recalls it, a round in play there holds a prefix of the source's log; bad input is refused and
nothing is written."""

from __future__ import annotations

import hashlib
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


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def recalls(url: str) -> dict[str, dict[str, Any]]:
    """Every round's recall as an operator sees it, by round id."""
    from paigow.service.accounts.auth import Principal
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


def backup_during_play(helpers: Any, url: str, out: Path) -> tuple[str, dict[str, Any]]:
    """Bots play on a live server; the backup is taken once rounds exist, while they go on.
    The CLI's summary and the bots' report."""
    svc = helpers.Service(url)
    report: dict[str, Any] = {}
    try:
        bots = threading.Thread(
            target=lambda: report.update(
                helpers.run_bots(
                    svc.url, tables=3, players=2, rounds=8, bad_rate=0.0, retry_rate=0.0
                )
            )
        )
        bots.start()
        deadline = time.monotonic() + 120
        while count_rounds(url) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
        code, summary = cli("backup", "--database", url, "--out", str(out))
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
def test_sqlite_backup_while_serving_restores(helpers: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    out = tmp_path / "live.backup"
    summary, report = backup_during_play(helpers, url, out)
    assert "rounds" in summary and "sqlite" in summary
    restored = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    code, text = cli("restore", "--database", restored, "--from", str(out))
    assert code == 0, text
    check_restored(url, restored)
    assert report.get("ok", True) is not False


@pytest.fixture
def pg_databases(helpers: Any) -> Iterator[list[str]]:
    """Two fresh databases on the shared server (their names), dropped afterwards."""
    from tests.service.conftest import pg_admin, pg_user

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
def test_postgres_backup_while_serving_restores(
    helpers: Any, tmp_path: Path, pg_databases: list[str]
) -> None:
    from tests.service.conftest import PG_HOST, PG_PORT, pg_schema, pg_user

    out = tmp_path / "pg.backup"
    with pg_schema() as url:
        summary, _ = backup_during_play(helpers, url, out)
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
        assert code != 0 and "already holds" in text, text


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


def test_bad_input_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    from paigow.service.accounts.operators import create_operator

    url = f"sqlite:///{tmp_path / 'src.sqlite3'}"
    create_operator(url, "boss", "operator-password")
    out = tmp_path / "src.backup"
    code, text = cli("backup", "--database", url, "--out", str(out))
    assert code == 0 and "1 users" in text, text
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
    assert code != 0 and "damaged" in text, text
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    # the good one restores, the operator with it
    code, text = cli("restore", "--database", new, "--from", str(out))
    assert code == 0, text
    code, text = cli("audit", "verify", "--database", new)
    assert code == 0, text


@pytest.mark.slow
def test_pg_basebackup_and_wal_archive_recover_to_an_audited_cluster(
    helpers: Any, tmp_path: Path
) -> None:
    """The continuous way: WAL archiving and a base backup taken while bots play; a cluster made
    from the base backup replays the archive and its audit verifies, every round as the source."""
    import shutil
    import tempfile

    from tests.service import pg_cluster

    if not pg_cluster.available():
        pytest.skip("no private PostgreSQL clusters here")
    archive = Path(tempfile.mkdtemp(prefix="paigow-wal-"))
    shutil.chown(archive, "postgres", "postgres")
    restored = pg_cluster.Cluster()
    try:
        with pg_cluster.cluster(archive_mode="on", archive_command=f"'cp %p {archive}/%f'") as pg:
            url = pg.url()
            svc = helpers.Service(url)
            try:
                failed: list[BaseException] = []

                def play() -> None:
                    try:
                        helpers.run_bots(
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
