"""SQL through the driver: the hot paths' statements are written once as SQLAlchemy Core, compiled
once per dialect (SQLite, PostgreSQL) and then run straight on the DBAPI cursor of the
transaction's connection, without SQLAlchemy's per-statement layers (cache keys, execution
contexts, result objects). SQLAlchemy still opens and commits the transactions, runs the
migrations and serves the cold paths through the ORM, in the same transaction when a step needs
it (:attr:`Tx.session`).

A :class:`Tx` is one step's unit of work: the statements it runs, and what it leaves for its
commit (table notices, wallet notices, work to do once committed, the ledger's deferred balance
updates, the round's changed row: :meth:`Tx.on_finish`). Parameters are dicts keyed by the
statement's bind names; JSON parameters are encoded and JSON results decoded as SQLAlchemy's
``JSON`` type does; rows are plain tuples.

>>> import sqlalchemy as sa
>>> t = sa.table("t", sa.column("a", sa.Integer), sa.column("doc", sa.JSON))
>>> q = Sql(sa.select(t.c.doc).where(t.c.a == sa.bindparam("a")))
>>> c = q.compiled(sa.create_engine("sqlite://").dialect)
>>> c.text.replace("\\n", " "), c.names
('SELECT t.doc  FROM t  WHERE t.a = ?', ('a',))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.orm import Session

if TYPE_CHECKING:
    from paigow.service.events_bus import Notice

Row = tuple[Any, ...]
_JSON_OPTS: Final = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """JSON text as a JSON column stores it (``None`` as the JSON ``null``, as SQLAlchemy's
    ``JSON`` type does by default)."""
    return orjson.dumps(value, option=_JSON_OPTS).decode()


def _loads(value: Any) -> Any:
    if value is None or not isinstance(value, str | bytes):
        return value
    return orjson.loads(value)


@dataclass(frozen=True)
class Compiled:
    """A statement's text for one dialect, the order of its parameters (``names``: positional
    drivers) and how its parameters and result columns are converted."""

    text: str
    names: tuple[str, ...] | None
    """The bind names in the order of the ``?`` placeholders (None: the driver takes a dict)."""
    json_in: frozenset[str]
    out: tuple[Callable[[Any], Any] | None, ...] | None
    """A converter per result column (None: no column needs one)."""
    defaults: Mapping[str, Any]
    """The values of the statement's own parameters (literals SQLAlchemy made binds of)."""

    def params(self, values: Mapping[str, Any] | None) -> Sequence[Any] | Mapping[str, Any]:
        if values is None:
            values = {}
        if self.defaults:
            values = {**self.defaults, **values}
        if self.json_in:
            values = {k: (dumps(v) if k in self.json_in else v) for k, v in values.items()}
        if self.names is None:
            return values
        return tuple(values[n] for n in self.names)

    def row(self, row: Row) -> Row:
        out = self.out
        if out is None:
            return tuple(row)
        return tuple(v if f is None else f(v) for v, f in zip(row, out, strict=True))


class Sql:
    """A statement (SQLAlchemy Core) compiled once per dialect for the DBAPI cursor."""

    __slots__ = ("_by_dialect", "stmt")

    def __init__(self, stmt: sa.Executable) -> None:
        self.stmt = stmt
        self._by_dialect: dict[str, Compiled] = {}

    def __repr__(self) -> str:
        return f"Sql({str(self.stmt).splitlines()[0][:60]!r})"

    def compiled(self, dialect: sa.Dialect) -> Compiled:
        hit = self._by_dialect.get(dialect.name)
        if hit is None:
            hit = self._by_dialect[dialect.name] = _compile(self.stmt, dialect)
        return hit


def _compile(stmt: sa.Executable, dialect: sa.Dialect) -> Compiled:
    c = stmt.compile(dialect=dialect)  # type: ignore[attr-defined]
    if getattr(c, "post_compile_params", None) or getattr(c, "literal_execute_params", None):
        raise ValueError(f"expanding parameters are not supported here: {stmt}")
    names = tuple(c.positiontup) if c.positional else None
    json_in = frozenset(n for n, b in c.binds.items() if isinstance(b.type, sa.JSON))
    out: tuple[Callable[[Any], Any] | None, ...] | None = None
    columns = getattr(stmt, "selected_columns", None)
    if columns is None and getattr(stmt, "_returning", None):
        columns = stmt.exported_columns  # type: ignore[attr-defined]
    if columns is not None and dialect.name == "sqlite":  # psycopg decodes JSON and booleans
        conv = tuple(
            _loads
            if isinstance(col.type, sa.JSON)
            else (bool if isinstance(col.type, sa.Boolean) else None)
            for col in columns
        )
        if any(f is not None for f in conv):
            out = conv
    defaults = {n: b.effective_value for n, b in c.binds.items() if not b.required}
    return Compiled(str(c), names, json_in, out, defaults)


