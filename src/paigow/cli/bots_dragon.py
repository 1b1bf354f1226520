"""The dragon hand in ``paigow bots`` (:mod:`paigow.cli.bots`): at a table that offers it, a bot
watches the offer go round (from its table's WebSocket) and, when its turn comes, wagers on it
(an amount between the table minimum and its own wager), declines it or lets its turn run out;
now and then it first sends an amount above its own wager, which must be refused (422), and
sends an answer twice, which must not move money twice. The run's check then holds every dragon
wager against the replayed round and the bot's wallet."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from paigow.cli.bots_http import Api, Response
from paigow.round import Round


class Player(Protocol):
    """What answering the offer needs of a bot (:class:`paigow.cli.bots_player.Player`)."""

    cfg: Any
    api: Api
    rng: random.Random
    token: str
    name: str
    messages: list[dict[str, Any]]

    @property
    def tid(self) -> int: ...

    def expect(self, kind: str, r: Response, *codes: int) -> bool: ...

    async def _wait(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, since: int = 0
    ) -> dict[str, Any] | None: ...


_KINDS: Final = frozenset(
    {"dragon-offered", "dragon-declined", "dragon-accepted", "round-settled", "voided"}
)
IGNORE_RATE: Final = 0.15
"""How often a bot lets its turn run out (the dealer then declines for it)."""
ACCEPT_RATE: Final = 0.45
"""How often a bot wagers on the dragon hand when its turn comes (else it declines)."""
LATE: Final = ("no-dragon-offer", "not-your-turn", "not-current-round")
"""What an answer sent after its turn ran out is told (409)."""


def dragon_state(messages: Sequence[dict[str, Any]], rid: str) -> tuple[bool, int | None]:
    """The round's dragon hand as the messages tell it: (closed, the spot whose turn it is).
    A message seen twice (read back after a reconnection) counts once.

    >>> m = [{"round_id": "r", "type": "dragon-offered", "spot": 5, "order": [4, 1]},
    ...      {"round_id": "r", "type": "dragon-declined", "spot": 4}]
    >>> dragon_state(m, "r"), dragon_state(m + m[1:], "r"), dragon_state(m[:0], "r")
    ((False, 1), (False, 1), (False, None))
    """
    order: list[int] = []
    declined: set[int] = set()
    for m in messages:
        if m.get("round_id") != rid:
            continue
        kind = m.get("type")
        if kind == "dragon-offered":
            order = [int(s) for s in m["order"]]
        elif kind == "dragon-declined":
            declined.add(int(m["spot"]))
        elif kind in _KINDS:  # accepted, or the round is over
            return True, None
    left = [s for s in order if s not in declined]
    if order and not left:
        return True, None
    return False, (left[0] if left else None)


async def play_dragon(
    p: Player, rid: str, spot: int, wager: int, entry: dict[str, Any], mark: int
) -> None:
    """Answer the dragon hand's offer when the turn comes to ``spot`` (the bot's wager:
    ``wager``); ``entry``: the round's record of what the bot saw (its dragon wager goes there)."""
    cfg, stats = p.cfg, p.api.stats
    deadline = time.monotonic() + cfg.step_timeout_s
    while True:
        closed, turn = dragon_state(p.messages[mark:], rid)
        if closed:
            return
        if turn == spot:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            return
        since = len(p.messages)
        if (
            await p._wait(
                lambda m: m.get("round_id") == rid and m.get("type") in _KINDS, left, since
            )
            is None
        ):
            return
    path = f"/api/tables/{p.tid}/dragon"
    if p.rng.random() < cfg.bad_rate:  # above its own wager: refused
        body = {"accept": True, "amount": wager + 100, "idempotency_key": secrets.token_hex(8)}
        r = await p.api.call("bad", "POST", path, p.token, body)
        if r.status_code == 422 and r.code() == "outside-limits":
            stats.expected["HTTP 422"] += 1
        else:
            stats.bad("bad-request-accepted", f"POST {path} -> {r.status_code} {r.text[:200]}")
    choice = p.rng.random()
    if choice < IGNORE_RATE:
        stats.expected["dragon-ignored"] += 1  # the turn runs out: declined for the bot
        return
    accept = choice < IGNORE_RATE + ACCEPT_RATE
    body = {"accept": accept, "idempotency_key": secrets.token_hex(12), "round_id": rid}
    if accept:
        body["amount"] = p.rng.randrange(cfg.min_wager, wager + 1, 100)
    r = await p.api.call("dragon", "POST", path, p.token, body)
    if r.status_code == 409 and r.code() in LATE:
        stats.expected["dragon-too-late"] += 1  # the turn ran out first
        return
    if not p.expect("dragon", r, 200):
        return
    if accept:
        entry["dragon"] = body["amount"]
    if p.rng.random() < cfg.retry_rate:  # the same answer again: must not move money twice
        again = await p.api.call("dragon-retry", "POST", path, p.token, body)
        if again.status_code != 200 or again.json() != r.json():
            stats.bad("idempotency", f"{p.name}: dragon retry gave {again.status_code}")
        else:
            stats.expected["idempotent-replay"] += 1


def dragon_check(rnd: Round, entry: dict[str, Any], name: str) -> tuple[int, str | None]:
    """A bot's dragon wager in a round against the replay: (what it moved the bot's wallet by,
    a problem or None)."""
    mine = rnd.dragon_by is not None and rnd.dragon_by == entry["spot"]
    seen = entry.get("dragon")
    if not mine:
        problem = None if seen is None else f"{name} wagered {seen} on a dragon the log lacks"
        return 0, problem
    back = rnd.dragon_returned()
    assert back is not None and rnd.dragon_wager is not None
    if seen != rnd.dragon_wager:
        return 0, f"{name} saw a dragon wager of {seen}, the log says {rnd.dragon_wager}"
    return back[1] - rnd.dragon_wager, None
