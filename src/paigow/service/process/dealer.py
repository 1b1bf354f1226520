"""The virtual dealer: one asyncio task per table, in the one process that holds the table's
dealer lock, conducting each round by the rules (docs/rulebook.md#a-round).

The dealer reads the table's state from the database and takes the step that is due (deal when
betting closes; decline the dragon hand for a player whose turn ran out; set the bank's hand once
every player has set and the dragon hand's offer is closed, or the time limit has passed, late
hands set by the house way; settle) in the same transaction (see
:mod:`paigow.service.game.rounds`), then waits, from the table as that step left it, for a table
notice or the next deadline: a round with nothing late in it costs three transactions (the look
that deals, the look that sets the bank's hand, the settlement, a step of its own). Because
every step starts from what is committed, recovery needs nothing special: a process that takes a
table over (at startup, or when the process that dealt it dies) resumes its round from the last
committed step; a round that cannot go on is voided and every wager returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.errors import PaigowError
from paigow.service.aio import stop_tasks, woken
from paigow.service.books.audit import record
from paigow.service.floor.prices import price_worker, prices_offered, store_prices
from paigow.service.floor.ratings import rater
from paigow.service.game import rounds, seats, table_rows
from paigow.service.ops import telemetry
from paigow.service.ops.logs import ROUND_ID, TABLE_ID
from paigow.service.process.lock import DealerLocks, dealer_locks
from paigow.service.runtime import Runtime
from paigow.service.statuses import ENDED, OPEN_STATUSES, DealerStep, TableMode, TableStatus
from paigow.service.store import faults
from paigow.service.store.bus import ALL, Channel, Kind, Notice
from paigow.service.store.db import GameTable, RoundRow
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

log = logging.getLogger("paigow.service.process.dealer")
_TABLES: Final = cast(sa.Table, GameTable.__table__)
_OPEN_TABLES: Final = Sql(
    sa.select(_TABLES.c.id)
    .where(sa.or_(*(_TABLES.c.status == sa.literal_column(f"'{s}'") for s in OPEN_STATUSES)))
    .order_by(_TABLES.c.id)
)
COALESCE_S = 0.015
PAST_DEADLINE_S = 0.002
"""How long after a deadline the dealer looks: a timer may fire up to a millisecond early
(uvloop counts whole milliseconds), and a look before the deadline finds nothing due."""


_PRICING: set[asyncio.Task[None]] = set()
"""The pricing tasks in flight (kept referenced until done)."""


@dataclass(frozen=True)
class Look:
    """One look of the dealer's (:meth:`Dealer._look`): the table as found, the step that was
    due (None: none), whether it was taken, and the table as the look left it."""

    view: rounds.TableView | None
    step: DealerStep | None
    done: bool
    after: rounds.TableView | None


class Dealer:
    """Deals one table until it is closed or the task is cancelled."""

    def __init__(self, rt: Runtime, table_id: int) -> None:
        self.rt = rt
        self.table_id = table_id
        self.wake = asyncio.Event()
        self.steps = 0
        self._failures = 0
        self._seats_at = 0.0  # when to look for seats to free next (monotonic)
        self._over = False  # this dealer's last step ended the round: wait for a notice
        self._prices: bool | None = None  # whether the table prices settings (read once)
        self._casino: bool | None = None  # whether its hands are rated (read once)

    def _price(self, round_id: str) -> None:
        """Price the settled round's hands: counted in the pricing process, written as a step of
        the writer's (never waiting on its lock); the dealer goes on at once."""

        async def price() -> None:
            try:
                rows = await asyncio.wrap_future(price_worker().compute(self.rt.db, round_id))
                if rows:
                    await self.rt.step(lambda tx: store_prices(tx, rows))
            except Exception:  # a price not made is not the round's business: logged
                log.exception("pricing round %s", round_id)

        task = asyncio.get_running_loop().create_task(price())
        _PRICING.add(task)
        task.add_done_callback(_PRICING.discard)

    def _warm_prices(self) -> None:
        """At a table that prices settings: the pricing process started and ready (its tables
        and kernels loaded) before the first price is wanted."""
        try:
            with self.rt.db.read() as s:
                t = s.get(GameTable, self.table_id)
                self._prices = t is not None and prices_offered(t.mode, dict(t.ruleset))
                if t is None or not self._prices:
                    return
                rules, way = table_rows.table_ruleset(t), table_rows.table_house_way(t)
            price_worker().warm(way, rules)
        except Exception:  # the first price will start it again (or say why not)
            log.exception("starting the pricing process")

    def _prices_offered(self) -> bool:
        """Whether this table prices its players' settings (its mode and ruleset never change:
        read once)."""
        if self._prices is None:
            with self.rt.db.read() as s:
                t = s.get(GameTable, self.table_id)
                self._prices = t is not None and prices_offered(t.mode, dict(t.ruleset))
        return self._prices

    def _rated(self) -> bool:
        """Whether this table's hands are rated (a casino table's: real money; read once)."""
        if self._casino is None:
            with self.rt.db.read() as s:
                t = s.get(GameTable, self.table_id)
                self._casino = t is not None and t.mode == TableMode.CASINO
        return self._casino

    def _on_notice(self, notice: Notice) -> None:
        # ROUND: events appended, nothing for the dealer to do; DUE: a step may be due (the
        # rule: rounds.wake); TABLE: seats or status; METER: a meter moved (for the feeds)
        if notice.kind not in (Kind.ROUND, Kind.METER):
            self.wake.set()

    def _on_any(self, notice: Notice) -> None:
        if notice.kind is Kind.RESYNC:
            self.wake.set()

    async def run(self) -> None:
        self.rt.bus.subscribe(Channel.table(self.table_id), self._on_notice)
        self.rt.bus.subscribe(ALL, self._on_any)
        try:
            try:
                self._warm_prices()
                await self._resume_note()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                await self._fault(exc)
            while True:
                if not self._over:
                    self.wake.clear()  # (after a round's end it was cleared before the step)
                try:
                    done = await self._tick()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    await self._fault(exc)
                    continue
                if done:
                    return
        finally:
            self.rt.bus.unsubscribe(Channel.table(self.table_id), self._on_notice)
            self.rt.bus.unsubscribe(ALL, self._on_any)

    async def _resume_note(self) -> None:
        """On taking the table over: a round in progress resumes from its last committed step
        if its log replays; otherwise it is voided and every wager returned."""
        view = await self.rt.step(self._look_now)
        if view is None or view.round_id is None or view.phase in ENDED:
            return
        rid, phase = view.round_id, view.phase
        problem = await self.rt.step(lambda tx: self._replay_problem(tx, rid))
        if problem is None:
            await self._record(
                "round-resumed", f"round:{rid}", {"table_id": self.table_id, "phase": phase}
            )
            return
        await self._record(
            "dealer-fault",
            f"round:{rid}",
            {"table_id": self.table_id, "phase": phase, "error": problem[:500]},
        )
        await self._void(rid, "cannot resume: the log does not replay")

    async def _record(self, action: str, target: str, details: dict[str, Any]) -> None:
        await self.rt.step(lambda tx: record(tx.session, rounds.SYSTEM, action, target, details))

    @staticmethod
    def _replay_problem(tx: Tx, round_id: str) -> str | None:
        row = tx.session.get(RoundRow, round_id)
        if row is None:
            return "no such round"
        try:
            rounds.load_round(tx, row)
        except PaigowError as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

    def _look_now(self, tx: Tx) -> rounds.TableView | None:
        return rounds.peek(tx, self.table_id)

    def _look(self, tx: Tx, free_seats: bool) -> Look:
        """What is due at the table (after freeing the seats of players gone, when it is time
        to look for them), and the step that is due taken in the same transaction, the table
        looked at again after it: one step, one statement when nothing is due and no seat is
        to be freed."""
        if free_seats:
            found = seats.to_free(tx, self.table_id, self.rt.config)
            if found:
                seats.free(tx, self.table_id, found, self.rt.config)
        view = rounds.peek(tx, self.table_id)
        if view is None:
            return Look(None, None, False, None)
        step, _ = rounds.next_step(view, time.time())
        if step is None or step is DealerStep.STOP:
            return Look(view, step, False, view)
        done = self._do(tx, step, view)
        tx.finish()  # the step's deferred writes (the round's row), so that the look sees them
        return Look(view, step, done, rounds.peek(tx, self.table_id))

    async def _look_step(self, free_seats: bool) -> Look:
        """A look (:meth:`_look`) as a step of its own; answers once it has committed (timed
        under the step it took, or ``look``)."""
        TABLE_ID.set(self.table_id)  # for the logs (this dealer's task's own context)
        started = time.perf_counter()
        look = await self.rt.step(lambda tx: self._look(tx, free_seats))
        kind = look.step.value if look.step is not None and look.done else "look"
        telemetry.step_done(kind, time.perf_counter() - started)
        if look.view is not None:
            ROUND_ID.set(look.view.round_id)
        return look

    async def _tick(self) -> bool:
        longest = 10 * self.rt.config.dealer_poll_s
        if self._over:  # nothing is due until a notice (a wager) comes: no look till then
            self._over = False
            if await woken(self.wake, longest):
                await asyncio.sleep(COALESCE_S)
            return False
        free_seats = self._seats_due()
        look = await self._look_step(free_seats)
        view, step = look.view, look.step
        if view is None or step is DealerStep.STOP:
            return True
        if step is not None:
            ended = look.done
            settled = step is DealerStep.SETTLE and ended
            if step is DealerStep.DEALER and ended:  # the settlement: a step of its own, at once
                ended = settled = await self._act(DealerStep.SETTLE, view)
            if settled and view.round_id is not None and self._prices_offered():
                self._price(view.round_id)  # off the step path
            if settled and self._rated():
                rater().nudge(self.rt.db, self.rt.step)  # off the step path and this process
            self.steps += 1
            if self._failures:  # a step written after faults: writes work again
                self.rt.storage.wrote()
            self._failures = 0
            if step in (DealerStep.SETTLE, DealerStep.VOID, DealerStep.DEALER):
                self._seats_at = 0.0  # betting opens again: free the seats of players gone
                # an open table whose round this dealer ended: nothing is due before a notice
                self._over = (
                    ended and step is not DealerStep.VOID and view.status == TableStatus.OPEN
                )
                return False
        after = look.after  # the table as the look left it: wait from there
        if after is None:
            return True
        then, wait = rounds.next_step(after, time.time())
        if then is not None:
            return False  # due at once (or the table stops): the next look takes it
        # nothing to do until a notice says a step may be due, or the deadline passes; a look
        # now and then all the same, should a notice be lost (the notices heard since this
        # look began count: the wake was cleared before it)
        timeout = longest if wait is None else min(max(wait, 0.0) + PAST_DEADLINE_S, longest)
        if await woken(self.wake, timeout):
            await asyncio.sleep(COALESCE_S)  # let a burst of notices become one look
        return False

    async def _act(self, step: DealerStep, view: rounds.TableView) -> bool:
        """Take ``step`` as a step of its own (one transaction); False when it was not due after
        all. Answers once the step has committed."""
        TABLE_ID.set(self.table_id)  # for the logs (this dealer's task's own context)
        ROUND_ID.set(view.round_id)
        started = time.perf_counter()
        try:
            return await self.rt.step(lambda tx: self._do(tx, step, view))
        finally:
            telemetry.step_done(step.value, time.perf_counter() - started)

    def _do(self, tx: Tx, step: DealerStep, view: rounds.TableView) -> bool:
        rid = view.round_id
        if step is DealerStep.DEAL and rid is not None:
            return rounds.deal(tx, self.table_id, rid)
        if step is DealerStep.DEALER and rid is not None:
            return rounds.dealer_sets(tx, self.table_id, rid)
        if step is DealerStep.DRAGON and rid is not None:
            return rounds.dragon_time_out(tx, self.table_id, rid)
        if step is DealerStep.SETTLE and rid is not None:
            return rounds.settle(tx, self.table_id, rid)
        if step is DealerStep.VOID and rid is not None:
            reason = (
                "table closed"
                if view.status == TableStatus.CLOSING
                else f"cannot resume from {view.phase}"
            )
            return rounds.void(tx, self.table_id, rid, reason)
        if step is DealerStep.CLOSE:
            return rounds.finish_close(tx, self.table_id)
        return False

    def _seats_due(self) -> bool:
        """Whether to look for the seats of players gone (:mod:`paigow.service.game.seats`) in this
        look: at the opening of each betting window and every few seconds in between."""
        t = time.monotonic()
        if t < self._seats_at:
            return False
        cfg = self.rt.config
        self._seats_at = t + max(0.2, min(5.0, cfg.seat_away_s / 4 if cfg.seat_away_s else 5.0))
        return cfg.idle_rounds > 0 or cfg.seat_away_s > 0

    async def _fault(self, exc: Exception) -> None:
        """A step failed. A round the rules engine refuses to go on with (its log does not
        replay, or it disagrees with the wager records) is voided, every wager returned; other
        faults (the database unreachable, say) are recorded and the step retried with a growing
        pause: a round is never voided for an outage, it resumes when the database is back."""
        self._failures += 1
        if (full := faults.classify(exc)) is not None:  # a full or read-only database: the
            # round is held, the step retried quietly (one warning, then one every 20 tries)
            self.rt.storage.refused(full.code)  # the pages say play is paused
            if self._failures == 1 or self._failures % 20 == 0:
                log.warning("dealer at table %s holds its round: %s", self.table_id, full.code)
        else:
            log.error("dealer fault at table %s: %s: %s", self.table_id, type(exc).__name__, exc)
        details: dict[str, Any] = {
            "table_id": self.table_id,
            "error": f"{type(exc).__name__}: {exc}"[:500],
            "failures": self._failures,
        }
        if self._failures == 1 or self._failures % 20 == 0:  # no flood during an outage
            with contextlib.suppress(Exception):
                await self._record("dealer-fault", f"table:{self.table_id}", details)
        if isinstance(exc, PaigowError | rounds.InconsistentRound):
            with contextlib.suppress(Exception):
                view = await self.rt.step(self._look_now)
                if view is not None and view.round_id is not None:
                    await self._void(view.round_id, f"dealer fault: {type(exc).__name__}")
        await asyncio.sleep(min(0.2 * 2**self._failures, 5.0))

    async def _void(self, round_id: str, reason: str) -> None:
        await self.rt.step(lambda tx: rounds.void(tx, self.table_id, round_id, reason))


