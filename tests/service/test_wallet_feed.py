"""The wallet feed: a change's notice carries the committed balance and the wallet's version, so
the feed shows the latest balance without reading it back, whatever order notices arrive in."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from paigow.service.live.feeds import WalletItem
from paigow.service.live.wallets import watch_wallet
from paigow.service.store.bus import Channel, Kind, Notice


class _Bus:
    def __init__(self) -> None:
        self.subs: dict[Channel, Any] = {}

    def subscribe(self, channel: Channel, cb: Any) -> None:
        self.subs[channel] = cb

    def unsubscribe(self, channel: Channel, cb: Any) -> None:
        self.subs.pop(channel, None)


def test_balances_in_notices_are_shown_newest_version_first_and_never_read() -> None:
    reads: list[str] = []
    stored = {"balance": 0, "version": 0}

    @contextmanager
    def read() -> Any:
        reads.append("read")
        yield SimpleNamespace(first=lambda sql, params: (stored["balance"], stored["version"]))

    async def until(cond: Any) -> None:
        for _ in range(1000):  # up to 10 s on a loaded machine
            if cond():
                await asyncio.sleep(0.01)  # let the read's task finish its turn
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the wallet feed did not read the balance back")

    async def scenario() -> list[int]:
        bus = _Bus()
        rt = SimpleNamespace(bus=bus, read=read)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = watch_wallet(rt, 7, "ann", queue)  # type: ignore[arg-type]
        hear = bus.subs[Channel.wallet(7)]
        hear(Notice(Channel.wallet(7), Kind.WALLET, 1, balance=500, version=2))
        hear(
            Notice(Channel.wallet(7), Kind.WALLET, 1, balance=900, version=1)
        )  # older: arrives late, ignored
        hear(Notice(Channel.wallet(7), Kind.ROUND, 1))  # not a wallet notice
        hear(Notice(Channel.wallet(7), Kind.WALLET, 1, balance=300, version=3))
        assert reads == []  # every balance came in its notice
        # a notice without a balance (an older process) is read back, version included
        stored.update(balance=250, version=2)
        hear(Notice(Channel.wallet(7), Kind.WALLET, 2))
        await until(lambda: len(reads) == 1)
        stored.update(balance=100, version=4)
        hear(Notice(Channel.wallet(7), Kind.WALLET, 2))
        await until(lambda: queue.qsize() == 3)
        stop()
        assert -7 not in bus.subs
        items = []
        while not queue.empty():
            item = queue.get_nowait()
            assert isinstance(item, WalletItem)
            items.append(item.balance)
        return items

    # on a thread of its own: another test's event loop may be running on this one
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, scenario()).result() == [500, 300, 100]
    assert reads == ["read", "read"]


def test_a_wallet_notice_round_trips_through_its_encoding() -> None:
    n = Notice(Channel.wallet(7), Kind.WALLET, 3, balance=12_345, version=9)
    assert Notice.decode(n.encode()) == n
    plain = Notice(Channel.table(4), Kind.ROUND, 3)
    assert Notice.decode(plain.encode()) == plain and '"b"' not in plain.encode()
