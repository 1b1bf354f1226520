"""``/metrics`` read with Prometheus' own text parser after real play; its door; the dashboard's
and the alert rules' metric names found in a real scrape; promtool over the alert rules."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
import yaml  # type: ignore[import-untyped]  # PyYAML (schemathesis, bandit), no stubs here
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.service import OPERATOR, LiveServer, Service, pg_schema, run_bots

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs" / "ops" / "grafana-dashboard.json"
ALERTS = ROOT / "docs" / "ops" / "alerts.yml"
ALERT_TESTS = ROOT / "tests" / "service" / "ops_alerts_test.yml"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str, token: str | None) -> tuple[Samples, str]:
    """Every sample of ``/metrics`` by (name, labels but ``process``), and the raw text; each
    sample's ``process`` label checked to be this process's."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.get(f"{url}/metrics", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    me = f"{socket.gethostname()}:{os.getpid()}"  # the LiveServer runs in this process
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            labels = dict(s.labels)
            assert labels.pop("process") == me, s
            samples[(s.name, frozenset(labels.items()))] = s.value
    return samples, r.text


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def settled_rounds(db_url: str) -> int:
    return _count(db_url, "rounds", "settled")


def _count(db_url: str, what: str, phase: str | None = None) -> int:
    """Rows of the rounds (of a phase) or of the wagers on them."""
    from paigow.service.store.db import Database, RoundRow, RoundWager

    db = Database(db_url)
    try:
        with db.read() as s:
            q = sa.select(sa.func.count()).select_from(RoundRow if what == "rounds" else RoundWager)
            if phase is not None:
                q = q.where(RoundRow.phase == phase)
            return int(s.execute(q).scalar_one())
    finally:
        db.dispose()


