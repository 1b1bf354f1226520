"""The price of each setting, computed off the step path: after a round settles, each hand of it
(the dragon hand included) is priced by :func:`paigow.analysis.price.price_hand` on a thread of
this module's own pool (:func:`compute_prices`) and stored in ``round_prices`` by a step of its
own (:func:`store_prices`); a settlement never waits for it.

A practice table always prices its hands; a casino table when the operator offers it
(``price_settings``). At a Face Up table each setting is priced against the dealer's exposed
setting; otherwise over every dealer hand, with the house way's compiled table when this server
has it (never built here: ``paigow analyze`` builds it; without it the row says the hand is not
priced, and why), under the table's push rule.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.errors import PaigowError
from paigow.events import HandSet
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.round import Round
from paigow.ruleset import Ruleset
from paigow.service.config import ServiceConfig
from paigow.service.orphans import exit_with_parent
from paigow.service.statuses import TableMode
from paigow.service.store.db import Database, GameTable, RoundEvent, RoundRow, RoundWager, now
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import RoundPrice
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx
from paigow.setting import Setting
from paigow.variants import push_triggered

PRICED: Final = "priced"
UNAVAILABLE: Final = "unavailable"


def prices_offered(mode: str, ruleset: dict[str, Any]) -> bool:
    """Whether a table prices its players' settings: a practice table always, a casino table
    when the operator offers it.

    >>> prices_offered("practice", {}), prices_offered("casino", {}), prices_offered("casino", {"price_settings": True})
    (True, False, True)
    """
    return mode == TableMode.PRACTICE or bool(ruleset.get("price_settings"))


_compiled: dict[str, Any] = {}
_compiled_lock = threading.Lock()


def open_compiled(way: HouseWay, wheel: Wheel) -> Any | None:
    """The house way's compiled table if its file exists here (opened once a process)."""
    from paigow.analysis.compiled import CompiledHouseWay, cache_path

    path = cache_path(way, wheel)
    with _compiled_lock:
        if str(path) in _compiled:
            return _compiled[str(path)]
        if not path.exists():
            return None
        try:
            opened = CompiledHouseWay.open(way, wheel, build_missing=False)
        except PaigowError:
            return None
        _compiled[str(path)] = opened
        return opened


def played_setting(rnd: Round, spot: int) -> Setting:
    """The setting the spot's player played: the foul they submitted when the house way reset
    it, else the setting that was settled."""
    for e in rnd.events:
        if isinstance(e, HandSet) and e.spot == spot and e.submitted is not None:
            from paigow.cards import parse_cards

            return Setting(parse_cards(e.submitted[0]), parse_cards(e.submitted[1]))
    return rnd.settings[spot]


def round_hands(s: Session, rnd: Round, round_id: str) -> list[tuple[int, bool, int, int]]:
    """Each hand of the round to price: (spot, dragon, user id, wager)."""
    out = [
        (int(spot), False, int(uid), int(amount))
        for spot, uid, amount in s.execute(
            sa.select(RoundWager.spot, RoundWager.user_id, RoundWager.amount).where(
                RoundWager.round_id == round_id
            )
        )
        if int(spot) in rnd.results
    ]
    d = s.get(RoundDragon, round_id)
    if (
        d is not None
        and rnd.dragon_result is not None
        and d.user_id is not None
        and d.by_spot is not None
        and d.amount is not None
    ):
        out.append((int(d.by_spot), True, int(d.user_id), int(d.amount)))
    return out


def price_round(db: Database, round_id: str) -> int:
    """Price every hand of a settled round at a table that prices settings; the rows written
    (0: not such a table, not settled, or priced already)."""
    rows = compute_prices(db, round_id)
    if not rows:
        return 0
    with db.write() as s:
        return store_prices(Tx(s.connection(), s), rows)


