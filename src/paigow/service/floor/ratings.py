"""Players rated by their decisions: each hand of a settled round at a casino table gets the
house's exact theoretical win on it, the wager times minus the exact EV of the setting the
player chose (:func:`paigow.analysis.price.price_hand`, the pricing My play shows; a hand
already priced for the player's review is read from ``round_prices``, never counted twice), kept
in ``hand_ratings`` in units of 1/53,524,680 of a cent, so that sums are exact integers.

The rating never runs in a step, nor in the server's process: :class:`Rater` has the rounds that
wait rated, a few at a time, in the floor's background worker process (the one that counts the
exact edges: :class:`paigow.service.floor.edges.EdgeWorker`, behind whatever it is computing),
and writes each batch as a step of its own on the writer; the players' page wakes it at each look
and the dealer after each settlement once that worker runs, and a wake while it runs only asks
for one more pass.
Nothing waits for it: the players' page says how many hands are rated and how many wait.

>>> exact_units(Fraction(-1955, 2)) == 1955 * UNIT // 2
True
>>> exact_units(Fraction(1, 7 * UNIT)) is None
True
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from fractions import Fraction
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session, aliased

from paigow.round import Round
from paigow.service.floor.prices import (
    PRICED,
    open_compiled,
    played_setting,
    round_hands,
    worker_database,
)
from paigow.service.statuses import TableMode
from paigow.service.store.db import Database, GameTable, RoundEvent, RoundRow, RoundWager, now
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import HandRating, RoundPrice
from paigow.variants import push_triggered

log = logging.getLogger("paigow.service.floor.ratings")

UNIT: Final = 53_524_680
"""The dealer hands of the other 46 cards (C(46, 7)): every setting's exact EV in cents is a
whole number of 1/UNIT cents (at a Face Up table a whole number of cents)."""
Step = Callable[[Callable[[Any], int]], Awaitable[int]]
"""A write run as a step on the writer."""
RATED: Final = "rated"
UNAVAILABLE: Final = "unavailable"
BATCH: Final = 4
"""Rounds rated in one pass of the pool (small: the players' prices queue behind it)."""
RATED_BEHIND_S: Final = 300.0
"""How long before the newest rated round's settlement a round still waiting is looked for:
the rater takes the oldest waiting rounds first, so every round settled before the newest rated
one is rated (or being rated by another process), but for steps committed out of the order of
their clocks, which this covers many times over. A casino's rounds grow by every round played;
the search for what waits starts here, not at the first round ever settled."""


def exact_units(ev_cents: Fraction) -> int | None:
    """The house's theoretical win, ``-ev_cents``, in 1/:data:`UNIT` cents (None: not whole)."""
    units = -ev_cents * UNIT
    return int(units) if units.denominator == 1 else None


def units_cents(units: int) -> Fraction:
    """Units of 1/:data:`UNIT` cent as exact cents."""
    return Fraction(units, UNIT)


def _casino(table: Any) -> Any:
    return table.mode == TableMode.CASINO


def _waiting_where() -> Any:
    """Settled rounds at casino tables with a hand and no rating yet."""
    rated = (
        sa.select(HandRating.round_id)
        .where(HandRating.round_id == RoundRow.id)
        .correlate(RoundRow)
        .exists()
    )
    wagers = aliased(RoundWager)
    hands = sa.select(wagers.round_id).where(wagers.round_id == RoundRow.id).correlate(RoundRow)
    hands_exist = hands.exists()
    newest = sa.select(sa.func.max(HandRating.settled_at)).scalar_subquery()
    return sa.and_(
        RoundRow.ended_at >= sa.func.coalesce(newest - RATED_BEHIND_S, 0.0),
        RoundRow.phase == "settled",
        GameTable.mode == TableMode.CASINO.value,
        hands_exist,
        sa.not_(rated),
    )


def waiting_query(limit: int = BATCH) -> sa.Select[Any]:
    """The oldest settled rounds at casino tables not rated yet (at most ``limit``), searched
    from :data:`RATED_BEHIND_S` before the newest rated round (by the rounds' ``ended_at``
    index), not from the first round ever settled."""
    return (
        sa.select(RoundRow.id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(_waiting_where())
        .order_by(RoundRow.ended_at, RoundRow.id)
        .limit(limit)
    )


def waiting_rounds(session: Session, limit: int = BATCH) -> list[str]:
    """:func:`waiting_query`'s rounds."""
    return [str(r) for (r,) in session.execute(waiting_query(limit))]


def waiting_hands(
    session: Session,
    user_ids: list[int] | None = None,
    start: float | None = None,
    end: float | None = None,
) -> dict[int, int]:
    """Hands (the main wagers and the dragon hands) waiting for their rating, by player (of
    rounds settled in [start, end) when given)."""
    out: dict[int, int] = {}
    main = (
        sa.select(RoundWager.user_id, sa.func.count())
        .join(RoundRow, RoundRow.id == RoundWager.round_id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(_waiting_where())
        .group_by(RoundWager.user_id)
    )
    dragon = (
        sa.select(RoundDragon.user_id, sa.func.count())
        .join(RoundRow, RoundRow.id == RoundDragon.round_id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(_waiting_where(), RoundDragon.user_id.is_not(None), RoundDragon.amount.is_not(None))
        .group_by(RoundDragon.user_id)
    )
    if start is not None and end is not None:
        main = main.where(RoundRow.ended_at >= start, RoundRow.ended_at < end)
        dragon = dragon.where(RoundRow.ended_at >= start, RoundRow.ended_at < end)
    if user_ids is not None:
        main = main.where(RoundWager.user_id.in_(user_ids))
        dragon = dragon.where(RoundDragon.user_id.in_(user_ids))
    for q in (main, dragon):
        for uid, n in session.execute(q):
            out[int(uid or 0)] = out.get(int(uid or 0), 0) + int(n)
    return out


def _round_rows(db: Database, round_id: str) -> list[dict[str, Any]]:
    """Each hand of one settled round at a casino table rated (not written)."""
    from paigow.analysis.price import price_hand

    with db.read() as s:
        row = s.get(RoundRow, round_id)
        table = None if row is None else s.get(GameTable, row.table_id)
        if row is None or table is None or row.phase != "settled" or not _casino(table):
            return []
        events = list(
            s.scalars(
                sa.select(RoundEvent.data)
                .where(RoundEvent.round_id == round_id)
                .order_by(RoundEvent.seq)
            )
        )
        rnd = Round.replay(events)
        hands = round_hands(s, rnd, round_id)
        priced = {
            (p.spot, p.dragon): p.data
            for p in s.scalars(sa.select(RoundPrice).where(RoundPrice.round_id == round_id))
            if p.status == PRICED and p.data
        }
        table_id, settled_at = row.table_id, float(row.ended_at or now())
    rules, way = rnd.ruleset, rnd.house_way
    exposed = None
    if rules.face_up and rnd.dealer_setting is not None and rnd.dealer_cards is not None:
        exposed = (
            rnd.dealer_setting,
            push_triggered(rules.push, rnd.dealer_cards, rnd.dealer_setting),
        )
    compiled = None
    out = []
    for spot, dragon, uid, wager in hands:
        base = {
            "round_id": round_id, "spot": spot, "dragon": dragon, "user_id": uid,
            "table_id": table_id, "wager": wager, "settled_at": settled_at, "rated_at": now(),
        }  # fmt: skip
        known = priced.get((spot, dragon))
        reason = None
        if known is not None:  # priced for the player's review: the same figure, read
            ev = Fraction(known["played"]["ev_cents"])
            house = Fraction(known["house_way"]["ev_cents"])
        else:
            if dragon:
                assert rnd.dragon_cards is not None and rnd.dragon_setting is not None
                cards, played = rnd.dragon_cards, rnd.dragon_setting
            else:
                cards, played = rnd.hands[spot], played_setting(rnd, spot)
            if exposed is None and compiled is None:
                compiled = open_compiled(way, rules.wheel)
            try:
                p = price_hand(cards, played, wager, rules, way, exposed=exposed, compiled=compiled)
                ev, house = p.played.cents, p.house_way.cents
            except ValueError as exc:
                ev, house, reason = Fraction(0), Fraction(0), str(exc)[:200]
        units = None if reason else exact_units(ev)
        house_units = None if reason else exact_units(house)
        if reason is None and (units is None or house_units is None):
            units = house_units = None
            reason = "not priced: its EV is not a whole number of units"
        out.append(
            {
                **base,
                "status": RATED if reason is None else UNAVAILABLE,
                "reason": reason,
                "theo_units": units,
                "house_units": house_units,
            }
        )
    return out


def compute_ratings(db: Database, limit: int = BATCH) -> list[dict[str, Any]]:
    """The hands of the oldest rounds waiting (at most ``limit`` rounds) rated, not written."""
    with db.read() as s:
        ids = waiting_rounds(s, limit)
    rows: list[dict[str, Any]] = []
    for rid in ids:
        rows += _round_rows(db, rid)
    return rows


def compute_ratings_at(url: str, limit: int = BATCH) -> list[dict[str, Any]]:
    """:func:`compute_ratings` in the floor's worker process (its database opened once)."""
    return compute_ratings(worker_database(url), limit)


def store_ratings(s: Session, rows: list[dict[str, Any]]) -> int:
    """Write rated hands, but none of a round another process rated first; the rows written."""
    by_round: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_round.setdefault(r["round_id"], []).append(r)
    done = {
        str(r)
        for (r,) in s.execute(
            sa.select(HandRating.round_id).where(HandRating.round_id.in_(list(by_round))).distinct()
        )
    }
    fresh = [r for rid, its in by_round.items() if rid not in done for r in its]
    if fresh:
        s.execute(sa.insert(HandRating), fresh)  # one statement for the batch, no objects
    return len(fresh)


def _store(rows: list[dict[str, Any]], tx: Any) -> int:
    return store_ratings(tx.session, rows)


def rate_waiting(db: Database, limit: int = 10_000) -> int:
    """Rate every round waiting (at most ``limit`` rounds) here and now (tests, the CLI, the
    benchmark: the service's pool does it with :class:`Rater`); the rows written."""
    written = 0
    for _ in range(max(1, limit // BATCH)):
        rows = compute_ratings(db)
        if not rows:
            break
        with db.write() as s:
            written += store_ratings(s, rows)
    return written


class Rater:
    """Rates the waiting rounds in the floor's worker process, one batch at a time, until none
    waits."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.again = False

    @property
    def busy(self) -> bool:
        """Whether a pass runs on this thread's loop now."""
        t = self.task
        if t is None or t.done():
            return False
        try:
            return t.get_loop() is asyncio.get_running_loop()
        except RuntimeError:  # no loop here
            return True

    def wake(self, db: Database, step: Step) -> None:
        """Start a pass on the running loop (or, while one runs, ask for one more); ``step``
        runs a write on the writer (:meth:`paigow.service.runtime.Runtime.step`)."""
        if self.busy:
            self.again = True
            return
        self.task = asyncio.get_running_loop().create_task(self._run(db, step))

    def nudge(self, db: Database, step: Step) -> None:
        """After a settlement: :meth:`wake`, once the floor's worker runs (an operator has
        looked at the floor or the players since the server started: a server nobody rates
        never starts a process for it)."""
        from paigow.service.floor.edges import edge_worker

        if edge_worker().started:
            self.wake(db, step)

    async def _run(self, db: Database, step: Step) -> None:
        from paigow.service.floor.edges import edge_worker

        url = db.url.render_as_string(hide_password=False)
        try:
            while True:
                self.again = False
                rows = await asyncio.wrap_future(edge_worker().submit(compute_ratings_at, url))
                if rows:
                    await step(functools.partial(_store, rows))
                elif not self.again:
                    return
        except BrokenProcessPool:  # the worker stopped with the server: rated by the next one
            return
        except Exception:  # a rating not made is no round's business: logged, tried next wake
            log.exception("rating hands")


_rater: Rater | None = None
_rater_lock = threading.Lock()


def rater() -> Rater:
    """This process's :class:`Rater`."""
    global _rater
    with _rater_lock:
        if _rater is None:
            _rater = Rater()
        return _rater
