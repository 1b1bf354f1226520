"""A player's wallet watched for their WebSocket (:func:`watch_wallet`): each committed
balance put in the feed's queue as a :class:`paigow.service.live.feeds.WalletItem`, once, in
the order of the wallet's versions."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from paigow.service.live.feeds import Item, WalletItem
from paigow.service.runtime import Runtime
from paigow.service.store.bus import Channel, Kind, Notice

log = logging.getLogger("paigow.service.live.wallets")


@dataclass
class _WalletWatch:
    dirty: bool = False
    task: asyncio.Task[None] | None = None
    version: int = -1
    """The version of the last balance put in the queue (a wallet's versions only grow)."""


def watch_wallet(
    rt: Runtime, user_id: int, username: str, queue: asyncio.Queue[Item | None]
) -> Callable[[], None]:
    """Put a :class:`WalletItem` in ``queue`` each time ``user_id``'s wallet changes (a wager, a
    settlement, a void's refund, an operator's credit or debit: every ledger movement of that
    wallet notifies its channel, ``Channel.wallet(user_id)``); returns the function that stops watching. A notice
    carries the committed balance and the wallet's version: a balance goes to the queue only
    if its version is above the last one's, so the last item always holds the latest
    committed balance whatever order the notices arrive in (a notice without a balance, from
    an older process, is read, version included)."""
    from paigow.service.books import ledger

    loop = asyncio.get_running_loop()
    state = _WalletWatch()

    def offer(balance: int, version: int) -> None:
        if version <= state.version:
            return  # an older balance than the one shown
        state.version = version
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(WalletItem(balance))

    def read() -> tuple[int, int]:
        with rt.read() as tx:
            return ledger.balance_and_version(tx, ledger.wallet(username))

    async def run() -> None:
        while state.dirty:
            state.dirty = False
            try:
                balance, version = await asyncio.to_thread(read)
            except Exception as exc:  # the next change retries
                log.warning("wallet of user %s: %s: %s", user_id, type(exc).__name__, exc)
                return
            offer(balance, version)

    def on_notice(notice: Notice) -> None:
        if notice.kind is not Kind.WALLET:
            return
        if notice.balance is not None and notice.version is not None:
            offer(notice.balance, notice.version)
            return
        state.dirty = True
        if state.task is None or state.task.done():
            state.task = loop.create_task(run(), name=f"wallet-{user_id}")

    rt.bus.subscribe(Channel.wallet(user_id), on_notice)

    def stop() -> None:
        rt.bus.unsubscribe(Channel.wallet(user_id), on_notice)
        if state.task is not None:
            state.task.cancel()

    return stop