def test_metrics_count_what_was_played(sqlite_url: str) -> None:
    """Rounds settled (plain tables) equal the rounds settled in the database; wager and settle
    steps timed; a refusal counted under its code; a WebSocket counted while open; the ledger's
    imbalance 0 and the wallets' total what the players hold."""
    svc = Service(sqlite_url)
    try:
        token = svc.op.token
        before, _ = scrape(svc.url, token)
        report = run_bots(
            svc.url,
            tables=1,
            players=2,
            rounds=3,
            betting_ms=300,
            setting_ms=2000,
            side_wagers=False,
            bad_rate=0.0,
            retry_rate=0.0,
            foul_rate=0.0,
            seed=7,
        )
        assert report["ledger_balanced"], report
        after, _ = scrape(svc.url, token)
        settled = settled_rounds(sqlite_url)
        assert settled >= 3

        def delta(name: str, kind: str, **more: str) -> float:
            return value(after, name, kind=kind, **more) - value(before, name, kind=kind, **more)

        ended = "paigow_rounds_ended_total"
        assert delta(ended, "casino", outcome="settled") == settled
        assert delta(ended, "casino", outcome="voided") == 0
        assert delta("paigow_rounds_dealt_total", "casino") == settled
        assert delta("paigow_step_seconds_count", "settle") >= settled
        assert delta("paigow_step_seconds_count", "deal") >= settled
        # each wager the players placed (a loaded machine may let a betting time pass first)
        assert delta("paigow_step_seconds_count", "wager") >= _count(sqlite_url, "wagers") > 0
        assert value(after, "paigow_ledger_imbalance_cents") == 0
        assert value(after, "paigow_wallets_total_cents") > 0

        # a refusal, counted under its code
        r = httpx.get(f"{svc.url}/api/me", timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "not-logged-in"
        refused, _ = scrape(svc.url, token)
        assert (
            value(refused, "paigow_refusals_total", code="not-logged-in")
            - value(after, "paigow_refusals_total", code="not-logged-in")
            == 1
        )

        # a WebSocket, counted while open
        player = svc.player()
        ws = player.ws(1)
        try:
            ws.wait_for(lambda m: m.get("type") == "hello")
            opened, _ = scrape(svc.url, token)
            assert (
                value(opened, "paigow_websockets_open")
                == value(refused, "paigow_websockets_open") + 1
            )
        finally:
            ws.close()
        deadline = time.time() + 10
        while time.time() < deadline:
            closed, _ = scrape(svc.url, token)
            if value(closed, "paigow_websockets_open") == value(refused, "paigow_websockets_open"):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the closed WebSocket is still counted")

        # the door: a player's token 403, no token from an unlisted address 401
        r = httpx.get(f"{svc.url}/metrics", headers=player.headers, timeout=10)
        assert r.status_code == 403 and r.json()["code"] == "metrics-forbidden", r.text
        r = httpx.get(f"{svc.url}/metrics", timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "metrics-unauthorized", r.text
    finally:
        svc.stop()


def test_a_listed_address_needs_no_token(sqlite_url: str) -> None:
    """``metrics_allow`` lists 127.0.0.0/8: a scrape without a token is served; a list without
    this address still refuses it."""
    from paigow.service.accounts.operators import create_operator

    create_operator(sqlite_url, *OPERATOR)
    listed = LiveServer(sqlite_url, metrics_allow="10.1.2.3, 127.0.0.0/8")
    try:
        r = httpx.get(f"{listed.url}/metrics", timeout=10)
        assert r.status_code == 200, r.text
        names = {f.name for f in text_string_to_metric_families(r.text)}
        assert "paigow_ledger_imbalance_cents" in names
    finally:
        listed.stop()
    unlisted = LiveServer(sqlite_url, metrics_allow="10.0.0.0/8")
    try:
        r = httpx.get(f"{unlisted.url}/metrics", timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "metrics-unauthorized"
    finally:
        unlisted.stop()


def _exprs() -> list[str]:
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    rules = yaml.safe_load(ALERTS.read_text())
    exprs += [r["expr"] for g in rules["groups"] for r in g["rules"]]
    return exprs


def test_dashboard_and_alerts_name_only_exported_metrics(sqlite_url: str) -> None:
    """Every ``paigow_*`` name in the dashboard's and the alert rules' expressions is a sample
    name of a real scrape (after a labelled sample of each family exists)."""
    from paigow.service.ops import telemetry

    svc = Service(sqlite_url)
    try:
        # one sample of each labelled family, so that its series are in the scrape
        telemetry.DB_ERRORS.labels("busy")
        telemetry.DB_RETRIES.labels("deadlock")
        telemetry.REFUSALS.labels("busy")
        telemetry.STEP_SECONDS.labels("wager")
        telemetry.BACKGROUND_DONE.labels("edge", "ok")
        _, text = scrape(svc.url, svc.op.token)
    finally:
        svc.stop()
    exported = {s.name for f in text_string_to_metric_families(text) for s in f.samples}
    named = {n for e in _exprs() for n in re.findall(r"\bpaigow_[a-z_]+", e)}
    assert len(named) >= 16, named
    assert named <= exported, named - exported
    for name in (  # read at scrape, with no sample made above
        "paigow_house_balance_cents",
        "paigow_db_connections_in_use",
        "paigow_db_steps_waiting",
        "paigow_background_jobs",
    ):
        assert name in exported, name
    dash = json.loads(DASHBOARD.read_text())
    assert all(p["targets"][0]["datasource"]["type"] == "prometheus" for p in dash["panels"])


@pytest.mark.slow
def test_promtool_checks_the_rules_and_each_alert_fires() -> None:
    """``promtool check rules`` passes on the alert rules, and ``promtool test rules`` shows each
    alert firing on a recorded bad series and quiet on a healthy one."""
    check = subprocess.run(
        ["promtool", "check", "rules", str(ALERTS)], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "SUCCESS: 6 rules found" in check.stdout
    tested = subprocess.run(
        ["promtool", "test", "rules", str(ALERT_TESTS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    fired = yaml.safe_load(ALERT_TESTS.read_text())
    alerts = {
        t["alertname"]
        for case in fired["tests"]
        for t in case["alert_rule_test"]
        if t["exp_alerts"]
    }
    rules = {r["alert"] for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]}
    assert alerts == rules  # each alert is shown firing


def test_notices_between_processes_are_timed() -> None:
    """Two servers on one PostgreSQL database (here in one process, each with its own bus): the
    notices one's steps send reach the other over ``LISTEN``, and their lag is observed."""
    with pg_schema() as url:
        svc = Service(url)
        other = LiveServer(url, run_dealers=False)
        try:
            before, _ = scrape(svc.url, svc.op.token)
            run_bots(
                svc.url, tables=1, players=2, rounds=1, betting_ms=300, side_wagers=False, seed=3
            )
            time.sleep(0.5)  # the last notices on their way to the other server
            after, _ = scrape(other.url, svc.op.token)
        finally:
            other.stop()
            svc.stop()
    count = value(after, "paigow_notice_lag_seconds_count") - value(
        before, "paigow_notice_lag_seconds_count"
    )
    total = value(after, "paigow_notice_lag_seconds_sum") - value(
        before, "paigow_notice_lag_seconds_sum"
    )
    assert ("paigow_db_connections_in_use", frozenset({("pool", "steps")})) in after
    assert value(after, "paigow_db_steps_waiting") == 0  # the steps' pool lends at once here
    assert count >= 4, count  # wagers, the deal, the settings, the settlement at least
    assert 0 <= total / count < 1.0  # on one machine, well under a second each


def _house_low(cards: list[str]) -> list[str]:
    from paigow.cards import parse_cards
    from paigow.house_way import HouseWay

    way = HouseWay.preset("standard")
    return [c.code for c in way.set_hand(parse_cards(cards)).setting.low]


def _play_one(player: Any, table: int) -> None:
    """``player`` (seated alone at ``table``) wagers, sets by the house way, sees it settle."""
    player.ok(player.wager(table, 1000))
    dealt = player.wait_dealt(table)
    player.ok(player.set(table, _house_low(dealt["cards"])))
    player.wait_phase(table, (None, "settled"))


def test_rounds_by_table_kind_and_outcome_and_every_step_timed(sqlite_url: str) -> None:
    """A practice, an EZ and a face-up table each play a round to its settlement, a casino
    table's round is voided by its closing: each counted under its kind and outcome once; the
    wager, side wager, set, leave, deal, settle and void steps are each timed; the house's
    accounts and the connection pools are in the scrape."""
    svc = Service(sqlite_url)
    try:
        token = svc.op.token
        practice = svc.new_table(mode="practice", betting_time_ms=5000)
        ez = svc.new_table(variant="ez", betting_time_ms=5000)
        face_up = svc.new_table(variant="face-up", mode="practice", betting_time_ms=5000)
        casino = svc.new_table(betting_time_ms=60_000)
        before, _ = scrape(svc.url, token)
        for table in (practice, ez, face_up):
            p = svc.player()
            p.sit(table, 1)
            _play_one(p, table)
        p.ok(p.post(f"/api/tables/{face_up}/leave"))
        q, idle = svc.player(), svc.player()
        q.sit(casino, 1)
        idle.sit(casino, 2)  # seated without a wager: betting stays open (60 s)
        q.ok(q.wager(casino, 1000))
        r = q.post(
            f"/api/tables/{casino}/side-wagers", {"side": {"x": 100}, "idempotency_key": "s"}
        )
        assert r.status_code >= 400, r.text  # no such offer: refused, still a step
        assert svc.op.ok(svc.op.post(f"/api/admin/tables/{casino}/close"))["status"] == "closing"
        q.wait_phase(casino, (None, "voided"))
        deadline = time.time() + 10
        while True:  # the void counted once its step committed, and no step left queued
            after, text = scrape(svc.url, token)  # (a loaded machine may still be running one)
            if value(
                after, "paigow_rounds_ended_total", kind="casino", outcome="voided"
            ) and not value(after, "paigow_db_steps_waiting"):
                break
            assert time.time() < deadline, "the void not counted, or steps left queued"
            time.sleep(0.05)
    finally:
        svc.stop()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ended = "paigow_rounds_ended_total"
    for kind in ("practice", "ez", "face_up"):
        assert delta("paigow_rounds_dealt_total", kind=kind) == 1, kind
        assert delta(ended, kind=kind, outcome="settled") == 1, kind
        assert delta(ended, kind=kind, outcome="voided") == 0, kind
    assert delta("paigow_rounds_dealt_total", kind="casino") == 0
    assert delta(ended, kind="casino", outcome="settled") == 0
    assert delta(ended, kind="casino", outcome="voided") == 1
    for step in ("wager", "side", "set", "leave", "deal", "settle", "void"):
        assert delta("paigow_step_seconds_count", kind=step) >= 1, step
        # the buckets run from 1 ms to 2 s
        assert ("paigow_step_seconds_bucket", frozenset({("kind", step), ("le", "0.001")})) in after
        assert ("paigow_step_seconds_bucket", frozenset({("kind", step), ("le", "2.0")})) in after
    # the house's accounts by kind: the tables' wins and commissions mirror the wallets' losses
    house = {
        dict(labels)["account"]: v
        for (name, labels), v in after.items()
        if name == "paigow_house_balance_cents"
    }
    assert {"house:win", "house:commission", "wagers-in-play", "operator:credits"} <= set(house)
    assert house["wagers-in-play"] == 0  # nothing in play once every round has ended
    # every account is a wallet or the house's: together they are the ledger's sum, 0
    wallets = value(after, "paigow_wallets_total_cents")
    assert sum(house.values()) + wallets == value(after, "paigow_ledger_imbalance_cents") == 0
    assert house["operator:credits"] < 0 < wallets  # the players' credits came from there
    assert value(after, "paigow_db_connections_in_use", pool="requests") >= 0
    assert ("paigow_db_connections_in_use", frozenset({("pool", "reads")})) in after
    assert value(after, "paigow_db_steps_waiting") == 0
    assert ("paigow_background_jobs", frozenset({("job", "edge"), ("state", "waiting")})) in after
    assert "paigow_rounds_settled_total" not in text  # the old names are gone


def test_metrics_off_record_nothing_and_answer_404(sqlite_url: str) -> None:
    """``metrics=False`` (``PAIGOW_METRICS=off``): ``/metrics`` answers 404 ``metrics-off``, and a
    round played records no step, round or refusal in the process's registry."""
    from paigow.service.ops import telemetry

    def total() -> float:
        return sum(
            s.value
            for family in telemetry.REGISTRY.collect()
            if family.name.startswith(("paigow_step", "paigow_rounds", "paigow_refusals"))
            for s in family.samples
            if s.name.endswith(("_count", "_total"))
        )

    svc = Service(sqlite_url, metrics=False)
    try:
        assert not telemetry.enabled()
        r = httpx.get(f"{svc.url}/metrics", headers=svc.op.headers, timeout=10)
        assert r.status_code == 404 and r.json()["code"] == "metrics-off", r.text
        before = total()
        table = svc.new_table(betting_time_ms=5000)
        p = svc.player()
        p.sit(table, 1)
        _play_one(p, table)
        assert httpx.get(f"{svc.url}/api/me", timeout=10).status_code == 401  # a refusal
        assert total() == before
    finally:
        svc.stop()
        telemetry.enable(True)  # the process's other servers count again
    assert telemetry.enabled()


def test_retries_are_told_by_kind() -> None:
    """A retried step's error: PostgreSQL's deadlock, serialization failure and unique-key race
    by their SQLSTATE, SQLite's lock by its message, anything else a lost connection."""
    from sqlalchemy.exc import OperationalError

    from paigow.service.store.retry import retry_kind

    class Orig(Exception):
        def __init__(self, text: str, sqlstate: str | None) -> None:
            super().__init__(text)
            self.sqlstate = sqlstate

    def error(text: str, sqlstate: str | None = None) -> OperationalError:
        return OperationalError("SELECT 1", {}, Orig(text, sqlstate))

    assert retry_kind(error("deadlock detected", "40P01")) == "deadlock"
    assert retry_kind(error("could not serialize access", "40001")) == "serialization"
    assert retry_kind(error("duplicate key", "23505")) == "unique-race"
    assert retry_kind(error("database is locked")) == "locked"
    assert retry_kind(error("server closed the connection unexpectedly")) == "connection-lost"


def test_background_jobs_by_state_and_done() -> None:
    """The floor's worker reports its computations by job and state (a future not yet handed
    to the worker process waits; one handed to it runs), and counts each finished one under
    its outcome."""
    from concurrent.futures import Future

    from paigow.service.floor.edges import EdgeWorker
    from paigow.service.ops import telemetry

    worker = EdgeWorker()
    waiting: Future[Any] = Future()
    running: Future[Any] = Future()
    assert running.set_running_or_notify_cancel()
    bonus: Future[Any] = Future()
    worker._running.update({"e1": waiting, "e2": running, "bonus:e1": bonus})
    assert worker.states() == {
        ("edge", "waiting"): 1,
        ("edge", "running"): 1,
        ("bonus", "waiting"): 1,
    }

    def done(outcome: str) -> float:
        labels = {"job": "bonus", "outcome": outcome}
        return (
            telemetry.REGISTRY.get_sample_value("paigow_background_jobs_done_total", labels) or 0.0
        )

    ok, failed = done("ok"), done("failed")
    bonus.set_result(True)
    worker._bonus_done("bonus:e1", bonus)
    broken: Future[Any] = Future()
    broken.set_exception(RuntimeError("no memory"))
    worker._running["bonus:e2"] = broken
    worker._bonus_done("bonus:e2", broken)
    assert (done("ok") - ok, done("failed") - failed) == (1, 1)
    assert worker.states() == {("edge", "waiting"): 1, ("edge", "running"): 1}
