"""SQL through the driver: the hot paths' statements are written once as SQLAlchemy Core, compiled
once per dialect (SQLite, PostgreSQL) and then run straight on the DBAPI cursor of the
transaction's connection, without SQLAlchemy's per-statement layers (cache keys, execution
contexts, result objects). SQLAlchemy still opens and commits the transactions, runs the
migrations and serves the cold paths through the ORM, in the same transaction when a step needs
it (:attr:`Tx.session`).

A :class:`Tx` is one step's unit of work: the statements it runs, and what it leaves for its
commit (table notices, wallet notices, work to do once committed, the ledger's deferred balance
updates, the round's changed row: :meth:`Tx.on_finish`). On PostgreSQL, statements whose
results a step does not need wait and go with its next statement or its commit, in one
message (:meth:`Tx.later`), as do reads sent ahead of when the step asks for them
(:meth:`Tx.ahead`) and statements whose rows are needed at once (:meth:`Tx.together`); every
statement goes as one of the connection's prepared statements (parsed and planned once per
connection: :func:`_send_together`). Parameters are dicts keyed by the
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

import functools
import itertools
import re
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.orm import Session

try:  # run a coroutine from a step (in SQLAlchemy's greenlet: PostgreSQL's asyncio engine)
    from sqlalchemy.util import await_
except ImportError:  # SQLAlchemy 2.0
    from sqlalchemy.util import await_only as await_

if TYPE_CHECKING:
    from paigow.service.store.bus import Notice

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
    writes: bool = False
    """An INSERT, UPDATE or DELETE (not a SELECT)."""

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
    writes = not isinstance(stmt, sa.Select)
    return Compiled(str(c), names, json_in, out, defaults, writes)


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
        driver: Any = None,
    ) -> None:
        self.connection = connection
        self.database: Any = connection.engine.url
        """Tells this database from others a process may use (a key for caches of what never
        changes in a database: its tables' configurations, accounts seen to exist)."""
        self._pipe = driver
        """The driver's asyncio connection (psycopg) when statements whose results the step
        does not need may wait to be sent with the next one (:meth:`later`)."""
        self._pending: list[tuple[str, Any, bool, Hashable | None]] = []
        """What waits to be sent: (text, values, one row of values or several, the key of a
        read sent ahead)."""
        self._ahead: dict[Hashable, list[Row] | None] = {}
        """The reads sent ahead (:meth:`ahead`): their rows, None until they have been sent."""
        self.wrote = False
        """Whether a statement that changes the database has been sent (a step that fails
        before any has, has nothing to undo)."""
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
        self.kept: list[Callable[[], None]] = []
        """Work to do once this step's work is kept: at its commit, or (SQLite's writer) once its
        savepoint is released, so that the next step of the same commit finds it (caches of
        the step's own results; the writer clears them if the commit then fails)."""
        self.undone: list[Callable[[], None]] = []
        """Work to do once this step has been rolled back (never if it commits)."""
        self._finish: list[Callable[[Tx], None]] = []
        self.batches: list[tuple[int, str, int, int, list[dict[str, Any]], dict[int, int]]] = []
        """What the step appended to rounds' logs: (table id, round id, round number, first
        sequence number, events, owners of the spots wagered on)."""
        self._trace = trace

    # ------------------------------------------------------------------ statements
    def run(self, sql: Sql, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run one statement; its rows (an empty list for a statement without rows). On
        PostgreSQL's asyncio connection it goes as one of the connection's prepared statements
        (see :func:`_send_together`), with what waits."""
        if self._pipe is not None:
            return self.together((sql, params))[0]
        return self._execute(sql, params)

    def _execute(self, sql: Sql, params: Mapping[str, Any] | None) -> list[Row]:
        """Run one statement on the connection's cursor (SQLAlchemy's, on the driver's)."""
        c = self._compiled(sql)
        cur = self._cursor
        values = c.params(params)
        try:
            cur.execute(c.text, values)
            if cur.description is None:
                return []
            rows: list[Row] = list(cur.fetchall())
        except self._error as exc:
            raise self._wrap(c.text, values, exc) from exc
        if c.out is None:
            return rows
        return [c.row(r) for r in rows]

    def first(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Row | None:
        rows = self.run(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: Sql, params: Mapping[str, Any] | None = None) -> Any:
        row = self.first(sql, params)
        return None if row is None else row[0]

    def rowcount(self, sql: Sql, params: Mapping[str, Any] | None = None) -> int:
        """Run a statement without rows; how many rows it changed."""
        if self._pending:
            self._send([])
        self._execute(sql, params)
        return int(self._cursor.rowcount)

    @property
    def batched(self) -> bool:
        """Whether statements may wait to be sent with the next (:meth:`later`)."""
        return self._pipe is not None

    def later(self, sql: Sql, params: Mapping[str, Any] | None = None) -> None:
        """Run a statement whose result (rows, row count) the step does not need. With
        PostgreSQL's asyncio connection it waits to be sent with the step's next statement or
        its commit (one message and one round trip for all of them: see :func:`_send_together`);
        otherwise it runs now."""
        if self._pipe is None:
            self.run(sql, params)
            return
        c = self._compiled(sql)
        self._pending.append((c.text, c.params(params), False, None))

    def many(self, sql: Sql, rows: Iterable[Mapping[str, Any]], *, later: bool = False) -> None:
        """Run one statement for each of ``rows`` (``executemany``); ``later``: see
        :meth:`later`."""
        c = sql.compiled(self.dialect)
        params = [c.params(r) for r in rows]
        if not params:
            return
        self._compiled(sql)
        if later and self._pipe is not None:
            self._pending.append((c.text, params, True, None))
            return
        try:
            self._cursor.executemany(c.text, cast(Any, params))
        except self._error as exc:
            raise self._wrap(c.text, params, exc) from exc

    def text(
        self,
        statement: str,
        params: Sequence[Any] | Mapping[str, Any] = (),
        *,
        later: bool = False,
    ) -> list[Row]:
        """A statement of the driver's own dialect (framing: savepoints, ``pg_notify``);
        ``later``: see :meth:`later` (no rows then)."""
        if self._trace is not None:
            self._trace(statement)
        self.wrote = True  # taken as a change (a notification is one)
        if later and self._pipe is not None:
            self._pending.append((statement, params, False, None))
            return []
        if self._pending:
            return self._send([(statement, params)])[0]
        cur = self._cursor
        try:
            cur.execute(statement, params)
            return list(cur.fetchall()) if cur.description is not None else []
        except self._error as exc:
            raise self._wrap(statement, params, exc) from exc

    def commit_pending(self) -> bool:
        """Send what waits and commit, in one round trip (PostgreSQL's asyncio connection; the
        caller's ``COMMIT`` then finds nothing to do). Without waiting statements, nothing.
        True: committed."""
        if not self._pending:
            return False
        self._send([], commit=True)
        return True

    def _compiled(self, sql: Sql) -> Compiled:
        """``sql`` for this connection's dialect, traced and taken into :attr:`wrote`."""
        c = sql.compiled(self.dialect)
        if self._trace is not None:
            self._trace(c.text)
        self.wrote |= c.writes
        return c

    def _send(
        self, statements: Sequence[tuple[str, Any]], *, commit: bool = False
    ) -> list[list[Row]]:
        """Send the waiting statements, then ``statements`` (or ``COMMIT``, or nothing more),
        in one message; the rows of each of ``statements`` (those of reads sent ahead are
        kept for when they are asked for)."""
        pending, self._pending = self._pending, []
        try:
            rows, kept = await_(_send_together(self._pipe, pending, statements, commit))
            self._ahead.update(kept)
            return rows
        except self._error as exc:
            text = "COMMIT" if commit else "; ".join(t for t, _ in statements) or "(waiting)"
            params = statements[0][1] if len(statements) == 1 else None
            raise self._wrap(text, params, exc) from exc

    def together(self, *statements: tuple[Sql, Mapping[str, Any] | None]) -> list[list[Row]]:
        """Run ``statements`` in order, in one round trip where the connection allows it
        (PostgreSQL's asyncio connection: one message with what waits), and return the rows of
        each. Each statement sees what was committed before it ran (READ COMMITTED takes a
        snapshot per statement), so a read that follows a row lock in the same message sees the
        locked row as its last writer committed it. Elsewhere, one after another."""
        if self._pipe is None:
            return [self.run(sql, params) for sql, params in statements]
        if self._ahead:
            taken = self._take_ahead(statements)
            if taken is not None:
                return taken
        compiled = [self._compiled(sql) for sql, _ in statements]
        got = self._send(
            [(c.text, c.params(p)) for c, (_, p) in zip(compiled, statements, strict=True)]
        )
        return [
            rows if c.out is None else [c.row(r) for r in rows]
            for c, rows in zip(compiled, got, strict=True)
        ]

    def ahead(self, sql: Sql, params: Mapping[str, Any] | None = None) -> None:
        """Send a read the step will run later (:meth:`run`, :meth:`first`, :meth:`together`
        with the same statement and parameters) with the step's next message, rather than in a
        round trip of its own when it is asked for (PostgreSQL's asyncio connection; elsewhere
        nothing: the read runs when asked). Only for a read whose rows nothing the step sends
        in between changes (a row lock the step takes before it keeps them as they are). A
        read already sent ahead is not sent again. Parameters must be hashable values."""
        if self._pipe is None:
            return
        key = (sql, _frozen(params))
        if key in self._ahead:
            return
        c = self._compiled(sql)
        self._pending.append((c.text, c.params(params), False, key))
        self._ahead[key] = None

    def _take_ahead(
        self, statements: Sequence[tuple[Sql, Mapping[str, Any] | None]]
    ) -> list[list[Row]] | None:
        """The rows of ``statements`` if every one was sent ahead (sending what waits first if
        they have not gone yet), else None."""
        try:
            keys = [(sql, _frozen(params)) for sql, params in statements]
            if not all(k in self._ahead for k in keys):
                return None
        except TypeError:  # a parameter that is no part of a key: not sent ahead
            return None
        if any(self._ahead[k] is None for k in keys):
            self._send([])
        out = []
        for (sql, _), k in zip(statements, keys, strict=True):
            c, rows = sql.compiled(self.dialect), self._ahead.pop(k) or []
            out.append(rows if c.out is None else [c.row(r) for r in rows])
        return out

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

    def appended(
        self,
        table_id: int,
        round_id: str,
        number: int,
        start: int,
        events: list[dict[str, Any]],
        owners: dict[int, int],
    ) -> None:
        """The step appended ``events`` to a round's log (from sequence number ``start``); a
        later append of the same round that follows on joins the same batch."""
        if self.batches:
            t, r, n, s0, evs, own = self.batches[-1]
            if (t, r) == (table_id, round_id) and s0 + len(evs) == start:
                self.batches[-1] = (t, r, n, s0, evs + events, {**own, **owners})
                return
        self.batches.append((table_id, round_id, number, start, list(events), dict(owners)))

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once this step has committed (never if it rolls back)."""
        self.after.append(fn)

    def when_kept(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once this step's work is kept (see :attr:`kept`)."""
        self.kept.append(fn)

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

    @property
    def changed_nothing(self) -> bool:
        """The step has sent no change (no INSERT, UPDATE, DELETE, notification or ORM
        session): ending its transaction with a commit undoes nothing a rollback would."""
        return not self.wrote and self._session is None

    def commit_read_only(self) -> bool:
        """End a step that changed nothing with a ``COMMIT`` (PostgreSQL's asyncio connection:
        a ``ROLLBACK`` would make psycopg drop every statement it has prepared on the
        connection, and each would be parsed and planned anew). True: committed."""
        if self._pipe is None or not self.changed_nothing:
            return False
        self._pending.clear()  # only what never went: nothing of it was sent
        self._ahead.clear()
        try:
            await_(self._pipe.commit())
        except self._error:
            return False
        return True

    def abandon(self) -> None:
        """The step failed: forget its session and what waits (the caller rolls back)."""
        self._pending.clear()
        self._ahead.clear()
        if self._own_session and self._session is not None:
            self._session.rollback()
            self._session.close()
        self._session = None
        self._own_session = False
        self._finish.clear()


_PREPARABLE: Final = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
_NAMED: Final = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class _Prepared:
    """A statement's text for PostgreSQL's ``PREPARE`` (``$1 ...`` for the driver's
    placeholders) and the order of its parameters (names, or None: positional ``%s``)."""

    text: str
    names: tuple[str, ...] | None
    count: int


@functools.lru_cache(maxsize=4096)
def _preparable(text: str, named: bool) -> _Prepared | None:
    """``text`` (psycopg's ``%(name)s`` or ``%s`` placeholders) as PostgreSQL's ``$n``, or None
    for what ``PREPARE`` does not take (framing; placeholders of both kinds).

    >>> _preparable("SELECT a FROM t WHERE a = %(x)s::INTEGER OR b = %(x)s AND c = %(y)s", True)
    _Prepared(text='SELECT a FROM t WHERE a = $1::INTEGER OR b = $1 AND c = $2', names=('x', 'y'), count=2)
    >>> _preparable("SELECT pg_notify(%s, %s)", False).text
    'SELECT pg_notify($1, $2)'
    >>> _preparable("SAVEPOINT step", False) is None
    True
    """
    if not text.lstrip().upper().startswith(_PREPARABLE):
        return None
    if named:
        order: dict[str, int] = {}

        def number(m: re.Match[str]) -> str:
            return f"${order.setdefault(m.group(1), len(order) + 1)}"

        body = _NAMED.sub(number, text)
        if "%s" in body.replace("%%", ""):
            return None
        return _Prepared(body.replace("%%", "%"), tuple(order), len(order))
    if "%(" in text:
        return None
    pieces = text.replace("%%", "\0").split("%s")
    body = "".join(
        f"{piece}${i}" if i < len(pieces) else piece for i, piece in enumerate(pieces, start=1)
    )
    return _Prepared(body.replace("\0", "%"), None, len(pieces) - 1)


class _Names:
    """The statements prepared on each connection (by their text), and new names for others.
    A name is kept once the message that prepared it has run whole: a ``PREPARE`` after an
    error in its message never ran, and one before it did (prepared statements outlive a
    rollback), so the statement is prepared again under a new name."""

    def __init__(self) -> None:
        self._by_conn: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
        self._next = itertools.count(1)

    def of(self, conn: Any) -> dict[str, str]:
        names = self._by_conn.get(conn)
        if names is None:
            names = self._by_conn[conn] = {}
        return names

    def new(self) -> str:
        return f"paigow_{next(self._next)}"


_NAMES: Final = _Names()


@functools.cache
def _values(n: int) -> str:
    """The template of ``n`` values of an ``EXECUTE``."""
    return ", ".join(["%s"] * n)


async def _send_together(
    conn: Any,
    pending: list[tuple[str, Any, bool, Hashable | None]],
    statements: Sequence[tuple[str, Any]],
    commit: bool,
) -> tuple[list[list[Row]], dict[Hashable, list[Row]]]:
    """The waiting statements, then ``statements`` (or ``COMMIT``), in one message of
    PostgreSQL's simple query protocol; the rows of each of ``statements``, and those of the
    waiting reads sent ahead by their keys (none with ``COMMIT``).

    Each statement runs as a prepared statement of the connection (``EXECUTE name(values)``;
    ``PREPARE name AS ...`` goes first in the message the first time the connection meets the
    statement), so the server parses and plans it once per connection, not at every run. The
    driver binds the values into the text itself (psycopg's own quoting,
    :class:`psycopg.AsyncClientCursor`), the server runs the statements in order, each with a
    snapshot of its own (READ COMMITTED), and an error stops the rest (it is raised here; the
    transaction is then aborted and the caller rolls it back). One write and one read on the
    socket for all of them, where psycopg's pipeline mode writes each statement apart and,
    waiting for the results, polls a socket that is always writable."""
    import psycopg

    cur = psycopg.AsyncClientCursor(conn)
    known = _NAMES.of(conn)
    fresh: dict[str, str] = {}
    texts: list[str] = []
    wanted: list[tuple[int, Hashable | None]] = []  # the results to read: (position, key)

    def add(text: str, values: Any) -> None:
        named = isinstance(values, Mapping)
        prepared = _preparable(text, named)
        if prepared is None:
            texts.append(cur.mogrify(text, values))
            return
        name = known.get(text) or fresh.get(text)
        if name is None:
            name = fresh[text] = _NAMES.new()
            texts.append(f"PREPARE {name} AS {prepared.text}")
        if prepared.count == 0:
            texts.append(f"EXECUTE {name}")
            return
        args = [values[n] for n in prepared.names] if prepared.names is not None else values
        # the values' template depends on their number only: psycopg keeps its parsing (a
        # template per statement and connection, with the name in it, would not stay cached)
        texts.append(f"EXECUTE {name}({cur.mogrify(_values(prepared.count), args)})")

    for text, values, many, key in pending:
        for v in values if many else (values,):
            add(text, v)
        if key is not None and not commit:
            wanted.append((len(texts) - 1, key))
    if commit:
        texts.append("COMMIT")
    else:
        for text, values in statements:
            add(text, values)
            wanted.append((len(texts) - 1, None))
    if not texts:
        return [], {}
    try:
        await cur.execute(";\n".join(texts))
    except psycopg.errors.InvalidSqlStatementName:
        known.clear()  # something deallocated them: prepare anew (the step is retried)
        raise
    known.update(fresh)
    out: list[list[Row]] = []
    kept: dict[Hashable, list[Row]] = {}
    at = 0  # one result per statement, PREPARE's included
    for i, key in wanted:
        for _ in range(i - at):
            cur.nextset()
        rows = list(await cur.fetchall()) if cur.description is not None else []
        if key is None:
            out.append(rows)
        else:
            kept[key] = rows
        cur.nextset()
        at = i + 1
    return out, kept


def _frozen(params: Mapping[str, Any] | None) -> Hashable:
    """Parameters as part of a key (:meth:`Tx.ahead`)."""
    return tuple(sorted(params.items())) if params else ()
