"""A standby promoted mid-play (issues 34 and 51).

A primary and its streaming standby (:func:`tests.helpers.pg_cluster.standby_pair`); two
``paigow serve`` processes given both hosts in one URL (``target_session_attrs=read-write``);
``paigow bots`` (a process of its own) plays 4 tables x 6 players through both servers and
writes every step it was acknowledged to a file (``--acks``). Once rounds have settled at every
table the primary is stopped ``immediate`` and the standby promoted.

Synchronous standby: every acknowledged wager, setting and round end is in the promoted
database (:func:`tests.helpers.acks.missing`); every table settles rounds after the promotion
with no server restarted; what was refused during the switch was answered 503 with a code and
sent again by the bots; the bots' own check (every round replayed, every wallet), the ledger
check and ``audit verify`` are clean.

Asynchronous standby whose WAL receiver is stopped a moment before the primary (so it surely
lags): the same comparison reports acknowledged steps lost. The check can catch a loss.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paigow.service.accounts.operators import create_operator
from tests.helpers import acks as ackcheck
from tests.helpers import pg_cluster
from tests.helpers.service import OPERATOR, ServerProcess

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not pg_cluster.available(), reason="no PostgreSQL 15 binaries here"),
]

TABLES = 4
PLAYERS = 6
ROUNDS = 16
OUTAGE_S = 2.0


def start_bots(urls: list[str], acks: Path, rounds: int) -> subprocess.Popen[str]:
    """``paigow bots`` on ``urls``: TABLES x PLAYERS, ``rounds`` each, acknowledgements to
    ``acks``, its report (``--json``) on stdout."""
    env = {**os.environ, "PAIGOW_OPERATOR_PASSWORD": OPERATOR[1]}
    cmd = [
        sys.executable, "-m", "paigow.cli", "bots", "--url", ",".join(urls),
        "--tables", str(TABLES), "--players", str(PLAYERS), "--rounds", str(rounds),
        "--betting-ms", "800", "--setting-ms", "3000", "--operator", OPERATOR[0],
        "--seed", "51", "--acks", str(acks), "--json",
    ]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def settled_tables(acks: Path, after: float = 0.0) -> set[int]:
    """The tables at which the bots saw a round settle after ``after`` (epoch seconds)."""
    if not acks.exists():
        return set()
    return {
        int(a["table"])
        for a in ackcheck.read(acks)
        if a["kind"] == "round-settled" and a["at"] > after
    }


def wait_for(what: Any, timeout: float, bots: subprocess.Popen[str]) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline and not what():
        if bots.poll() is not None:
            out, err = bots.communicate()
            raise AssertionError(f"the bots ended early ({bots.returncode}):\n{out}\n{err[-3000:]}")
        time.sleep(0.2)


def test_synchronous_standby_promoted_mid_play(tmp_path: Path) -> None:
    from paigow.service.books.audit import verify
    from paigow.service.books.ledger import check
    from paigow.service.store.db import Database

    acks = tmp_path / "acks.jsonl"
    t0 = time.time()
    with pg_cluster.standby_pair() as (primary, standby):
        url = pg_cluster.multi_host_url(primary, standby)
        create_operator(url, *OPERATOR)
        procs = [ServerProcess(url), ServerProcess(url)]
        try:
            bots = start_bots([p.url for p in procs], acks, rounds=ROUNDS)
            # rounds settled at every table (twice over): mid-play
            wait_for(lambda: len(settled_tables(acks)) == TABLES, 120, bots)
            time.sleep(1.0)
            primary.stop("immediate")
            time.sleep(OUTAGE_S)  # no primary: what a cluster manager takes to decide
            standby.promote()
            promoted_at = time.time()
            out, err = bots.communicate(timeout=300)
            done_at = time.time()
            logs = "".join(line for p in procs for line in p.lines[-40:])
            assert bots.returncode == 0, f"bots: {bots.returncode}\n{out[-4000:]}\n{err[-3000:]}"
            report: dict[str, Any] = json.loads(out)
            assert all(p.proc.poll() is None for p in procs), "a server ended"
        finally:
            for p in procs:
                p.stop()
        rows = ackcheck.read(acks)
        lost = ackcheck.missing(rows, standby.url())
        resumed = settled_tables(acks, promoted_at + 1)
        db = Database(standby.url())
        try:
            with db.read() as s:
                ledger = check(s)
            audit = verify(db)
        finally:
            db.dispose()
    refused = {k: v for k, v in report["errors"]["expected"].items() if k.startswith("refused")}
    print(
        f"\n{TABLES} x {PLAYERS}: {report['acks']} acknowledged; refused and retried: {refused}; "
        f"{len(resumed)} tables settled after the promotion; play {done_at - promoted_at:.0f} s "
        f"after it; the whole test {time.time() - t0:.0f} s"
    )
    assert report["acks"].get("wager") and report["acks"].get("set"), report["acks"]
    assert not any(lost.values()), f"acknowledged steps missing: {lost}"
    assert len(resumed) == TABLES, f"tables that settled after the promotion: {resumed}\n{logs}"
    assert not report["errors"]["unexpected"], (report["errors"], report["error_notes"])
    assert refused, "no step was refused during the switch"
    assert not [k for k in refused if not k.startswith("refused-503-") or k.endswith("uncoded")]
    assert report["ledger_balanced"] and not report["replay_mismatches"], report
    assert ledger.balanced, ledger.problems
    assert audit["ok"], audit


def test_asynchronous_standby_loses_acknowledged_steps(tmp_path: Path) -> None:
    acks = tmp_path / "acks.jsonl"
    with pg_cluster.standby_pair(synchronous=False) as (primary, standby):
        url = pg_cluster.multi_host_url(primary, standby)
        create_operator(url, *OPERATOR)
        procs = [ServerProcess(url), ServerProcess(url)]
        bots = start_bots([p.url for p in procs], acks, rounds=ROUNDS)
        try:
            wait_for(lambda: len(settled_tables(acks)) == TABLES, 120, bots)
            standby.stop_receiving(primary)  # it lags from here on, for certain
            cut = len(ackcheck.read(acks))
            wait_for(lambda: len(ackcheck.read(acks)) >= cut + 20, 60, bots)
            primary.stop("immediate")
            standby.promote()
            time.sleep(2)
        finally:
            bots.kill()
            bots.communicate()
            for p in procs:
                p.stop()
        rows = ackcheck.read(acks)
        lost = ackcheck.missing(rows, standby.url())
    print(
        f"\nacknowledged {len(rows)}, lost: " + ", ".join(f"{len(v)} {k}" for k, v in lost.items())
    )
    assert lost["wager"] or lost["set"] or lost["end"], "an asynchronous standby lost nothing?"