_PRICES: Final = cast(sa.Table, RoundPrice.__table__)
_PRICED: Final = Sql(
    sa.select(_PRICES.c.round_id).where(_PRICES.c.round_id == sa.bindparam("round_id")).limit(1)
)
_INSERT_PRICE: Final = Sql(
    sa.insert(_PRICES).values({c.name: sa.bindparam(c.name, type_=c.type) for c in _PRICES.columns})
)


def store_prices(tx: Tx, rows: list[dict[str, Any]]) -> int:
    """Write a round's priced hands (``rows``: :func:`compute_prices`'), unless another
    process priced the round first; the rows written. Two compiled statements on the step's
    connection (no ORM session: it is a step of the writer's for every settled round)."""
    if not rows:
        return 0
    if tx.first(_PRICED, {"round_id": rows[0]["round_id"]}) is not None:
        return 0
    tx.many(_INSERT_PRICE, rows, later=True)
    return len(rows)


def compute_prices(db: Database, round_id: str) -> list[dict[str, Any]]:
    """Each hand of a settled round priced (the rows of ``round_prices``, not written): none
    when the table does not price settings, the round is not settled or is priced already."""
    from paigow.analysis.price import price_hand

    with db.read() as s:
        row = s.get(RoundRow, round_id)
        if row is None or row.phase != "settled":
            return []
        table = s.get(GameTable, row.table_id)
        if table is None or not prices_offered(table.mode, dict(table.ruleset)):
            return []
        if s.execute(
            sa.select(RoundPrice.round_id).where(RoundPrice.round_id == round_id).limit(1)
        ).first():
            return []
        events = [
            e
            for (e,) in s.execute(
                sa.select(RoundEvent.data)
                .where(RoundEvent.round_id == round_id)
                .order_by(RoundEvent.seq)
            )
        ]
        rnd = Round.replay(events)
        hands = round_hands(s, rnd, round_id)
        table_id, number = row.table_id, row.number
        settled_at = float(row.ended_at or now())
    rules, way = rnd.ruleset, rnd.house_way
    exposed = None
    if rules.face_up and rnd.dealer_setting is not None and rnd.dealer_cards is not None:
        pushes = push_triggered(rules.push, rnd.dealer_cards, rnd.dealer_setting)
        exposed = (rnd.dealer_setting, pushes)
    compiled = None if exposed is not None else open_compiled(way, rules.wheel)
    rows = []
    for spot, dragon, uid, wager in hands:
        if dragon:
            assert rnd.dragon_cards is not None and rnd.dragon_setting is not None
            cards, played = rnd.dragon_cards, rnd.dragon_setting
        else:
            cards, played = rnd.hands[spot], played_setting(rnd, spot)
        base = {
            "round_id": round_id,
            "spot": spot,
            "dragon": dragon,
            "user_id": uid,
            "table_id": table_id,
            "round_number": number,
            "wager": wager,
            "settled_at": settled_at,
            "priced_at": now(),
        }
        try:
            p = price_hand(cards, played, wager, rules, way, exposed=exposed, compiled=compiled)
        except ValueError as exc:
            rows.append(
                {
                    **base, "status": UNAVAILABLE, "reason": str(exc)[:200], "given_up": 0.0,
                    "house_given_up": 0.0, "data": {"cards": [c.code for c in cards]},
                }
            )  # fmt: skip
            continue
        rows.append(
            {
                **base,
                "status": PRICED,
                "reason": None,
                "given_up": float(p.given_up_cents),
                "house_given_up": float(p.house_given_up_cents),
                "data": p.to_dict(),
            }
        )
    return rows


