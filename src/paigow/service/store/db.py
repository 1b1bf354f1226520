"""The database: SQLAlchemy 2 models, engines and transactions (the service's only source of truth).

Two back ends: SQLite (a file; WAL journal; every write transaction starts with ``BEGIN IMMEDIATE``
so that it holds the write lock from its first statement, and a process-wide lock keeps this
process's writers from spinning on each other) and PostgreSQL through psycopg 3 (``postgresql://``
URLs are rewritten to ``postgresql+psycopg://``; rows are locked with ``SELECT ... FOR UPDATE``),
the steps' asyncio engine through psycopg or, with ``pg_driver`` asyncpg, through asyncpg.

>>> normalize_url("postgresql://u@h:5432/db")
'postgresql+psycopg://u@h:5432/db'
>>> normalize_url("postgres://h/db")
'postgresql+psycopg://h/db'
>>> normalize_url("sqlite:///paigow.sqlite3")
'sqlite:///paigow.sqlite3'
>>> normalize_url("mysql://h/db")
Traceback (most recent call last):
...
ValueError: unsupported database URL scheme 'mysql' (use sqlite:///FILE or postgresql://...)
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.pool import QueuePool

from paigow.service.config import ServiceConfig
from paigow.service.store import pgwire

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine


def now() -> float:
    """Wall-clock time as epoch seconds (how every timestamp is stored)."""
    return time.time()


# --------------------------------------------------------------------------------------- models
class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    __table_args__ = (sa.Index("ux_users_username_key", "username_key", unique=True),)
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(sa.String(32), unique=True)
    username_key: Mapped[str | None] = mapped_column(sa.String(64))
    """The name compared for uniqueness and log-in (:func:`paigow.service.accounts.credentials.username_key`)."""
    password_hash: Mapped[str] = mapped_column(sa.String(256))
    role: Mapped[str] = mapped_column(sa.String(16))  # a statuses.Role
    created_at: Mapped[float] = mapped_column(sa.Float)


class ServerSetting(Base):
    __tablename__ = "server_settings"
    key: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    value: Mapped[str] = mapped_column(sa.Text)


class Account(Base):
    """A ledger account; ``balance`` is kept equal to the sum of its entries."""

    __tablename__ = "accounts"
    name: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))  # wallet | system
    user_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"), nullable=True)
    balance: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    version: Mapped[int] = mapped_column(sa.BigInteger, default=0, server_default="0")
    """How many times a wallet's balance has changed: orders the balances its watchers hear."""


class LedgerTransaction(Base):
    """One money movement request: a credit, a debit, a wager, a settlement, a refund."""

    __tablename__ = "ledger_transactions"
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(sa.String(32))
    amount: Mapped[int] = mapped_column(sa.BigInteger)  # credits/debits: the amount; others: 0
    reference: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    actor: Mapped[str | None] = mapped_column(sa.String(32), nullable=True)
    created_at: Mapped[float] = mapped_column(sa.Float)


class LedgerEntry(Base):
    """One side of a movement: every ``(txn_id, pair_no)`` has two entries that sum to zero."""

    __tablename__ = "ledger_entries"
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    txn_id: Mapped[int] = mapped_column(sa.ForeignKey("ledger_transactions.id"), index=True)
    pair_no: Mapped[int] = mapped_column(sa.Integer)
    account: Mapped[str] = mapped_column(sa.ForeignKey("accounts.name"), index=True)
    amount: Mapped[int] = mapped_column(sa.BigInteger)
    memo: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)


class IdempotencyKey(Base):
    """A request that moved money (or set a hand), kept with its body's hash and its response."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (sa.Index("ix_idempotency_keys_created_at", "created_at"),)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), primary_key=True)
    key: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    request_hash: Mapped[str] = mapped_column(sa.String(64))
    status_code: Mapped[int] = mapped_column(sa.Integer)
    response: Mapped[Any] = mapped_column(sa.JSON)
    created_at: Mapped[float] = mapped_column(sa.Float)


class GameTable(Base):
    __tablename__ = "game_tables"
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    ruleset: Mapped[Any] = mapped_column(sa.JSON)
    house_way: Mapped[Any] = mapped_column(sa.JSON)
    mode: Mapped[str] = mapped_column(sa.String(16))  # a statuses.TableMode
    betting_time_ms: Mapped[int] = mapped_column(sa.Integer)
    setting_time_ms: Mapped[int] = mapped_column(sa.Integer)
    status: Mapped[str] = mapped_column(sa.String(16))  # a statuses.TableStatus
    created_at: Mapped[float] = mapped_column(sa.Float)
    created_by: Mapped[str] = mapped_column(sa.String(32))
    current_round_id: Mapped[str | None] = mapped_column(sa.String(32), nullable=True)
    round_count: Mapped[int] = mapped_column(sa.Integer, default=0)


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (sa.UniqueConstraint("table_id", "user_id", name="uq_seats_table_user"),)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    sat_at: Mapped[float] = mapped_column(sa.Float)
    seen_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    """When a WebSocket of the player to this table was last seen open (None: never)."""


class RoundRow(Base):
    """A round's current step; its event log is in ``round_events``."""

    __tablename__ = "rounds"
    __table_args__ = (sa.UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),)
    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("game_tables.id"), index=True)
    number: Mapped[int] = mapped_column(sa.Integer)
    phase: Mapped[str] = mapped_column(sa.String(16))  # a paigow.round.Phase
    deadline: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    event_count: Mapped[int] = mapped_column(sa.Integer, default=0)
    created_at: Mapped[float] = mapped_column(sa.Float)
    ended_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True, index=True)
    result: Mapped[Any | None] = mapped_column(sa.JSON, nullable=True)


