"""The virtual dealer: one asyncio task per table, in the one process that holds the table's
dealer lock, conducting each round by the rules (SPEC.md section 5).

The dealer reads the table's state from the database, takes the step that is due (deal when betting
closes; set the bank's hand once every player has set or the time limit has passed, late hands set
by the house way; settle), each step one transaction (see :mod:`paigow.service.rounds`), and
otherwise waits for a table notice or the next deadline. Because every step starts from what is
committed, recovery needs nothing special: a process that takes a table over (at startup, or when
the process that dealt it dies) resumes its round from the last committed step; a round that cannot
go on is voided and every wager returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import sqlalchemy as sa

from paigow.errors import PaigowError
from paigow.service import rounds, seats
from paigow.service.audit import record_now
from paigow.service.db import GameTable, RoundRow
from paigow.service.events_bus import ALL, Notice
from paigow.service.lock import DealerLocks, dealer_locks
from paigow.service.runtime import Runtime
from paigow.service.statuses import ENDED, OPEN_STATUSES, DealerStep, TableStatus

log = logging.getLogger("paigow.service.dealer")
COALESCE_S = 0.015


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

    def _on_notice(self, notice: Notice) -> None:
        # "round": events appended, nothing for the dealer to do; "due": a step may be due
        # (a round opened, every seated player wagered, every hand set); "table": seats or status
        if notice.kind != "round":
            self.wake.set()

    def _on_any(self, notice: Notice) -> None:
        if notice.kind == "resync":
            self.wake.set()

    async def run(self) -> None:
        self.rt.bus.subscribe(self.table_id, self._on_notice)
        self.rt.bus.subscribe(ALL, self._on_any)
        try:
            try:
                await self._resume_note()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                await self._fault(exc)
            while True:
                if not self._over:
                    self.wake.clear()  # (after a round's end it was cleared before the step)
                try:
                    await self._free_seats()
                    done = await self._tick()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    await self._fault(exc)
                    continue
                if done:
                    return
        finally:
            self.rt.bus.unsubscribe(self.table_id, self._on_notice)
            self.rt.bus.unsubscribe(ALL, self._on_any)

    async def _resume_note(self) -> None:
        """On taking the table over: a round in progress resumes from its last committed step
        if its log replays; otherwise it is voided and every wager returned."""
        view = await asyncio.to_thread(self._peek)
        if view is None or view.round_id is None or view.phase in ENDED:
            return
        problem = await asyncio.to_thread(self._replay_problem, view.round_id)
        if problem is None:
            await asyncio.to_thread(
                record_now,
                self.rt.db,
                rounds.SYSTEM,
                "round-resumed",
                f"round:{view.round_id}",
                {"table_id": self.table_id, "phase": view.phase},
            )
            return
        await asyncio.to_thread(
            record_now,
            self.rt.db,
            rounds.SYSTEM,
            "dealer-fault",
            f"round:{view.round_id}",
            {"table_id": self.table_id, "phase": view.phase, "error": problem[:500]},
        )
        await asyncio.to_thread(self._void, view.round_id, "cannot resume: the log does not replay")

    def _replay_problem(self, round_id: str) -> str | None:
        with self.rt.db.read() as s:
            row = s.get(RoundRow, round_id)
            if row is None:
                return "no such round"
            try:
                rounds.load_round(s, row)
            except PaigowError as exc:
                return f"{type(exc).__name__}: {exc}"
        return None

    def _peek(self) -> rounds.TableView | None:
        with self.rt.db.read() as s:
            return rounds.peek(s, self.table_id)

    async def _tick(self) -> bool:
        longest = 10 * self.rt.config.dealer_poll_s
        if self._over:  # nothing is due until a notice (a wager) comes: no look till then
            self._over = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), longest)
                await asyncio.sleep(COALESCE_S)
            return False
        view = await asyncio.to_thread(self._peek)
        if view is None:
            return True
        step, wait = rounds.next_step(view, time.time())
        if step is DealerStep.STOP:
            return True
        if step is None:
            # nothing to do until a notice says a step may be due, or the deadline passes;
            # a look now and then all the same, should a notice be lost
            timeout = longest if wait is None else min(max(wait, 0.001), longest)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout)
                await asyncio.sleep(COALESCE_S)  # let a burst of notices become one look
            return False
        self.wake.clear()  # the notices that come from now on are heard after the step
        ended = await asyncio.to_thread(self._act_then, step, view)
        if step in (DealerStep.SETTLE, DealerStep.VOID, DealerStep.DEALER):
            self._seats_at = 0.0  # betting opens again: free the seats of players gone
            # an open table whose round this dealer ended: nothing is due before a notice
            self._over = (
                ended is True and step is not DealerStep.VOID and view.status == TableStatus.OPEN
            )
        self.steps += 1
        self._failures = 0
        return False

    def _act_then(self, step: DealerStep, view: rounds.TableView) -> bool | None:
        """Take ``step``; after the dealer's hand, the settlement (due at once, a transaction
        of its own) without a look in between. True: the round has ended."""
        done = self._act(step, view)
        if step is DealerStep.DEALER and done:
            done = self._act(DealerStep.SETTLE, view)
        return done

    def _act(self, step: DealerStep, view: rounds.TableView) -> bool:
        """Take ``step`` in a transaction of its own; False when it was not due after all."""
        rid = view.round_id
        done = False
        with self.rt.write() as s:
            if step is DealerStep.DEAL and rid is not None:
                done = rounds.deal(s, self.table_id, rid)
            elif step is DealerStep.DEALER and rid is not None:
                done = rounds.dealer_sets(s, self.table_id, rid)
            elif step is DealerStep.SETTLE and rid is not None:
                done = rounds.settle(s, self.table_id, rid)
            elif step is DealerStep.VOID and rid is not None:
                reason = (
                    "table closed"
                    if view.status == TableStatus.CLOSING
                    else f"cannot resume from {view.phase}"
                )
                done = rounds.void(s, self.table_id, rid, reason)
            elif step is DealerStep.CLOSE:
                done = rounds.finish_close(s, self.table_id)
        return done

    async def _free_seats(self) -> None:
        """Free the seats of players gone (:mod:`paigow.service.seats`): at the opening of each
        betting window and every few seconds in between."""
        t = time.monotonic()
        if t < self._seats_at:
            return
        cfg = self.rt.config
        self._seats_at = t + max(0.2, min(5.0, cfg.seat_away_s / 4 if cfg.seat_away_s else 5.0))
        if cfg.idle_rounds <= 0 and cfg.seat_away_s <= 0:
            return
        await asyncio.to_thread(self._free_seats_now)

    def _free_seats_now(self) -> None:
        with self.rt.db.read() as s:
            found = seats.to_free(s, self.table_id, self.rt.config)
        if found:
            with self.rt.write() as s:
                seats.free(s, self.table_id, found, self.rt.config)

    async def _fault(self, exc: Exception) -> None:
        """A step failed. A round the rules engine refuses to go on with (its log does not
        replay, or it disagrees with the wager records) is voided, every wager returned; other
        faults (the database unreachable, say) are recorded and the step retried with a growing
        pause: a round is never voided for an outage, it resumes when the database is back."""
        self._failures += 1
        log.error("dealer fault at table %s: %s: %s", self.table_id, type(exc).__name__, exc)
        details: dict[str, Any] = {
            "table_id": self.table_id,
            "error": f"{type(exc).__name__}: {exc}"[:500],
            "failures": self._failures,
        }
        if self._failures == 1 or self._failures % 20 == 0:  # no flood during an outage
            with contextlib.suppress(Exception):
                await asyncio.to_thread(
                    record_now,
                    self.rt.db,
                    rounds.SYSTEM,
                    "dealer-fault",
                    f"table:{self.table_id}",
                    details,
                )
        if isinstance(exc, PaigowError | rounds.InconsistentRound):
            view = await asyncio.to_thread(self._peek)
            if view is not None and view.round_id is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(
                        self._void, view.round_id, f"dealer fault: {type(exc).__name__}"
                    )
        await asyncio.sleep(min(0.2 * 2**self._failures, 5.0))

    def _void(self, round_id: str, reason: str) -> None:
        with self.rt.write() as s:
            rounds.void(s, self.table_id, round_id, reason)


class DealerSupervisor:
    """Takes the dealer lock of every open table it can and runs its dealer."""

    def __init__(self, rt: Runtime, locks: DealerLocks | None = None) -> None:
        self.rt = rt
        self.locks = locks or dealer_locks(rt.db)
        self.dealers: dict[int, asyncio.Task[None]] = {}
        self.wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def _on_notice(self, notice: Notice) -> None:
        if notice.kind in ("table", "resync") and notice.table_id not in self.dealers:
            self.wake.set()

    async def start(self) -> None:
        await self.locks.start()
        self.rt.bus.subscribe(ALL, self._on_notice)
        self._task = asyncio.create_task(self._run(), name="paigow-dealers")

    async def stop(self) -> None:
        self.rt.bus.unsubscribe(ALL, self._on_notice)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._stop_all()
        await self.locks.stop()

    async def _stop_all(self) -> None:
        tasks = list(self.dealers.values())
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self.dealers.clear()

    def _open_tables(self) -> list[int]:
        with self.rt.db.read() as s:
            return list(
                s.execute(
                    sa.select(GameTable.id)
                    .where(GameTable.status.in_(OPEN_STATUSES))
                    .order_by(GameTable.id)
                ).scalars()
            )

    async def _run(self) -> None:
        while True:
            try:
                await self._pass()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("dealer supervisor: %s: %s", type(exc).__name__, exc)
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.rt.config.lock_poll_s)

    async def _pass(self) -> None:
        if not await self.locks.healthy():
            await self._stop_all()  # the locks may be gone: someone else may deal now
            return
        for table_id, task in list(self.dealers.items()):
            if task.done():
                del self.dealers[table_id]
                await self.locks.release(table_id)
        for table_id in await asyncio.to_thread(self._open_tables):
            if table_id in self.dealers:
                continue
            if await self.locks.try_acquire(table_id):
                log.info("dealing table %s", table_id)
                dealer = Dealer(self.rt, table_id)
                self.dealers[table_id] = asyncio.create_task(
                    dealer.run(), name=f"dealer-{table_id}"
                )
