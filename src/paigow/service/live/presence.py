"""Presence: which players of this process have a WebSocket open to which table, written to their
seats every few seconds so that the dealer of any process can free the seats of players whose
every connection is gone."""

from __future__ import annotations

import asyncio
import logging

from paigow.service.runtime import Runtime

log = logging.getLogger("paigow.service.live.presence")


class Presence:
    """Which players of this process have a WebSocket open to which table; every ``interval_s``
    it writes ``seats.seen_at`` for them, so that the dealer (in whichever process) can free the
    seats of players whose every connection is gone (:mod:`paigow.service.game.seats`)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.open: dict[tuple[int, int], int] = {}
        self._task: asyncio.Task[None] | None = None
        self._writes: set[asyncio.Task[None]] = set()
        away = rt.config.seat_away_s
        self.interval_s = max(0.2, min(10.0, away / 4)) if away > 0 else 0.0

    def add(self, table_id: int, user_id: int) -> None:
        key = (table_id, user_id)
        self.open[key] = self.open.get(key, 0) + 1
        if self.open[key] == 1 and self.interval_s:
            task = asyncio.get_running_loop().create_task(self._write([key]))
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)

    def remove(self, table_id: int, user_id: int) -> None:
        key = (table_id, user_id)
        left = self.open.get(key, 0) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)

    async def _write(self, pairs: list[tuple[int, int]]) -> None:
        from paigow.service.game.seats import touch

        try:
            await self.rt.step(lambda tx: touch(tx, pairs))
        except Exception as exc:  # the database away: the next beat tries again
            log.warning("presence: %s: %s", type(exc).__name__, exc)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            if self.open:
                await self._write(list(self.open))

    def start(self) -> None:
        if self.interval_s and self._task is None:
            self._task = asyncio.create_task(self._run(), name="paigow-presence")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
