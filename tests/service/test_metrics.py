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
    from paigow.service.store.db import Database, RoundRow

    db = Database(db_url)
    try:
        with db.read() as s:
            return int(
                s.execute(
                    sa.select(sa.func.count())
                    .select_from(RoundRow)
                    .where(RoundRow.phase == "settled")
                ).scalar_one()
            )
    finally:
        db.dispose()


def test_metrics_count_what_was_played(helpers: Any, sqlite_url: str) -> None:
    """Rounds settled (plain tables) equal the rounds settled in the database; wager and settle
    steps timed; a refusal counted under its code; a WebSocket counted while open; the ledger's
    imbalance 0 and the wallets' total what the players hold."""
    svc = helpers.Service(sqlite_url)
    try:
        token = svc.op.token
        before, _ = scrape(svc.url, token)
        report = helpers.run_bots(
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

        def delta(name: str, kind: str) -> float:
            return value(after, name, kind=kind) - value(before, name, kind=kind)

        assert delta("paigow_rounds_settled_total", "plain") == settled
        assert delta("paigow_rounds_dealt_total", "plain") == settled
        assert delta("paigow_step_seconds_count", "settle") >= settled
        assert delta("paigow_step_seconds_count", "deal") >= settled
        assert delta("paigow_step_seconds_count", "wager") >= 2 * settled
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


def test_a_listed_address_needs_no_token(helpers: Any, sqlite_url: str) -> None:
    """``metrics_allow`` lists 127.0.0.0/8: a scrape without a token is served; a list without
    this address still refuses it."""
    from paigow.service.accounts.operators import create_operator

    create_operator(sqlite_url, *helpers.OPERATOR)
    listed = helpers.LiveServer(sqlite_url, metrics_allow="10.1.2.3, 127.0.0.0/8")
    try:
        r = httpx.get(f"{listed.url}/metrics", timeout=10)
        assert r.status_code == 200, r.text
        names = {f.name for f in text_string_to_metric_families(r.text)}
        assert "paigow_ledger_imbalance_cents" in names
    finally:
        listed.stop()
    unlisted = helpers.LiveServer(sqlite_url, metrics_allow="10.0.0.0/8")
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


def test_dashboard_and_alerts_name_only_exported_metrics(helpers: Any, sqlite_url: str) -> None:
    """Every ``paigow_*`` name in the dashboard's and the alert rules' expressions is a sample
    name of a real scrape (after a labelled sample of each family exists)."""
    from paigow.service.ops import metrics

    svc = helpers.Service(sqlite_url)
    try:
        # one sample of each labelled family, so that its series are in the scrape
        for counter in (metrics.ROUNDS_DEALT, metrics.ROUNDS_SETTLED, metrics.ROUNDS_VOIDED):
            counter.labels("plain")
        metrics.DB_ERRORS.labels("busy")
        metrics.REFUSALS.labels("busy")
        metrics.STEP_SECONDS.labels("wager")
        _, text = scrape(svc.url, svc.op.token)
    finally:
        svc.stop()
    exported = {s.name for f in text_string_to_metric_families(text) for s in f.samples}
    named = {n for e in _exprs() for n in re.findall(r"\bpaigow_[a-z_]+", e)}
    assert len(named) >= 10, named
    assert named <= exported, named - exported
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
    assert "SUCCESS: 5 rules found" in check.stdout
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


def test_notices_between_processes_are_timed(helpers: Any) -> None:
    """Two servers on one PostgreSQL database (here in one process, each with its own bus): the
    notices one's steps send reach the other over ``LISTEN``, and their lag is observed."""
    with helpers.pg_schema() as url:
        svc = helpers.Service(url)
        other = helpers.LiveServer(url, run_dealers=False)
        try:
            before, _ = scrape(svc.url, svc.op.token)
            helpers.run_bots(
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
    assert count >= 4, count  # wagers, the deal, the settings, the settlement at least
    assert 0 <= total / count < 1.0  # on one machine, well under a second each