class DealerSupervisor:
    """Takes the dealer lock of every open table it can and runs its dealer."""

    def __init__(self, rt: Runtime, locks: DealerLocks | None = None) -> None:
        self.rt = rt
        self.locks = locks or dealer_locks(rt.db)
        self.dealers: dict[int, asyncio.Task[None]] = {}
        self.wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def _on_notice(self, notice: Notice) -> None:
        if notice.kind not in (Kind.TABLE, Kind.RESYNC):
            return
        task = None if notice.table_id is None else self.dealers.get(notice.table_id)
        if task is None or task.done():
            self.wake.set()  # a new table, or one reopened after its dealer ended

    async def start(self) -> None:
        await self.locks.start()
        self.rt.bus.subscribe(ALL, self._on_notice)
        self._task = asyncio.create_task(self._run(), name="paigow-dealers")

    async def stop(self) -> None:
        """Stop the supervisor, then every dealer (each cancelled until it has ended), then
        give the locks back."""
        self.rt.bus.unsubscribe(ALL, self._on_notice)
        if self._task is not None:
            await stop_tasks([self._task])
        await self._stop_all()
        await self.locks.stop()

    async def _stop_all(self) -> None:
        await stop_tasks(list(self.dealers.values()))
        self.dealers.clear()

    @staticmethod
    def _open_tables(tx: Tx) -> list[int]:
        return [int(tid) for (tid,) in tx.run(_OPEN_TABLES)]

    async def _run(self) -> None:
        while True:
            try:
                await self._pass()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("dealer supervisor: %s: %s", type(exc).__name__, exc)
            self.wake.clear()
            await woken(self.wake, self.rt.config.lock_poll_s)

    async def _pass(self) -> None:
        if not await self.locks.healthy():
            await self._stop_all()  # the locks may be gone: someone else may deal now
            return
        for table_id, task in list(self.dealers.items()):
            if task.done():
                del self.dealers[table_id]
                await self.locks.release(table_id)
        wanted = [t for t in await self.rt.reading(self._open_tables) if t not in self.dealers]
        if not wanted:
            return
        for table_id in sorted(await self.locks.try_acquire_all(wanted)):
            log.info("dealing table %s", table_id)
            dealer = Dealer(self.rt, table_id)
            self.dealers[table_id] = asyncio.create_task(dealer.run(), name=f"dealer-{table_id}")
