"""The dealer's look at a table (``rounds.peek``) counts that table's round only, and no
statement the service runs on the driver lists, inside a subquery, a table of the statement
around it (a subquery meant to follow the outer row that instead reads every row of the table:
wrong answers, and a scan of the whole table's history at every look).

The dealer's look once counted a player seated here as having wagered when they had wagered
at another table (its subquery of the round's wagers read the wagers of every table's current
round): the betting here then closed before the betting time ran out, without that player's
wager, and each look read every wager ever placed.
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from paigow.service.game import rounds
from tests.helpers.service import Service, driver_statements


def test_a_wager_at_another_table_does_not_count_here(db_url: str) -> None:
    svc = Service(db_url, run_dealers=False)
    try:
        rt = svc.server.app.state.rt
        here = svc.new_table(betting_time_ms=60_000)
        there = svc.new_table(betting_time_ms=60_000)
        both, other = svc.player(), svc.player()
        both.sit(here, 1)
        both.sit(there, 1)
        other.sit(here, 2)
        other.ok(other.wager(here, 500))
        with rt.read() as s:
            view = rounds.peek(s, here)
        assert view is not None
        assert (view.wagers, view.seated_without_wager) == (1, 1)  # `both` has not wagered here
        both.ok(both.wager(there, 500))  # ... and still has not, after wagering there
        with rt.read() as s:
            view = rounds.peek(s, here)
            view_there = rounds.peek(s, there)
        assert view is not None and view_there is not None
        assert (view.wagers, view.seated_without_wager) == (1, 1)
        assert (view_there.wagers, view_there.seated_without_wager) == (1, 0)
        both.ok(both.wager(here, 500))
        with rt.read() as s:
            view = rounds.peek(s, here)
        assert view is not None
        assert (view.wagers, view.seated_without_wager) == (2, 0)
    finally:
        svc.stop()


_TOKEN = re.compile(r"%\([^)]*\)s|'[^']*'|\(|\)|,|[A-Za-z_][A-Za-z_0-9.]*|\S")
_ENDS_FROM = {"WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "FOR", "UNION", "RETURNING", "SET"}


class _Scope:
    """A SELECT (UPDATE, INSERT, DELETE) of a statement's text: the tables its own FROM names."""

    def __init__(self, parent: _Scope | None) -> None:
        self.parent = parent
        self.tables: set[str] = set()

    def around(self) -> set[str]:
        out: set[str] = set()
        scope = self.parent
        while scope is not None:
            out |= scope.tables
            scope = scope.parent
        return out


def _relisted(text: str) -> list[str]:
    """The tables that a subquery of the SQL ``text`` names (unaliased) in its own FROM when
    the FROM of a statement around it names them too: a subquery that was meant to follow the
    outer row (to be correlated) but reads the whole table. Read off the compiled text, so what
    is checked is what the database runs."""
    scopes: list[_Scope] = []
    # per level of parentheses, the statement open at that level (None: none)
    levels: list[_Scope | None] = [None]
    state = ""  # "table": a table's name may come; "after": an alias or a comma may come
    last: str | None = None
    for tok in _TOKEN.findall(text):
        word = tok.upper()
        here = levels[-1]
        if tok == "(":
            levels.append(None)
            state = ""
        elif tok == ")":
            levels.pop()
            state = "after" if state and levels[-1] is not None else ""
            last = None  # a subquery in a FROM: what follows is its alias
        elif word in ("SELECT", "UPDATE", "INTO", "DELETE"):
            parent = next((lv for lv in reversed(levels) if lv is not None), None)
            levels[-1] = _Scope(parent)
            scopes.append(levels[-1])
            state = "" if word == "SELECT" else "table"
        elif word in ("FROM", "JOIN") or (tok == "," and state == "after"):
            state = "table"
        elif word in _ENDS_FROM or word == "ON":
            state = ""
        elif word == "AS" and state == "after":
            state = "alias"
        elif state == "alias":  # the table just named is known by an alias here
            if here is not None and last is not None:
                here.tables.discard(last)
            state = "after"
        elif state == "table" and re.fullmatch(r"[A-Za-z_][A-Za-z_0-9.]*", tok):
            if here is not None:
                here.tables.add(tok)
            last, state = tok, "after"
        elif state == "after" and word not in ("LEFT", "OUTER", "INNER", "CROSS", "FULL"):
            state = ""
    return sorted({t for scope in scopes for t in scope.tables & scope.around()})


def test_no_subquery_relists_a_table_of_its_outer_statement() -> None:
    statements = driver_statements()
    assert "paigow.service.game.rounds.steps._PEEK" in statements and len(statements) > 30
    bad = {}
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        for name, sql in statements.items():
            text = sql.compiled(dialect).text
            if found := _relisted(text):
                bad[f"{dialect.name} {name}"] = (found, text)
    assert not bad, f"subqueries that read a whole table instead of following the outer row: {bad}"


def test_the_check_finds_an_uncorrelated_subquery() -> None:
    t = sa.table("t", sa.column("id"), sa.column("current"))
    s = sa.table("s", sa.column("tid"), sa.column("uid"))
    w = sa.table("w", sa.column("rid"), sa.column("uid"))

    def statement(inner: sa.Select[Any]) -> str:
        idle = (
            sa.select(sa.func.count())
            .select_from(s)
            .where(s.c.tid == t.c.id, s.c.uid.not_in(inner))
            .scalar_subquery()
        )
        one = sa.select(t.c.id, idle).where(t.c.id == sa.bindparam("tid"))
        return str(one.compile(dialect=postgresql.dialect()))

    inner = sa.select(w.c.uid).where(w.c.rid == t.c.current)
    # two levels down, ``t`` is not correlated by itself: the subquery reads all of it
    assert _relisted(statement(inner)) == ["t"]
    assert _relisted(statement(inner.correlate(t))) == []
    aliased = sa.alias(t, "t2")  # the same table under another name is another reference
    assert _relisted(statement(sa.select(w.c.uid).where(w.c.rid == aliased.c.current))) == []
    assert _relisted("SELECT a.x FROM a JOIN b ON b.y = a.y WHERE a.z IN (SELECT b.z FROM b)") == [
        "b"
    ]
    assert _relisted("UPDATE a SET x = (SELECT max(a.x) FROM a)") == ["a"]
    assert _relisted("SELECT a.x FROM a, (SELECT c.y FROM c) AS anon_1 WHERE a.y = anon_1.y") == []
