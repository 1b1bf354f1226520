"""The steps' statements on PostgreSQL's wire: what a step sends goes in one message of the
simple query protocol (:func:`send_together`), each statement as one of the connection's
prepared statements (``PREPARE`` the first time the connection meets it, ``EXECUTE`` after), its
values bound into the text by the driver (psycopg's own quoting). The unit of work
(:class:`paigow.service.store.unit.Tx`) queues what may wait and calls this with it.
"""

from __future__ import annotations

import functools
import itertools
import re
import weakref
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
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


async def send_together(
    conn: Any,
    pending: Sequence[Pending],
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
        prepared = preparable(text, named)
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
