"""SQL statements per request and per dealer step (issue 9: cut statements per transaction).

Each figure is counted with SQLAlchemy's ``before_cursor_execute`` event on the server's engines
and, for the statements the steps run on the driver (:mod:`paigow.service.store.statements`, :mod:`~paigow.service.store.unit`), the database's
``trace`` hook, on a server that runs no dealer (its steps are taken by hand here, one at a
time), so that every statement counted belongs to the request or step measured. The bounds are
what the service does now; a change that adds statements to a hot path fails here and says which
path.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.service.store import pgwire
from paigow.service.store.db import LedgerEntry, LedgerTransaction
from tests.helpers.service import Service

_SEND = pgwire.send_together


class Counter:
    """Statements run on the database's engines or on its driver while :meth:`count` is open."""

    def __init__(self, db: Any) -> None:
        self.n = 0
        self.messages = 0
        """Messages sent to PostgreSQL on the steps' connections (round trips)."""
        self.on = False
        self.lock = threading.Lock()
        self.texts: list[str] = []
        for e in dict.fromkeys((db.engine, db.read_engine)):
            sa.event.listen(e, "before_cursor_execute", self._seen)
        db.trace = self._traced

    def _traced(self, statement: str) -> None:
        self._seen(None, None, statement)

    def _seen(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if self.on:
            with self.lock:
                self.n += 1
                self.texts.append(statement.split("\n")[0][:100])

    async def _message(self, *args: Any) -> Any:
        if self.on:
            with self.lock:
                self.messages += 1
        return await _SEND(*args)

    @contextmanager
    def count(self) -> Iterator[list[int]]:
        """Statements (``[0]``) and, on PostgreSQL, messages (``[1]``) while open."""
        out = [0, 0]
        self.n, self.messages, self.texts, self.on = 0, 0, [], True
        try:
            yield out
        finally:
            self.on = False
            out[0], out[1] = self.n, self.messages


def _round(svc: Any, counter: Counter, players: int = 6) -> dict[str, int]:
    from paigow.service.game import rounds

    rt = svc.server.app.state.rt
    tid = svc.new_table(betting_time_ms=60_000, setting_time_ms=60_000)
    clients = [svc.player() for _ in range(players)]
    for i, c in enumerate(clients, start=1):
        c.sit(tid, i)
    figures: dict[str, int] = {}
    for i, c in enumerate(clients):
        with counter.count() as n:
            c.ok(c.wager(tid, 500))
        figures["first wager" if i == 0 else "wager"] = n[0]
        figures["first wager messages" if i == 0 else "wager messages"] = n[1]
    with counter.count() as n, rt.read() as s:
        view = rounds.peek(s, tid)
    figures["peek"] = n[0]
    assert view is not None and view.round_id is not None
    with counter.count() as n, rt.write() as s:
        assert rounds.deal(s, tid, view.round_id)
    figures["deal"] = n[0]
    way = HouseWay.preset("standard")
    for c in clients:
        cards = c.hand(tid)["cards"]
        low = [x.code for x in way.set_hand(parse_cards(cards)).setting.low]
        with counter.count() as n:
            c.ok(c.set(tid, low))
        figures["set"] = n[0]
        figures["set messages"] = n[1]
    with counter.count() as n, rt.write() as s:
        assert rounds.dealer_sets(s, tid, view.round_id)
    figures["dealer sets"] = n[0]
    with counter.count() as n, rt.write() as s:
        assert rounds.settle(s, tid, view.round_id)
    figures["settle"] = n[0]
    with rt.db.read() as s:  # the accounts whose balance the settlement changed
        changed = s.scalars(
            sa.select(LedgerEntry.account)
            .join(LedgerTransaction, LedgerTransaction.id == LedgerEntry.txn_id)
            .where(
                LedgerTransaction.reference == view.round_id,
                LedgerTransaction.kind == "settlement",
            )
            .group_by(LedgerEntry.account)
            .having(sa.func.sum(LedgerEntry.amount) != 0)
        ).all()
    figures["accounts settled"] = len(changed)
    figures["wallets settled"] = sum(name.startswith("wallet:") for name in changed)
    with counter.count() as n:
        listed = clients[0].ok(clients[0].get("/api/tables"))
    figures["GET /api/tables"] = n[0]
    figures["tables listed"] = len(listed)
    with counter.count() as n:
        again = clients[0].ok(clients[0].get("/api/tables"))
    figures["GET /api/tables again"] = n[0]
    assert [t["id"] for t in again] == [t["id"] for t in listed]
    with counter.count() as n:
        state = clients[0].ok(clients[0].get(f"/api/tables/{tid}"))
    figures["GET /api/tables/{id}"] = n[0]
    assert state["rounds_played"] == 1 and state["round"] is None  # settled: no current round
    with counter.count() as n:
        clients[0].ok(clients[0].get("/api/me"))
    figures["GET /api/me"] = n[0]
    return figures


def test_statements_per_request_and_step(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = Service(db_url, run_dealers=False)
    try:
        rt = svc.server.app.state.rt
        counter = Counter(rt.db)
        monkeypatch.setattr(pgwire, "send_together", counter._message)
        _round(svc, counter)  # warm caches (principals, rounds)
        figures = _round(svc, counter)
        print("\nstatements:", figures)
    finally:
        svc.stop()
    sqlite = db_url.startswith("sqlite")
    assert figures["tables listed"] == 2
    accounts, wallets = figures["accounts settled"], figures["wallets settled"]
    assert 2 <= accounts <= 9  # six wallets at most, and the table's wagers, win, commission
    assert wallets <= min(6, accounts - 1)  # the wagers in play always move
    # writes: one statement of framing either way (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
    # pg_notify of the step's notices); reads: SQLite's BEGIN. A request's step on SQLite also
    # runs in a savepoint of its own (SAVEPOINT, RELEASE: its group commits with others); the
    # dealer's steps are taken here in transactions of their own
    read = 1 if sqlite else 0
    pg = 0 if sqlite else 1
    step = 2 if sqlite else 0
    bounds = {
        # a wager: the table with its round (PostgreSQL: the round read once the table's lock
        # is held), the player's seat with their wager and limits (read only for a player who
        # has limits) in one statement, the ledger's rows, the wager, the event, the round's row;
        # on PostgreSQL it also locks the idempotency key
        "first wager": 16 + step if sqlite else 18,
        "wager": 12 + step if sqlite else 15,
        "peek": 1 + read,  # one statement: the dealer looks often
        "deal": 5 + pg,  # with the spots whose players wagered and then left (set at once)
        "set": 5 + pg + step,
        "dealer sets": 4 + pg,
        # a fixed part (the table and its round, the wagers read and closed, the ledger's
        # transaction and entries, the event, the floor's running totals and flags; SQLite's
        # BEGIN, PostgreSQL's round read and the step's notices, sent together) and one balance
        # update per account the settlement changed
        "settle": 13 + accounts if sqlite else 15 + accounts,
        "GET /api/tables": 3 + read,  # tables, seats, rounds (+ wagers): however many tables
        "GET /api/tables again": 0,  # cached until a table notice
        "GET /api/tables/{id}": 0,  # the same cache
        "GET /api/me": 2 + read,
    }
    if not sqlite:  # round trips: a wager's reads go with its key's look-up; the ledger's
        # transaction with the wallet's balance; the rest with the commit. A setting: its reads
        # with the key's look-up, its writes with the commit. (The first wager at a new table
        # also reads the table's configuration and updates its new accounts one at a time.)
        bounds.update({"first wager messages": 5, "wager messages": 3, "set messages": 2})
    over = {k: f"{figures[k]} > {v}" for k, v in bounds.items() if figures[k] > v}
    assert not over, f"more statements than allowed: {over}"
