"""The WebSocket hellos' shared reads (paigow.service.live.hellos): the hellos that arrive at a
table together share one read; none is handed a read that began before it asked (an event
committed in between would reach neither its snapshot nor its queue); an error reaches every
caller that shared the read; and over a live server, six viewers of a table each get their own
view of the round (their own cards only) from the shared read."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from paigow.service.live.hellos import SharedReads
from tests.helpers.service import Service, run_on_own_loop


def test_callers_during_a_read_share_the_next_one_which_begins_after_they_asked() -> None:
    reads: SharedReads[int, int] = SharedReads()
    version = 0  # what the table holds; each read returns what it saw when it began
    began: list[int] = []
    release = threading.Event()

    def read(key: int) -> int:
        seen = version
        began.append(seen)
        if len(began) == 1:
            release.wait(5)  # the first read is slow: others ask meanwhile
        return seen

    async def main() -> tuple[int, list[int]]:
        nonlocal version
        first = asyncio.create_task(reads.get(1, read))
        while not began:  # the first read has begun
            await asyncio.sleep(0.01)
        version = 1  # an event committed after the first read began ...
        later = [asyncio.create_task(reads.get(1, read)) for _ in range(4)]  # ... then they ask
        await asyncio.sleep(0.05)
        release.set()
        return await first, list(await asyncio.gather(*later))

    first, later = run_on_own_loop(main())  # (a browser test's loop may run on this thread)
    assert first == 0
    assert later == [1, 1, 1, 1]  # none got the read that began before it asked
    assert began == [0, 1]  # the four shared one read


def test_an_error_reaches_every_caller_and_the_next_read_is_fresh() -> None:
    reads: SharedReads[str, int] = SharedReads()
    calls: list[str] = []

    def failing(key: str) -> int:
        calls.append(key)
        raise LookupError(f"no {key}")

    async def main() -> list[Any]:
        got = await asyncio.gather(
            *(reads.get("t", failing) for _ in range(3)), return_exceptions=True
        )
        got.append(await reads.get("t", lambda key: 5))
        return got

    got = run_on_own_loop(main())
    assert [type(x) for x in got[:3]] == [LookupError] * 3 and got[3] == 5
    assert calls == ["t"]


def test_six_viewers_of_a_table_each_see_their_own_cards_in_the_hello(svc: Service) -> None:
    """Six players' WebSockets opened at once mid-round (their hellos may share one read): each
    hello names its viewer and shows their cards alone."""
    from concurrent.futures import ThreadPoolExecutor

    tid = svc.new_table(betting_time_ms=4000, setting_time_ms=60_000)
    players = [svc.player() for _ in range(6)]
    for spot, p in enumerate(players, start=1):
        p.sit(tid, spot)
    for p in players:  # every seat wagered: dealt at once
        p.ok(p.wager(tid, 500))
    players[0].wait_dealt(tid)
    with ThreadPoolExecutor(6) as pool:
        feeds = list(pool.map(lambda p: p.ws(tid), players))
    try:
        for spot, (p, feed) in enumerate(zip(players, feeds, strict=True), start=1):
            hello = feed.wait_for(lambda m: m.get("type") == "hello")
            assert hello["viewer"]["username"] == p.username, hello["viewer"]
            assert hello["round"]["phase"] == "setting", hello["round"]
            assert hello["round"]["players"] == {
                str(s): q.username for s, q in enumerate(players, 1)
            }
            (dealt,) = [e for e in hello["round"]["log"] if e["type"] == "dealt"]
            assert list(dealt["your_cards"]) == [str(spot)], (spot, dealt)  # theirs alone
            assert len(dealt["your_cards"][str(spot)]) == 7
    finally:
        for feed in feeds:
            feed.close()
