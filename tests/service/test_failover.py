"""A synchronous standby promoted mid-play (issue 34).

A primary and its synchronous streaming standby (:func:`tests.helpers.pg_cluster.standby_pair`);
two ``paigow serve`` processes given both hosts in one URL (``target_session_attrs=read-write``).
Players play two tables through both servers; the primary is stopped ``immediate`` and the
standby promoted. Every wager and setting the clients were acknowledged (2xx) and every round
they saw settled is in the promoted database; new rounds settle after the promotion without a
server restarted; the audit trail and the ledger check clean.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from paigow.service.accounts.operators import create_operator
from tests.helpers import pg_cluster
from tests.helpers.service import OPERATOR, Client, ServerProcess, login

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not pg_cluster.available(), reason="no PostgreSQL 15 binaries here"),
]

TABLES = 2
PLAYERS = 3  # a table (2 shared cores: 2 x 3 rather than 4 x 6)


class Acks:
    """What the clients were acknowledged, with when."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wagers: list[tuple[str, str, int]] = []  # round, username, amount
        self.sets: list[tuple[str, int, list[str]]] = []  # round, spot, low
        self.settled: dict[str, float] = {}  # round -> when first seen settled
        self.errors: list[str] = []


def play(c: Any, table: int, spot: int, acks: Acks, stop: threading.Event) -> None:
    """One player's rounds until ``stop``: wager, set the first two cards low, see it settle.
    Refusals and failures during the switch are retried; only 2xx answers are recorded."""
    rng = random.Random(spot * 100 + table)

    def get(path: str) -> Any:
        try:
            r = c.get(path)
        except httpx.HTTPError:
            return None
        return r.json() if r.status_code == 200 else None

    while not stop.is_set():
        amount = rng.choice((500, 1000, 1500))
        try:
            r = c.wager(table, amount)
        except httpx.HTTPError:
            time.sleep(0.2)
            continue
        if r.status_code != 200:
            time.sleep(0.1)
            continue
        rid = str(r.json()["round_id"])
        with acks.lock:
            acks.wagers.append((rid, c.username, amount))
        deadline = time.time() + 60
        done_set = False
        while not stop.is_set() and time.time() < deadline:
            rnd = get(f"/api/rounds/{rid}")
            if rnd is not None and rnd.get("phase") in ("settled", "voided"):
                if rnd["phase"] == "settled":
                    with acks.lock:
                        acks.settled.setdefault(rid, time.time())
                break
            hand = get(f"/api/tables/{table}/hand") if not done_set else None
            if (
                hand
                and hand.get("round_id") == rid
                and hand.get("cards")
                and not hand.get("setting")
            ):
                low = hand["cards"][:2]
                try:
                    s = c.set(table, low, confirm_foul=True)
                except httpx.HTTPError:
                    s = None
                if s is not None and s.status_code == 200:
                    with acks.lock:
                        acks.sets.append((rid, spot, sorted(low)))
                    done_set = True
            time.sleep(0.15)


def test_standby_promoted_mid_play() -> None:
    from paigow.service.books.audit import verify
    from paigow.service.books.ledger import check
    from paigow.service.store.db import Database, RoundEvent, RoundRow, RoundWager, User

    with pg_cluster.standby_pair() as (primary, standby):
        url = pg_cluster.multi_host_url(primary, standby)
        create_operator(url, *OPERATOR)
        procs = [ServerProcess(url), ServerProcess(url)]
        threads: list[threading.Thread] = []
        stop = threading.Event()
        acks = Acks()
        try:
            op = login(procs[0].url)
            tables = []
            for _ in range(TABLES):
                body = {"name": "t", "betting_time_ms": 800, "setting_time_ms": 3000}
                tables.append(int(op.ok(op.post("/api/admin/tables", body), 201)["id"]))
            for t in tables:
                for spot in range(1, PLAYERS + 1):
                    name = f"f{t}_{spot}_{secrets.token_hex(2)}"
                    anon = Client(procs[0].url)
                    body = {"username": name, "password": "password-" + name}
                    anon.ok(anon.post("/api/auth/register", body, headers=op.headers), 201)
                    op.ok(op.post(f"/api/admin/wallets/{name}/credit",
                                  {"amount": 1_000_000, "idempotency_key": secrets.token_hex(8)}))  # fmt: skip
                    c = login(procs[spot % 2].url, name, "password-" + name)
                    c.sit(t, spot)
                    th = threading.Thread(target=play, args=(c, t, spot, acks, stop), daemon=True)
                    th.start()
                    threads.append(th)
            deadline = time.time() + 60
            while time.time() < deadline and len(acks.settled) < 2 * TABLES:
                time.sleep(0.5)
            assert len(acks.settled) >= TABLES, "no rounds settled before the switch"
            time.sleep(1.5)  # mid-round
            primary.stop("immediate")
            standby.promote()
            promoted_at = time.time()
            deadline = time.time() + 90
            while time.time() < deadline:
                after = [r for r, t in acks.settled.items() if t > promoted_at + 1]
                if len(after) >= 2 * TABLES:
                    break
                time.sleep(0.5)
            stop.set()
            for th in threads:
                th.join(60)
            after = [r for r, t in acks.settled.items() if t > promoted_at + 1]
            logs = "".join(line for p in procs for line in p.lines[-40:])
            assert len(after) >= TABLES, f"no round settled after the promotion\n{logs}"
            assert all(p.proc.poll() is None for p in procs), "a server ended"
        finally:
            stop.set()
            for p in procs:
                p.stop()

        db = Database(standby.url())
        try:
            with db.read() as s:
                wagers = {
                    (r, u): a
                    for r, u, a in s.execute(
                        sa.select(RoundWager.round_id, User.username, RoundWager.amount).join(
                            User, User.id == RoundWager.user_id
                        )
                    )
                }
                sets = {
                    (r, d.get("spot"), tuple(sorted(d.get("low") or [])))
                    for r, d in s.execute(
                        sa.select(RoundEvent.round_id, RoundEvent.data).where(
                            RoundEvent.type == "hand-set"
                        )
                    )
                }
                phases = dict(s.execute(sa.select(RoundRow.id, RoundRow.phase)).all())
                ledger = check(s)
            lost_wagers = [w for w in acks.wagers if wagers.get((w[0], w[1])) != w[2]]
            lost_sets = [x for x in acks.sets if (x[0], x[1], tuple(x[2])) not in sets]
            lost_settled = [r for r in acks.settled if phases.get(r) != "settled"]
            assert acks.wagers and acks.sets
            assert not lost_wagers, f"acknowledged wagers missing: {lost_wagers}"
            assert not lost_sets, f"acknowledged settings missing: {lost_sets}"
            assert not lost_settled, f"rounds seen settled, not settled: {lost_settled}"
            assert ledger.balanced, ledger.problems
            audit = verify(db)
            assert audit["ok"], audit
            print(
                f"acknowledged: {len(acks.wagers)} wagers, {len(acks.sets)} sets, "
                f"{len(acks.settled)} rounds settled ({len(after)} after the promotion)"
            )
        finally:
            db.dispose()
