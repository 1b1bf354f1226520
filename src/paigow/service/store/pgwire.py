"""The steps' statements on PostgreSQL's wire: what a step sends goes in one message of the
simple query protocol (:func:`send_together`), each statement as one of the connection's
prepared statements (``PREPARE`` the first time the connection meets it, ``EXECUTE`` after), its
values bound into the text by the driver (psycopg's own quoting). The unit of work
(:class:`paigow.service.store.unit.Tx`) queues what may wait and calls this with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from paigow.service.store.statements import Row

Pending = tuple[str, Any, bool, Hashable | None]
"""A statement waiting to be sent: its text, its values (one row of values, or a list of rows
when the third item is true) and, for a read sent ahead, the key its rows are kept under."""

_PREPARABLE: Final = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
_NAMED: Final = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Prepared:
    """A statement's text for PostgreSQL's ``PREPARE`` (``$1 ...`` for the driver's
    placeholders) and the order of its parameters (names, or None: positional ``%s``)."""

    text: str
    names: tuple[str, ...] | None
    count: int


@functools.lru_cache(maxsize=4096)
def preparable(text: str, named: bool) -> Prepared | None:
    """``text`` (psycopg's ``%(name)s`` or ``%s`` placeholders) as PostgreSQL's ``$n``, or None
    for what ``PREPARE`` does not take (framing; placeholders of both kinds).

    >>> preparable("SELECT a FROM t WHERE a = %(x)s::INTEGER OR b = %(x)s AND c = %(y)s", True)
    Prepared(text='SELECT a FROM t WHERE a = $1::INTEGER OR b = $1 AND c = $2', names=('x', 'y'), count=2)
    >>> preparable("SELECT pg_notify(%s, %s)", False).text
    'SELECT pg_notify($1, $2)'
    >>> preparable("SAVEPOINT step", False) is None
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
        return Prepared(body.replace("%%", "%"), tuple(order), len(order))
    if "%(" in text:
        return None
    pieces = text.replace("%%", "\0").split("%s")
    body = "".join(
        f"{piece}${i}" if i < len(pieces) else piece for i, piece in enumerate(pieces, start=1)
    )
    return Prepared(body.replace("\0", "%"), None, len(pieces) - 1)


@dataclass
class Wire:
    """What the layer keeps for one connection (:func:`wire_of`: in the pool's record of it,
    which SQLAlchemy empties whenever the record opens a new DBAPI connection, so a new
    connection never takes a statement for prepared).

    ``names``: the statements the connection has prepared, by their text; ``count``: the number
    of the last name given. A name is kept once the message that prepared it has run whole: a
    ``PREPARE`` after an error in its message never ran, and one before it did (prepared
    statements outlive a rollback), so the statement is prepared again under a new name: names
    are never reused on a connection.

    ``begin``: a transaction SQLAlchemy has begun that the server has not been told of yet. The
    steps' connections are in psycopg's autocommit mode (which would send its own ``BEGIN`` in
    a round trip of its own before the first statement) and their ``BEGIN`` goes at the head of
    the transaction's first message (:func:`send_together`; a statement SQLAlchemy runs first
    sends it before itself: :func:`owe_begin`); the driver's commit and rollback then end the
    transaction as usual (psycopg sends them whenever the server is in one)."""

    names: dict[str, str] = field(default_factory=dict)
    count: int = 0
    begin: bool = False

    def new(self) -> str:
        self.count += 1
        return f"paigow_{self.count}"


def wire_of(info: dict[Any, Any]) -> Wire:
    """What the layer keeps for the connection whose pool record's ``info`` this is
    (:attr:`sqlalchemy.pool.PoolProxiedConnection.info`)."""
    wire = info.get(Wire)
    if wire is None:
        wire = info[Wire] = Wire()
    return wire


CONNECT_ARGS: Final = {"prepare_threshold": None, "autocommit": True}
"""How the steps' psycopg connections are opened for this layer: psycopg prepares nothing of
its own (it would deallocate every prepared statement, ours too, at each rollback), and in
autocommit mode it sends no ``BEGIN`` of its own, in a round trip before each transaction's
first statement: the layer sends it with that statement (:func:`owe_begin`)."""


def owe_begin(engine: Any) -> None:
    """Make the connections of ``engine`` (the steps' asyncio engine, its ``sync_engine``, whose
    connections are in psycopg's autocommit mode) begin each transaction SQLAlchemy begins
    with the transaction's first statement: at the head of its first message here, or before
    a statement SQLAlchemy itself runs first (the ORM's, a driver's statement)."""
    from sqlalchemy import event

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        wire_of(conn.connection.info).begin = True

    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _end(conn: Any) -> None:
        # a connection lost in its transaction (a PostgreSQL outage) is invalidated, its info
        # with it: touching ``conn.connection`` would raise PendingRollbackError over the
        # disconnect the writer retries (a 500 where a retry answers)
        if not conn.invalidated:
            wire_of(conn.connection.info).begin = False

    @event.listens_for(engine, "before_cursor_execute")
    def _first(conn: Any, cursor: Any, *_args: Any) -> None:
        wire = wire_of(conn.connection.info)
        if wire.begin:
            wire.begin = False
            cursor.execute("BEGIN")


Result = tuple[list[Row], int]
"""A statement's rows (none for a statement without rows) and how many rows it changed or
returned (a statement run once per row of values: the sum)."""


@functools.cache
def _values(n: int) -> str:
    """The template of ``n`` values of an ``EXECUTE``."""
    return ", ".join(["%s"] * n)


async def send_together(
    conn: Any,
    wire: Wire,
    pending: Sequence[Pending],
    statements: Sequence[Pending],
    commit: bool,
) -> tuple[list[Result], dict[Hashable, list[Row]]]:
    """The waiting statements, then ``statements`` (or ``COMMIT``), in one message of
    PostgreSQL's simple query protocol; the result of each of ``statements``, and the rows of
    the waiting reads sent ahead by their keys (none with ``COMMIT``). ``wire``: what the
    layer keeps for ``conn`` (:func:`wire_of`): its prepared statements, and a ``BEGIN`` it
    owes, which heads the message.

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
    known = wire.names
    fresh: dict[str, str] = {}
    texts: list[str] = []
    if wire.begin:
        texts.append("BEGIN")
        wire.begin = False
    wanted: list[tuple[int, int, Hashable | None]] = []
    """The results to read: the positions of a statement's results (from, to) and the key of
    a read sent ahead (None: one of ``statements``)."""

    def add(text: str, values: Any) -> None:
        named = isinstance(values, Mapping)
        prepared = preparable(text, named)
        if prepared is None:
            texts.append(cur.mogrify(text, values))
            return
        name = known.get(text) or fresh.get(text)
        if name is None:
            name = fresh[text] = wire.new()
            texts.append(f"PREPARE {name} AS {prepared.text}")
        if prepared.count == 0:
            texts.append(f"EXECUTE {name}")
            return
        args = [values[n] for n in prepared.names] if prepared.names is not None else values
        # the values' template depends on their number only: psycopg keeps its parsing (a
        # template per statement and connection, with the name in it, would not stay cached)
        texts.append(f"EXECUTE {name}({cur.mogrify(_values(prepared.count), args)})")

    def add_all(text: str, values: Any, many: bool) -> tuple[int, int]:
        at = len(texts)
        for v in values if many else (values,):
            add(text, v)
        return at, len(texts)

    for text, values, many, key in pending:
        at, end = add_all(text, values, many)
        if key is not None and not commit:
            wanted.append((at, end, key))
    if commit:
        texts.append("COMMIT")
    else:
        for text, values, many, _ in statements:
            at, end = add_all(text, values, many)
            wanted.append((at, end, None))
    if not texts:
        return [], {}
    try:
        await cur.execute(";\n".join(texts))
    except psycopg.errors.InvalidSqlStatementName:
        # something outside deallocated them (nothing in the service does: psycopg's own
        # preparing is off): the connection prepares anew from its next message
        known.clear()
        raise
    known.update(fresh)
    out: list[Result] = []
    kept: dict[Hashable, list[Row]] = {}
    at = 0  # one result per statement, PREPARE's included
    for first, end, key in wanted:
        for _ in range(first - at):
            cur.nextset()
        rows: list[Row] = []
        count = 0
        for _ in range(first, end):
            if cur.description is not None:
                rows += await cur.fetchall()
            count += max(cur.rowcount, 0)  # PREPARE's: -1
            cur.nextset()
        at = end
        if key is None:
            out.append((rows, count))
        else:
            kept[key] = rows
    return out, kept


def asyncpg_settings(options: str) -> dict[str, str]:
    """libpq's ``options`` (``-c name=value`` ...) as asyncpg's ``server_settings``.

    >>> asyncpg_settings("-csearch_path=t_1 -c statement_timeout=5s --jit=off")
    {'search_path': 't_1', 'statement_timeout': '5s', 'jit': 'off'}
    """
    import shlex

    out: dict[str, str] = {}
    words = shlex.split(options)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-c" and i + 1 < len(words):
            word, i = words[i + 1], i + 1
        elif word.startswith(("-c", "--")):
            word = word[2:]
        else:
            raise ValueError(f"unsupported PostgreSQL option for asyncpg: {word!r}")
        name, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"unsupported PostgreSQL option for asyncpg: {word!r}")
        out[name.replace("-", "_")] = value
        i += 1
    return out