class RoundEvent(Base):
    """One event of a round's append-only log (the core's :class:`paigow.events.Event` dict)."""

    __tablename__ = "round_events"
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    type: Mapped[str] = mapped_column(sa.String(32))
    data: Mapped[Any] = mapped_column(sa.JSON)
    created_at: Mapped[float] = mapped_column(sa.Float)


class RoundWager(Base):
    """Who owns the wager on each spot of a round, and what became of it."""

    __tablename__ = "round_wagers"
    round_id: Mapped[str] = mapped_column(sa.ForeignKey("rounds.id"), primary_key=True)
    spot: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    amount: Mapped[int] = mapped_column(sa.BigInteger)
    status: Mapped[str] = mapped_column(sa.String(16))  # a statuses.WagerStatus
    returned: Mapped[int | None] = mapped_column(sa.BigInteger, nullable=True)


class AuditRecord(Base):
    """Append-only: operator actions and faults."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    at: Mapped[float] = mapped_column(sa.Float)
    actor: Mapped[str] = mapped_column(sa.String(32))
    action: Mapped[str] = mapped_column(sa.String(64))
    target: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    details: Mapped[Any] = mapped_column(sa.JSON)


APPEND_ONLY_TABLES = ("round_events", "ledger_entries", "audit_log")


# --------------------------------------------------------------------------------------- engines
def normalize_url(url: str) -> str:
    """Accept ``sqlite:///FILE`` and ``postgresql://`` (or ``postgres://``) URLs; PostgreSQL goes
    through psycopg 3."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {_safe(text)!r}")
    base = scheme.split("+", 1)[0].lower()
    if base in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    if base == "sqlite":
        return text
    raise ValueError(
        f"unsupported database URL scheme {base!r} (use sqlite:///FILE or postgresql://...)"
    )


