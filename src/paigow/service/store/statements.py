"""Statements compiled once: the hot paths' statements are written once as SQLAlchemy Core,
compiled once per dialect (SQLite, PostgreSQL: once per driver) and then run straight on the
DBAPI cursor of the transaction's connection (:class:`paigow.service.store.unit.Tx`), without
SQLAlchemy's per-statement layers (cache keys, execution contexts, result objects). Parameters
are dicts keyed by the statement's bind names; JSON parameters are encoded and JSON results
decoded as SQLAlchemy's ``JSON`` type does; rows are plain tuples.

>>> import sqlalchemy as sa
>>> t = sa.table("t", sa.column("a", sa.Integer), sa.column("doc", sa.JSON))
>>> q = Sql(sa.select(t.c.doc).where(t.c.a == sa.bindparam("a")))
>>> c = q.compiled(sa.create_engine("sqlite://").dialect)
>>> c.text.replace("\\n", " "), c.names
('SELECT t.doc  FROM t  WHERE t.a = ?', ('a',))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import sqlalchemy as sa

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
    """A statement (SQLAlchemy Core) compiled once per dialect's driver for the DBAPI cursor."""

    __slots__ = ("_by_dialect", "stmt")

    def __init__(self, stmt: sa.Executable) -> None:
        self.stmt = stmt
        self._by_dialect: dict[str, Compiled] = {}

    def __repr__(self) -> str:
        return f"Sql({str(self.stmt).splitlines()[0][:60]!r})"

    def compiled(self, dialect: sa.Dialect) -> Compiled:
        """The statement for ``dialect``'s driver (its placeholders: psycopg's and asyncpg's
        differ)."""
        hit = self._by_dialect.get(dialect.driver)
        if hit is None:
            hit = self._by_dialect[dialect.driver] = _compile(self.stmt, dialect)
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


def insert_into(table: sa.Table, *names: str) -> Sql:
    """``INSERT INTO table (names...) VALUES (:names...)``, each value bound with its column's
    type."""
    return Sql(sa.insert(table).values({n: sa.bindparam(n, type_=table.c[n].type) for n in names}))