class PriceWorker:
    """Prices settled rounds in a worker process of its own (``spawn``, ending with the server),
    so that neither a step nor the serving process spends a cycle on it; the dealer writes what
    it counts as a step of the writer's. Not niced, unlike the floor's worker (whose exact edges
    take minutes): a price is milliseconds and the player waits for it, so it takes the CPU the
    serving process leaves at the same priority. The server's shutdown stops it
    (:func:`shutdown_price_worker`)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def compute(self, db: Database, round_id: str) -> Future[list[dict[str, Any]]]:
        """:func:`compute_prices` of the round, counted off this process (its rows, not
        written)."""
        return self._submit(compute_prices_at, db, round_id)

    def _submit(self, fn: Any, db: Database, arg: Any) -> Future[Any]:
        """``fn(url, arg)`` in the pricing process, ``url`` the database's."""
        return self._run(fn, db.url.render_as_string(hide_password=False), arg)

    def _run(self, fn: Any, *args: Any) -> Future[Any]:
        """``fn(*args)`` in the pricing process (started if it is not running)."""
        for _ in range(2):  # a pool broken by a lost worker is replaced once
            with self._lock:
                if self._pool is None:
                    self._pool = ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=exit_with_parent,
                        initargs=(os.getpid(),),
                    )
                pool = self._pool
            try:
                return pool.submit(fn, *args)
            except BrokenProcessPool:
                with self._lock:
                    if self._pool is pool:
                        self._pool = None
        raise BrokenProcessPool("the pricing process could not be started")

    def shutdown(self) -> None:
        """Stop the pricing process (the server's shutdown); a price asked afterwards starts
        another."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def warm(self, way: HouseWay, rules: Ruleset) -> Future[None]:
        """Start the process and have it load what pricing a table of ``rules`` and ``way``
        needs (:func:`warm_at`), before the table's first round settles."""
        return self._run(warm_at, way, rules)


_dbs: OrderedDict[str, Database] = OrderedDict()
_DBS_KEPT: Final = 4
"""Databases a worker process keeps open."""


def worker_database(url: str) -> Database:
    """A worker process's database at ``url`` (the pricing process's, the floor worker's), opened
    once with the environment's settings; the last few kept (a test run's servers each have
    their own)."""
    db = _dbs.pop(url, None) or Database.of(ServiceConfig.from_env(url))
    _dbs[url] = db
    while len(_dbs) > _DBS_KEPT:
        _dbs.popitem(last=False)[1].dispose()
    return db


def compute_prices_at(url: str, round_id: str) -> list[dict[str, Any]]:
    """:func:`compute_prices` in the pricing process."""
    return compute_prices(worker_database(url), round_id)


_WARM_HAND: Final = ("As Kd Qh Jc 9s 5d 2c", "Ts 8d 7h 6c 4s 3d 3c")
"""Any seven cards and a dealer's seven others: the hand :func:`warm_at` prices."""


def warm_at(way: HouseWay, rules: Ruleset) -> None:
    """In the pricing process, before a table's first round settles: load what pricing its hands
    needs (its compiled table, the kernels, the optimal player's structures) by pricing one hand,
    so that the first price waits on none of it."""
    from paigow.analysis.price import price_hand
    from paigow.cards import parse_cards

    cards, dealer = (parse_cards(text) for text in _WARM_HAND)
    exposed = (way.set_hand(dealer).setting, False) if rules.face_up else None
    compiled = None if exposed is not None else open_compiled(way, rules.wheel)
    if exposed is None and compiled is None:
        return  # nothing here to load: its hands are recorded as not priced
    with contextlib.suppress(PaigowError, ValueError):  # a price not made here: made later
        price_hand(
            cards, way.set_hand(cards).setting, 100, rules, way, exposed=exposed, compiled=compiled
        )


_worker: PriceWorker | None = None
_worker_lock = threading.Lock()


def price_worker() -> PriceWorker:
    """This process's :class:`PriceWorker`."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = PriceWorker()
        return _worker


def shutdown_price_worker() -> None:
    """Stop this process's pricing process if it was started (the server's shutdown, after its
    dealers': a pool left to the interpreter's exit leaks its queues' semaphores on SIGTERM)."""
    with _worker_lock:
        worker = _worker
    if worker is not None:
        worker.shutdown()
