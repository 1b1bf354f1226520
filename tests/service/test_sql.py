"""SQL through the driver (:mod:`paigow.service.store.statements`, :mod:`~paigow.service.store.unit`): statements compiled once per dialect and
run on the DBAPI cursor give what SQLAlchemy gives (parameters in order, JSON and booleans
converted, the driver's errors as SQLAlchemy's), on SQLite and on PostgreSQL; statements sent
later (on PostgreSQL, bound by the driver into one message of the simple query protocol) run in
order, with the next statement or the commit, keep every value exactly, and an error among them
rolls the whole step back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from paigow.service.config import ServiceConfig
from paigow.service.store.statements import Sql, dumps
from paigow.service.store.unit import Tx
from tests.helpers.service import driver_statements, pg_schema, run_on_own_loop

META = sa.MetaData()
THINGS = sa.Table(
    "things",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(32), unique=True),
    sa.Column("doc", sa.JSON, nullable=True),
    sa.Column("flag", sa.Boolean, nullable=False),
    sa.Column("n", sa.BigInteger, nullable=False),
)
INSERT = Sql(
    sa.insert(THINGS).values(
        {c: sa.bindparam(c, type_=THINGS.c[c].type) for c in ("id", "name", "doc", "flag", "n")}
    )
)
GET = Sql(
    sa.select(THINGS.c.name, THINGS.c.doc, THINGS.c.flag, THINGS.c.n).where(
        THINGS.c.id == sa.bindparam("id")
    )
)
LAST_TWO = Sql(
    sa.select(THINGS.c.id).order_by(THINGS.c.id.desc()).limit(sa.bindparam("k", type_=sa.Integer))
)
ADD = Sql(
    sa.update(THINGS)
    .where(THINGS.c.id == sa.bindparam("id"))
    .values(n=THINGS.c.n + sa.bindparam("d", type_=sa.BigInteger))
    .returning(THINGS.c.n, THINGS.c.flag)
)
COUNT = Sql(sa.select(sa.func.count()).select_from(THINGS))


def test_compiled_once_per_dialect_with_the_parameters_in_order() -> None:
    lite = INSERT.compiled(sqlite.dialect())
    assert lite.text.count("?") == 5 and lite.names == ("id", "name", "doc", "flag", "n")
    assert lite.json_in == {"doc"}
    assert lite.params({"id": 1, "name": "a", "doc": {"x": [1, 2]}, "flag": True, "n": 5}) == (
        1,
        "a",
        '{"x":[1,2]}',
        True,
        5,
    )
    assert INSERT.compiled(sqlite.dialect()) is lite  # kept
    pg = INSERT.compiled(postgresql.psycopg.dialect())
    assert pg.names is None and "%(name)s" in pg.text  # psycopg takes the dict
    # a statement's own literals (SQLite's OFFSET for a LIMIT) come with it
    limited = LAST_TWO.compiled(sqlite.dialect())
    assert limited.params({"k": 2})[0] == 2 and len(limited.params({"k": 2})) == 2
    # JSON results are decoded and booleans made booleans on SQLite (psycopg does both itself)
    row = GET.compiled(sqlite.dialect()).row(("a", '{"x": 1}', 1, 7))
    assert row == ("a", {"x": 1}, True, 7)
    assert GET.compiled(postgresql.psycopg.dialect()).out is None


def test_none_in_a_json_column_is_stored_as_json_null_as_sqlalchemy_does() -> None:
    assert dumps(None) == "null"
    assert dumps({1: "a"}) == '{"1":"a"}'  # keys become strings, as json.dumps makes them


def test_expanding_parameters_are_refused() -> None:
    q = Sql(sa.select(THINGS.c.id).where(THINGS.c.id.in_([1, 2])))
    with pytest.raises(ValueError, match="expanding"):
        q.compiled(sqlite.dialect())


def _engine(db_url: str) -> sa.Engine:
    from paigow.service.store.db import normalize_url

    engine = sa.create_engine(normalize_url(db_url))
    META.drop_all(engine)
    META.create_all(engine)
    return engine


def _two_things(engine: sa.Engine) -> None:
    """Rows 1 and 2 of ``things``, committed."""
    with engine.begin() as conn:
        for i in (1, 2):
            conn.execute(sa.insert(THINGS).values(id=i, name=f"n{i}", doc=None, flag=True, n=i))


def _rows(engine: sa.Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.select(THINGS.c.id, THINGS.c.n).order_by(THINGS.c.id)))


def test_statements_on_the_driver_agree_with_sqlalchemy(db_url: str) -> None:
    engine = _engine(db_url)
    try:
        with engine.begin() as conn:
            tx = Tx(conn)
            tx.run(INSERT, {"id": 1, "name": "a", "doc": {"k": [1, "x"]}, "flag": True, "n": 5})
            tx.many(
                INSERT,
                [
                    {"id": 2, "name": "b", "doc": None, "flag": False, "n": 6},
                    {"id": 3, "name": "c", "doc": [1], "flag": False, "n": 7},
                ],
            )
            assert tx.first(GET, {"id": 1}) == ("a", {"k": [1, "x"]}, True, 5)
            assert tx.first(GET, {"id": 2}) == ("b", None, False, 6)
            assert tx.scalar(COUNT) == 3
            assert tx.first(ADD, {"id": 3, "d": 10}) == (17, False)  # UPDATE ... RETURNING
            assert [r[0] for r in tx.run(LAST_TWO, {"k": 2})] == [3, 2]
            assert tx.rowcount(Sql(sa.delete(THINGS).where(THINGS.c.id > 5))) == 0
            assert tx.first(GET, {"id": 99}) is None
        # what SQLAlchemy reads back is what the driver wrote
        with engine.connect() as conn:
            doc = conn.execute(sa.select(THINGS.c.doc).where(THINGS.c.id == 1)).scalar()
            assert doc == {"k": [1, "x"]}
        # the driver's errors arrive as SQLAlchemy's (callers retry or refuse by their class)
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            Tx(conn).run(INSERT, {"id": 1, "name": "z", "doc": None, "flag": True, "n": 0})
        assert _rows(engine) == [(1, 5), (2, 6), (3, 17)]
    finally:
        META.drop_all(engine)
        engine.dispose()


def test_later_and_together_run_at_once_on_sqlite(tmp_path: Path) -> None:
    engine = _engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with engine.begin() as conn:
        tx = Tx(conn)
        assert not tx.batched
        tx.later(INSERT, {"id": 1, "name": "a", "doc": None, "flag": True, "n": 1})
        assert tx.scalar(COUNT) == 1
        assert tx.commit_pending() is False  # nothing waits: the caller commits
        tx.run(INSERT, {"id": 2, "name": "b", "doc": [1], "flag": False, "n": 7})
        # one after another: the rows of each
        assert tx.together((GET, {"id": 2}), (COUNT, None)) == [[("b", [1], False, 7)], [(2,)]]
    assert _rows(engine) == [(1, 1), (2, 7)]
    engine.dispose()


def _pg_steps(db_url: str, *steps: Any) -> list[Any]:
    """Run each of ``steps`` in a transaction of its own on the service's asyncio engine (one
    connection, reused), with the statements sent later, as the writer does; what each
    returned or raised."""
    from paigow.service.store.db import Database

    async def main() -> list[Any]:
        db = Database.of(ServiceConfig.from_env(db_url))
        engine = db.async_engine()
        db.dispose()
        out: list[Any] = []
        try:
            for step in steps:

                def run(conn: sa.Connection, step: Any = step) -> Any:
                    tx = Tx(conn, driver=db.wire_driver(conn))
                    return step(tx)

                try:
                    async with engine.connect() as conn, conn.begin():
                        out.append(await conn.run_sync(run))
                except Exception as exc:
                    out.append(exc)
        finally:
            await engine.dispose()
        return out

    return run_on_own_loop(main())


def _prepared() -> bool:
    """Whether the steps' statements go through :mod:`paigow.service.store.pgwire` (the
    default; ``PAIGOW_PG_WIRE=plain`` or ``PAIGOW_PG_DRIVER=asyncpg`` run these tests the
    other ways)."""
    from paigow.service.store.db import step_wire

    config = ServiceConfig.from_env("")
    return step_wire(config.pg_driver, config.pg_wire) == ("psycopg", "prepared")


_PREPARED = "SELECT name, statement FROM pg_prepared_statements WHERE starts_with(name, 'paigow_')"


def test_statements_are_prepared_once_per_connection_and_outlive_a_rollback() -> None:
    """A statement is parsed and planned once per connection (``PREPARE``, then ``EXECUTE``);
    a step that fails and rolls back keeps them (psycopg's own preparing is off, so its
    rollback deallocates nothing). If something outside deallocates them, the step that finds
    one gone fails (no retry: nothing in the service does it) and the connection prepares anew
    from its next step, under new names."""
    from paigow.service.store.retry import retryable

    if not _prepared():
        pytest.skip("the hand-written PREPARE/EXECUTE layer is off (PAIGOW_PG_WIRE, _DRIVER)")
    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:

            def prepared(tx: Tx) -> dict[str, str]:  # the connection's, ours (read apart)
                got = tx.connection.exec_driver_sql(_PREPARED)
                return {name: text for name, text in got}

            def insert_and_read(tx: Tx) -> tuple[Any, dict[str, str]]:
                # psycopg prepares nothing of its own here: it would deallocate them all (ours
                # too) at the next rollback
                assert tx.connection.connection.driver_connection.prepare_threshold is None
                tx.later(INSERT, {"id": 1, "name": "a", "doc": None, "flag": True, "n": 7})
                return tx.first(GET, {"id": 1}), prepared(tx)

            def read(tx: Tx) -> tuple[Any, dict[str, str]]:
                return tx.first(GET, {"id": 1}), prepared(tx)

            def fail(tx: Tx) -> None:
                tx.first(GET, {"id": 1})
                tx.run(INSERT, {"id": 1, "name": "dup", "doc": None, "flag": True, "n": 0})

            def deallocated(tx: Tx) -> Any:
                tx.connection.exec_driver_sql("DEALLOCATE ALL")
                return tx.first(GET, {"id": 1})

            first, again, failed, after, gone, anew = _pg_steps(
                db_url, insert_and_read, read, fail, read, deallocated, read
            )
            row, names = first
            assert row == ("a", None, True, 7)
            # (the text shown is the whole message that prepared them)
            assert len(names) == 2 and all("PREPARE paigow_" in t for t in names.values())
            assert again == (row, names)  # nothing prepared twice
            assert isinstance(failed, sa.exc.IntegrityError)
            assert after == (row, names)  # the rollback left them
            assert isinstance(gone, sa.exc.DBAPIError) and not retryable(gone)
            assert gone.orig is not None and gone.orig.sqlstate == "26000"
            row_anew, names_anew = anew
            assert row_anew == row
            assert len(names_anew) == 1 and not set(names_anew) & set(names)  # a new name
        finally:
            META.drop_all(engine)
            engine.dispose()


def test_a_new_connection_takes_no_statement_for_prepared() -> None:
    """The names a connection has prepared live with that connection: when the pool replaces
    it (here: invalidated, as after a lost connection), the new one prepares every statement
    itself, and two connections at once each prepare their own."""
    from paigow.service.store import pgwire
    from paigow.service.store.db import Database

    if not _prepared():
        pytest.skip("the hand-written PREPARE/EXECUTE layer is off (PAIGOW_PG_WIRE, _DRIVER)")

    def step(conn: sa.Connection, db: Database) -> tuple[Any, int, list[str], int]:
        tx = Tx(conn, driver=db.wire_driver(conn))
        row = tx.first(GET, {"id": 1})
        names = pgwire.wire_of(conn.connection.info)
        ours = [n for (n,) in conn.exec_driver_sql(_PREPARED.replace(", statement", ""))]
        pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
        return row, pid, sorted(ours), len(names.names)

    async def main(db_url: str) -> list[Any]:
        db = Database.of(ServiceConfig.from_env(db_url))
        engine = db.async_engine()
        db.dispose()
        out: list[Any] = []
        try:
            async with engine.connect() as conn, conn.begin():
                out.append(await conn.run_sync(step, db))
            async with engine.connect() as conn:
                await conn.invalidate()  # the pool drops it: the next checkout opens another
            async with engine.connect() as conn, conn.begin():
                out.append(await conn.run_sync(step, db))
                async with engine.connect() as other, other.begin():  # a second at once
                    out.append(await other.run_sync(step, db))
        finally:
            await engine.dispose()
        return out

    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            with engine.begin() as conn:
                conn.execute(sa.insert(THINGS).values(id=1, name="a", doc=None, flag=True, n=3))
            first, second, third = run_on_own_loop(main(db_url))
            assert first[0] == second[0] == third[0] == ("a", None, True, 3)
            assert len({first[1], second[1], third[1]}) == 3  # three connections
            for got in (first, second, third):
                assert got[2] == ["paigow_1"] and got[3] == 1  # each prepared it itself
        finally:
            META.drop_all(engine)
            engine.dispose()


def test_later_statements_go_with_the_next_one_or_the_commit() -> None:
    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            seen: list[int] = []

            def queue_then_read(tx: Tx) -> int:
                assert tx.batched is _prepared()  # plain: each runs when it is asked for
                tx.later(INSERT, {"id": 1, "name": "a", "doc": {"x": 1}, "flag": True, "n": 1})
                tx.many(
                    INSERT,
                    [
                        {"id": i, "name": f"n{i}", "doc": None, "flag": False, "n": i}
                        for i in (2, 3)
                    ],
                    later=True,
                )
                seen.append(int(tx.scalar(COUNT)))  # the queued inserts ran first, in order
                tx.later(ADD, {"id": 1, "d": 100})
                assert tx.rowcount(Sql(sa.delete(THINGS).where(THINGS.c.id == 3))) == 1
                tx.later(ADD, {"id": 2, "d": 1000})
                return 1 if tx.commit_pending() else 0  # the last update, and the commit

            def bad_later(tx: Tx) -> None:
                tx.later(ADD, {"id": 1, "d": 5})
                tx.later(INSERT, {"id": 1, "name": "dup", "doc": None, "flag": True, "n": 0})
                tx.later(ADD, {"id": 2, "d": 5})
                tx.commit_pending()  # the duplicate key stops the rest: nothing commits

            first, second = _pg_steps(db_url, queue_then_read, bad_later)
            assert first == (1 if _prepared() else 0) and seen == [3]
            assert isinstance(second, sa.exc.IntegrityError)
            assert _rows(engine) == [(1, 101), (2, 1002)]
        finally:
            META.drop_all(engine)
            engine.dispose()


def test_a_steps_transaction_begins_with_its_first_message() -> None:
    """With the layer, the steps' connections are in psycopg's autocommit mode (no ``BEGIN`` of
    its own, in a round trip of its own) and a step's ``BEGIN`` heads its first message, or goes
    before a statement SQLAlchemy runs first: either way the step is one transaction, and an
    error in a later message rolls back what the earlier ones wrote. A read outside a
    transaction begins none."""
    from psycopg.pq import TransactionStatus

    if not _prepared():
        pytest.skip("the hand-written PREPARE/EXECUTE layer is off (PAIGOW_PG_WIRE, _DRIVER)")
    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            _two_things(engine)

            def status(tx: Tx) -> TransactionStatus:
                return TransactionStatus(
                    tx.connection.connection.driver_connection.info.transaction_status
                )

            def wire_first(tx: Tx) -> None:
                assert tx.connection.connection.driver_connection.autocommit
                assert status(tx) == TransactionStatus.IDLE  # nothing sent yet
                assert tx.first(ADD, {"id": 1, "d": 100}) == (101, True)  # BEGIN; EXECUTE
                assert status(tx) == TransactionStatus.INTRANS
                tx.run(INSERT, {"id": 2, "name": "dup", "doc": None, "flag": True, "n": 0})

            def sqlalchemy_first(tx: Tx) -> None:
                tx.connection.execute(sa.update(THINGS).values(n=THINGS.c.n + 1000))
                assert status(tx) == TransactionStatus.INTRANS
                tx.first(ADD, {"id": 2, "d": 5})
                tx.run(INSERT, {"id": 1, "name": "dup", "doc": None, "flag": True, "n": 0})

            def committed(tx: Tx) -> Any:
                got = tx.first(ADD, {"id": 2, "d": 10})
                tx.later(ADD, {"id": 1, "d": 1})
                return got, tx.commit_pending()

            first, second, third = _pg_steps(db_url, wire_first, sqlalchemy_first, committed)
            assert isinstance(first, sa.exc.IntegrityError)
            assert isinstance(second, sa.exc.IntegrityError)
            assert third == ((12, True), True)
            assert _rows(engine) == [(1, 2), (2, 12)]  # the failed steps left nothing

            async def read(db_url: str) -> Any:
                from paigow.service.store.db import Database

                db = Database.of(ServiceConfig.from_env(db_url))
                steps = db.async_engine()
                db.dispose()
                try:
                    async with steps.connect() as conn:
                        return await conn.run_sync(
                            lambda c: (
                                Tx(c, driver=db.wire_driver(c)).first(GET, {"id": 1}),
                                status(Tx(c)),
                            )
                        )
                finally:
                    await steps.dispose()

            assert run_on_own_loop(read(db_url)) == (("n1", None, True, 2), TransactionStatus.IDLE)
        finally:
            META.drop_all(engine)
            engine.dispose()


TRICKY = [
    "it's",
    'a "quoted" name',
    "back\\slash \\' end",
    "x'); DELETE FROM things; --",
    "%(id)s %s {}",
    "ünï\u00e7ødé ♠♥",
    "tab\tnew\nline",
]


def test_later_statements_keep_every_value_exactly() -> None:
    """Values bound into the text by the driver come back as they went in: quotes, backslashes,
    placeholders, SQL in a string, Unicode, JSON, booleans, NULL, 64-bit integers; a statement
    whose rows are needed, sent after waiting ones, gets its own rows."""
    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            docs: list[Any] = [
                {"q": 'it\'s "x"', "list": [1, None, True, "\\"], "nested": {"k": "'; --"}},
                None,
                ["ünï", 2**53, -1.5],
            ]

            def write(tx: Tx) -> Any:
                for i, name in enumerate(TRICKY, start=1):
                    tx.later(
                        INSERT,
                        {
                            "id": i,
                            "name": name,
                            "doc": docs[i % len(docs)],
                            "flag": i % 2 == 0,
                            "n": (2**62 + i) * (-1) ** i,
                        },
                    )
                got = tx.first(ADD, {"id": 1, "d": 0})  # after the waiting inserts: its row
                tx.commit_pending()
                return got

            (returned,) = _pg_steps(db_url, write)
            assert returned == (-(2**62 + 1), False)
            with engine.connect() as conn:
                rows = conn.execute(
                    sa.select(
                        THINGS.c.id, THINGS.c.name, THINGS.c.doc, THINGS.c.flag, THINGS.c.n
                    ).order_by(THINGS.c.id)
                ).all()
            assert [tuple(r) for r in rows] == [
                (i, name, docs[i % len(docs)], i % 2 == 0, (2**62 + i) * (-1) ** i)
                for i, name in enumerate(TRICKY, start=1)
            ]
        finally:
            META.drop_all(engine)
            engine.dispose()


LOCK_ONE = Sql(sa.select(THINGS.c.n).where(THINGS.c.id == sa.bindparam("id")).with_for_update())


def test_statements_together_each_see_what_committed_before_them() -> None:
    """``Tx.together`` on PostgreSQL sends a row lock and a read in one message; the lock waits
    for the transaction that holds the row, and the read, run once the lock is held, sees that
    transaction's changes to another row (a read joined to the lock in one statement would
    not): what the round's head relies on. Without waiting statements and with them, the rows
    of each statement come back in order."""
    import threading
    import time

    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            _two_things(engine)

            def lock_then_read(tx: Tx) -> Any:
                tx.later(ADD, {"id": 1, "d": 0})  # one waiting statement goes first
                locked, other = tx.together((LOCK_ONE, {"id": 1}), (GET, {"id": 2}))
                return locked, other, time.monotonic()

            out: list[Any] = []
            with engine.connect() as holder:
                holder.begin()
                holder.execute(sa.update(THINGS).values(n=THINGS.c.n + 10))  # both rows
                waiter = threading.Thread(
                    target=lambda: out.extend(_pg_steps(db_url, lock_then_read))
                )
                waiter.start()
                time.sleep(0.5)
                committed = time.monotonic()
                holder.commit()
                waiter.join(30)
            assert len(out) == 1 and not isinstance(out[0], Exception), out
            locked, other, done = out[0]
            assert done >= committed  # the lock waited for the holder's commit
            assert locked == [(11,)]
            assert other == [("n2", None, True, 12)]  # the read ran after it: its own snapshot

            def two_reads(tx: Tx) -> Any:
                return tx.together((GET, {"id": 1}), (COUNT, None), (GET, {"id": 3}))

            (reads,) = _pg_steps(db_url, two_reads)
            assert reads == [[("n1", None, True, 11)], [(2,)], []]
        finally:
            META.drop_all(engine)
            engine.dispose()


def test_every_statement_on_the_driver_can_be_prepared() -> None:
    """PostgreSQL parses and plans each statement once per connection (``PREPARE``): every
    statement the service runs on the driver must be one it can prepare on the real schema
    (a parameter whose type it cannot tell would fail the step that first sent it)."""
    import itertools

    from paigow.service.store import commit
    from paigow.service.store.db import Database
    from paigow.service.store.pgwire import preparable

    statements = driver_statements()
    for names in itertools.chain.from_iterable(
        itertools.combinations(("deadline", "ended_at", "event_count", "phase", "result"), k)
        for k in range(1, 6)
    ):  # the round's UPDATE for each set of columns a step may change
        statements[f"round update {names}"] = commit.round_update(names)
    with pg_schema() as db_url:
        db = Database.of(ServiceConfig.from_env(db_url))
        try:
            db.migrate()
            failed = {}
            with db.engine.connect() as conn:
                raw = conn.connection.dbapi_connection
                assert raw is not None
                for i, (name, sql) in enumerate(sorted(statements.items())):
                    text = sql.compiled(db.engine.dialect).text
                    prepared = preparable(text, True)
                    assert prepared is not None, name
                    cur = raw.cursor()
                    try:
                        cur.execute(f"PREPARE check_{i} AS {prepared.text}")
                        cur.execute(f"DEALLOCATE check_{i}")
                    except Exception as exc:  # every failure is reported below
                        failed[name] = f"{type(exc).__name__}: {exc}"
                        raw.rollback()
            assert len(statements) > 40
            assert not failed, failed
        finally:
            db.dispose()


def test_asyncpg_connections_left_in_a_transaction_are_dropped() -> None:
    """A task cancelled while asyncpg's ``BEGIN`` is under way leaves asyncpg a transaction that
    SQLAlchemy never ends (later ones would be savepoints inside it, never committed): such a
    connection is not handed out again (``pg_driver`` asyncpg)."""
    pytest.importorskip("asyncpg")
    from paigow.service.store.db import Database

    async def main(db_url: str, sync: sa.Engine) -> tuple[int, int, int]:
        db = Database(db_url, pg_driver="asyncpg")
        engine = db.async_engine()
        db.dispose()
        try:
            async with engine.connect() as conn:
                raw = (await conn.get_raw_connection()).driver_connection
                assert raw is not None
                first = int(await raw.fetchval("SELECT pg_backend_pid()"))
                await raw.transaction().start()  # as a cancelled BEGIN leaves it
            async with engine.connect() as conn, conn.begin():
                second = await conn.run_sync(
                    lambda c: Tx(c).scalar(Sql(sa.select(sa.func.pg_backend_pid())))
                )
                await conn.run_sync(
                    lambda c: Tx(c).run(
                        INSERT, {"id": 1, "name": "a", "doc": None, "flag": True, "n": 1}
                    )
                )
            return first, int(second), len(_rows(sync))
        finally:
            await engine.dispose()

    with pg_schema() as db_url:
        engine = _engine(db_url)
        try:
            first, second, committed = run_on_own_loop(main(db_url, engine))
            assert first != second  # a fresh connection
            assert committed == 1  # and what ran on it committed
        finally:
            META.drop_all(engine)
            engine.dispose()