def _safe(url: str) -> str:
    """A URL with any password masked, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<database URL>"


def safe_url(url: str) -> str:
    """The URL with its password masked (never log a password)."""
    return _safe(normalize_url(url))


PG_DRIVERS: Final = ("psycopg", "asyncpg")
PG_WIRES: Final = ("prepared", "plain")


def step_wire(driver: str | None = None, wire: str | None = None) -> tuple[str, str]:
    """The driver of the steps' asyncio engine on PostgreSQL and how their statements reach the
    server (the ``pg_driver`` and ``pg_wire`` settings; empty: the defaults): ``prepared`` is
    psycopg's alone (:mod:`paigow.service.store.pgwire`), asyncpg's statements go ``plain``.

    >>> step_wire("psycopg", "prepared"), step_wire("ASYNCPG", "prepared"), step_wire("psycopg", "plain")
    (('psycopg', 'prepared'), ('asyncpg', 'plain'), ('psycopg', 'plain'))
    >>> step_wire("pg8000")
    Traceback (most recent call last):
    ...
    ValueError: the steps' PostgreSQL driver must be psycopg or asyncpg, not 'pg8000'
    """
    drv = (driver or "psycopg").strip().lower()
    if drv not in PG_DRIVERS:
        raise ValueError(f"the steps' PostgreSQL driver must be psycopg or asyncpg, not {drv!r}")
    how = (wire or "prepared").strip().lower()
    if how not in PG_WIRES:
        raise ValueError(f"the steps' PostgreSQL wire must be prepared or plain, not {how!r}")
    return drv, ("plain" if drv == "asyncpg" else how)


class Database:
    """Engines and transactions for one database URL (the settings not given: their defaults;
    :meth:`of` a config takes its own)."""

    @classmethod
    def of(cls, config: ServiceConfig) -> Database:
        """The database of ``config``, opened with its settings."""
        return cls(
            config.database_url,
            pool_size=config.pg_connections,
            step_pool_size=config.pg_step_connections,
            pool_wait_s=config.pg_pool_wait_s,
            sqlite_synchronous=config.sqlite_synchronous,
            pg_driver=config.pg_driver,
            pg_wire=config.pg_wire,
        )

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 8,
        step_pool_size: int = 16,
        pool_wait_s: float = 10.0,
        sqlite_synchronous: str | None = None,
        pg_driver: str | None = None,
        pg_wire: str | None = None,
    ) -> None:
        self.url: URL = make_url(normalize_url(url))
        self.pg_driver, self.pg_wire = step_wire(pg_driver, pg_wire)
        """The steps' driver and wire on PostgreSQL (:func:`step_wire`)."""
        sync = (sqlite_synchronous or "FULL").upper()
        if sync not in ("FULL", "EXTRA", "NORMAL"):
            raise ValueError(f"SQLite synchronous must be FULL, EXTRA or NORMAL, not {sync!r}")
        self.sqlite_synchronous = sync
        if not pool_wait_s > 0:  # zero or less: every request refused once the pool is lent
            raise ValueError(f"the pool wait must be more than 0 seconds, not {pool_wait_s!r}")
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        self.is_postgres = self.url.get_backend_name() == "postgresql"
        self.write_lock = threading.Lock()
        """This process's writers take it in turn (SQLite has one writer at a time)."""
        self.trace: Callable[[str], None] | None = None
        """Called with every statement a step runs on the driver (tests count them)."""
        if self.is_sqlite:
            if not self.url.database or self.url.database == ":memory:":
                raise ValueError("SQLite needs a file (sqlite:///FILE): it is the source of truth")
            self.path: Path | None = Path(self.url.database).resolve()
            self.engine = self._sqlite_engine(immediate=True)
            self.read_engine = self._sqlite_engine(immediate=False)
        else:
            self.path = None
            self.engine = sa.create_engine(
                self.url,
                pool_size=max(1, pool_size // 2),
                max_overflow=max(0, pool_size - pool_size // 2),
                # at most pool_size, with the steps' (see async_engine) and one each for the
                # dealer locks and LISTEN: 26 a process, three of which fit PostgreSQL's 100
                pool_recycle=600,
                pool_timeout=pool_wait_s,
                # a connection left dead by a PostgreSQL restart is found at checkout and
                # replaced (the steps' engine retries instead: PostgresWriter.run)
                pool_pre_ping=True,
                connect_args={"application_name": f"paigow-{os.getpid()}"},
            )
            self.read_engine = self.engine
        self._namespace: str | None = None
        self.step_pool_size = step_pool_size
        self.pool_wait_s = pool_wait_s  # PostgreSQL: a checkout's longest wait (then 503 busy)

    def _sqlite_engine(self, *, immediate: bool) -> Engine:
        engine = sa.create_engine(
            self.url,
            poolclass=QueuePool,
            pool_size=8 if immediate else 16,
            max_overflow=32,
            connect_args={"timeout": 30, "check_same_thread": False},
        )

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_connection.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={self.sqlite_synchronous}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def async_engine(self) -> AsyncEngine:
        """An asyncio engine on the same PostgreSQL database, for the steps
        (:mod:`paigow.service.store.writer`): psycopg's asyncio connections, or asyncpg's
        (``pg_driver``)."""
        from sqlalchemy.ext.asyncio import create_async_engine

        if not self.is_postgres:
            raise ValueError("the asyncio engine is for PostgreSQL")
        size = max(2, self.step_pool_size)
        name = f"paigow-steps-{os.getpid()}"
        url = self.url
        connect_args: dict[str, Any]
        if self.pg_driver == "asyncpg":
            # SQLAlchemy's dialect keeps each connection's prepared statements (its
            # prepared_statement_cache_size); libpq's options go as server settings (below)
            url = url.set(drivername="postgresql+asyncpg")
            connect_args = {"server_settings": {"application_name": name}}
        elif self.pg_wire == "prepared":
            # the steps' statements go through paigow.service.store.pgwire (see CONNECT_ARGS)
            connect_args = {"application_name": name, **pgwire.CONNECT_ARGS}
        else:  # psycopg as it comes
            connect_args = {"application_name": name}
        engine = create_async_engine(
            url,
            pool_size=size - size // 4,  # kept open: a connection opened and closed per burst
            max_overflow=size // 4,  # of steps costs the server a process start each time
            pool_recycle=600,
            pool_timeout=self.pool_wait_s,
            connect_args=connect_args,
        )
        if self.pg_driver == "psycopg" and self.pg_wire == "prepared":
            pgwire.owe_begin(engine.sync_engine)
        elif self.pg_driver == "asyncpg":

            @event.listens_for(engine.sync_engine, "checkout")
            def _leftover(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
                # a task cancelled while asyncpg's BEGIN was under way (a feed's read when its
                # last watcher leaves) leaves asyncpg a transaction that SQLAlchemy never ends:
                # every later one on the connection would be a SAVEPOINT inside it, never
                # committed. Such a connection is dropped (the pool opens another)
                raw = dbapi_connection.driver_connection
                if raw.is_in_transaction() or getattr(raw, "_top_xact", None) is not None:
                    raise sa.exc.DisconnectionError("a transaction left open on the connection")

            @event.listens_for(engine.sync_engine, "do_connect")
            def _options(_d: Any, _r: Any, _args: Any, params: dict[str, Any]) -> None:
                # asyncpg takes no ``options`` (the URL keeps them: it names the database in
                # the steps' caches, Tx.database)
                if options := params.pop("options", None):
                    given = params.get("server_settings", {})
                    params["server_settings"] = {**given, **pgwire.asyncpg_settings(options)}

        return engine

    def wire_driver(self, conn: sa.Connection) -> Any:
        """What a step's :class:`~paigow.service.store.unit.Tx` on ``conn`` (a connection of
        :meth:`async_engine`) takes as its ``driver``: the driver's connection, which it sends
        its statements on through :mod:`paigow.service.store.pgwire` (``pg_wire`` prepared), or
        None (``plain``: each statement on the DBAPI cursor, as SQLAlchemy runs them)."""
        return conn.connection.driver_connection if self.pg_wire == "prepared" else None

    @property
    def backend(self) -> str:
        return "sqlite" if self.is_sqlite else "postgresql"

    def display_url(self) -> str:
        return self.url.render_as_string(hide_password=True)

    # ----------------------------------------------------------------------------- transactions
    @contextmanager
    def write(self) -> Iterator[Session]:
        """A read-write transaction: committed when the block ends, rolled back on an exception."""
        if self.is_sqlite:
            with self.write_lock, Session(self.engine, expire_on_commit=False) as s, s.begin():
                yield s
        else:
            with Session(self.engine, expire_on_commit=False) as s, s.begin():
                yield s

    @contextmanager
    def read(self, *, snapshot: bool = False) -> Iterator[Session]:
        """A read-only transaction (a consistent snapshot on SQLite's WAL; on PostgreSQL each
        statement's own, or with ``snapshot`` one for them all: a page whose figures must agree)."""
        engine = self.read_engine
        if snapshot and self.is_postgres:
            engine = engine.execution_options(isolation_level="REPEATABLE READ")
        with Session(engine, expire_on_commit=False) as s, s.begin():
            yield s

    # ----------------------------------------------------------------------------- identity
    @property
    def namespace(self) -> str:
        """What tells this database apart from others on the same server: the file on SQLite;
        the database and schema on PostgreSQL (advisory locks and NOTIFY channels are per
        database, so their keys include it)."""
        if self._namespace is None:
            if self.is_sqlite:
                self._namespace = f"sqlite:{self.path}"
            else:
                with self.engine.connect() as conn:
                    row = conn.execute(
                        sa.text("SELECT current_database(), current_setting('search_path')")
                    ).one()
                self._namespace = f"pg:{row[0]}/{row[1]}"
        return self._namespace

    def namespace_key(self) -> int:
        """A signed 32-bit number derived from :attr:`namespace` (the advisory lock class)."""
        digest = hashlib.sha256(self.namespace.encode()).digest()
        return int.from_bytes(digest[:4], "big", signed=True)

    def channel(self) -> str:
        """The NOTIFY channel of this database's table events."""
        return "paigow_" + hashlib.sha256(self.namespace.encode()).hexdigest()[:16]

    def psycopg_conninfo(self, purpose: str = "service") -> str:
        """A libpq connection string for direct psycopg connections (locks, LISTEN), named
        ``paigow-<purpose>-<pid>`` in ``pg_stat_activity``."""
        from psycopg.conninfo import make_conninfo

        params: dict[str, Any] = {"application_name": f"paigow-{purpose}-{os.getpid()}"}
        if self.url.host:
            params["host"] = self.url.host
        if self.url.port:
            params["port"] = self.url.port
        if self.url.database:
            params["dbname"] = self.url.database
        if self.url.username:
            params["user"] = self.url.username
        if self.url.password:
            params["password"] = self.url.password
        for key, value in self.url.query.items():
            params[key] = value if isinstance(value, str) else value[-1]
        return make_conninfo("", **params)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.read_engine is not self.engine:
            self.read_engine.dispose()

    # ----------------------------------------------------------------------------- schema
    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (safe to run from several processes at
        once: PostgreSQL serialises them with an advisory lock, SQLite with its write lock)."""
        from paigow.service.store.migrate import upgrade

        upgrade(self)