# ----------------------------------------------------------------------------- a unit of work
class Tx:
    """One step's work in a database transaction: statements on the connection's DBAPI cursor,
    and what the step leaves for its commit.

    ``connection``: the SQLAlchemy connection whose transaction the step runs in; ``session``:
    an ORM session in that transaction when the step already has one (otherwise made on first
    use). ``caches``: the process's caches the steps keep (rounds, fresh events), if any."""

    def __init__(
        self,
        connection: sa.Connection,
        session: Session | None = None,
        *,
        caches: Mapping[str, Any] | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.connection = connection
        self.dialect = connection.dialect
        self.is_sqlite = self.dialect.name == "sqlite"
        self.is_postgres = self.dialect.name == "postgresql"
        raw = connection.connection.dbapi_connection
        assert raw is not None
        self._cursor = raw.cursor()
        self._error: type[Exception] = self.dialect.loaded_dbapi.Error
        self._session = session
        self._own_session = False
        self.info: dict[str, Any] = dict(caches or {})
        self.notices: list[Notice] = []
        self.wallets: dict[int, tuple[int, int]] = {}
        """user id -> (wallet version, balance) of the wallets this step changed."""
        self.after: list[Callable[[], None]] = []
        self.undone: list[Callable[[], None]] = []
        """Work to do once this step has been rolled back (never if it commits)."""
        self._finish: list[Callable[[Tx], None]] = []
        self._trace = trace

    # ------------------------------------------------------------------ statements
    def run(self, sql: Sql, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run one statement; its rows (an empty list for a statement without rows)."""
        c = sql.compiled(self.dialect)
        if self._trace is not None:
            self._trace(c.text)
        cur = self._cursor
        values = c.params(params)
        try:
            cur.execute(c.text, values)
            if cur.description is None:
                return []
            rows = cur.fetchall()
        except self._error as exc:
            raise self._wrap(c.text, values, exc) from exc
        if c.out is None:
            return cast(list[Row], rows)
        return [c.row(r) for r in rows]

    def first(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Row | None:
        rows = self.run(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Any:
        row = self.first(sql, params)
        return None if row is None else row[0]

    def rowcount(self, sql: Sql, params: Mapping[str, Any] | None = None) -> int:
        """Run a statement without rows; how many rows it changed."""
        self.run(sql, params)
        return int(self._cursor.rowcount)

    def many(self, sql: Sql, rows: Iterable[Mapping[str, Any]]) -> None:
        """Run one statement for each of ``rows`` (``executemany``)."""
        c = sql.compiled(self.dialect)
        params = [c.params(r) for r in rows]
        if not params:
            return
        if self._trace is not None:
            self._trace(c.text)
        try:
            self._cursor.executemany(c.text, cast(Any, params))
        except self._error as exc:
            raise self._wrap(c.text, params, exc) from exc

    def text(self, statement: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[Row]:
        """A statement of the driver's own dialect (framing: savepoints, ``pg_notify``)."""
        if self._trace is not None:
            self._trace(statement)
        cur = self._cursor
        try:
            cur.execute(statement, params)
            return list(cur.fetchall()) if cur.description is not None else []
        except self._error as exc:
            raise self._wrap(statement, params, exc) from exc

    def _wrap(self, statement: str, params: Any, exc: Exception) -> sa.exc.StatementError:
        """The driver's error as SQLAlchemy raises it (``IntegrityError``, ``OperationalError``
        ...), so that callers handle one kind of error whichever way a statement ran."""
        return sa.exc.DBAPIError.instance(statement, params, exc, self._error, dialect=self.dialect)

    # ------------------------------------------------------------------ the ORM, when needed
    @property
    def session(self) -> Session:
        """An ORM session in this step's transaction (cold paths: audit records, seats, limits).
        A session the step opened itself is flushed when the step finishes."""
        if self._session is None:
            self._session = Session(
                bind=self.connection,
                join_transaction_mode="create_savepoint",
                expire_on_commit=False,
                autoflush=True,
            )
            self._own_session = True
        return self._session

    # ------------------------------------------------------------------ what the commit brings
    def notify(self, notice: Notice) -> None:
        self.notices.append(notice)

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once this step has committed (never if it rolls back)."""
        self.after.append(fn)

    def after_rollback(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once this step has been rolled back (a refusal recorded apart)."""
        self.undone.append(fn)

    def on_finish(self, fn: Callable[[Tx], None]) -> None:
        """Run ``fn`` when the step's work is done, before its commit (deferred writes)."""
        self._finish.append(fn)

    def finish(self) -> None:
        """The step is done: run its deferred writes and flush its own ORM session."""
        while self._finish:
            self._finish.pop(0)(self)
        if self._own_session and self._session is not None:
            self._session.commit()  # flush, and release its savepoint (not the transaction)
            self._session.close()
            self._session = None
            self._own_session = False
        elif self._session is not None:
            self._session.flush()

    def abandon(self) -> None:
        """The step failed: forget its session (the caller rolls its writes back)."""
        if self._own_session and self._session is not None:
            self._session.rollback()
            self._session.close()
        self._session = None
        self._own_session = False
        self._finish.clear()
