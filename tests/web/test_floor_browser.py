"""The operator's floor in Debian's Chromium at 1366x768 and 375x812: the theoretical hold shown
from the exact counts ``paigow edge`` saved, the floor updates live as a round settles, the chart
draws, a rigged table is flagged (on the page and in the audit log), the report downloads;
axe-core finds no violation and nothing overflows the viewport. And the player's limits page."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.walks import VIEWPORTS, as_operator, check_a11y, log_in, resize

pytestmark = pytest.mark.slow

WAIT = 30_000


def play_round(site: Any, api: Any, table: int, amount: int = 1000) -> None:
    """One round through the API and the table's dealer (the hand set by the house way when
    its short time runs out)."""
    before = api.call("GET", f"/api/tables/{table}")["rounds_played"]
    api.call(
        "POST",
        f"/api/tables/{table}/wager",
        {"amount": amount, "idempotency_key": f"k{time.time_ns()}"},
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        t = api.call("GET", f"/api/tables/{table}")
        if t["rounds_played"] > before and t["round"] is None:
            return
        time.sleep(0.05)
    raise AssertionError(f"round at table {table} did not settle: {t}")


def check_a11y_and_layout(page: Page) -> None:
    """:func:`check_a11y`, and every chart inside the window's width."""
    check_a11y(page)
    width = page.evaluate("window.innerWidth")
    for box in page.locator("svg.chart").all():
        b = box.bounding_box()
        assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= width + 1


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_floor_page(
    site: Any, page: Page, shot: Any, viewport: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import paigow.round
    from paigow.settlement import HandResult, Outcome, Settlement

    resize(page, viewport)
    table = site.table(name=f"Floor {viewport}", betting_time_ms=5_000, setting_time_ms=100)
    name, _, player = site.player(credit=1_000_000)
    player.call("POST", f"/api/tables/{table}/sit", {"spot": 1})
    as_operator(page, site.url, "floor", timeout=WAIT)
    row = page.locator(f"#floor-tables tr[data-table='{table}']")
    expect(row).to_have_attribute("data-rounds", "0", timeout=WAIT)
    expect(row).to_contain_text(name)
    # the exact theoretical hold, from the counts `paigow edge` saved (the suite's conftest saves
    # the published ones; a table still computing: test_edges_browser.py)
    expect(row.locator("[data-field=theoretical] [data-status=ready]")).to_have_count(
        1, timeout=WAIT
    )
    expect(row.locator("[data-field=theoretical]")).to_contain_text("2.7219%")
    # live: a round settles, the floor and the chart follow without a reload
    play_round(site, player, table)
    expect(row).to_have_attribute("data-rounds", "1", timeout=WAIT)
    view = site.op.call("GET", "/api/admin/floor")
    mine = next(t for t in view["tables"] if t["id"] == table)
    expect(row.locator("[data-field=house_result]")).to_have_attribute(
        "data-cents", str(mine["house_result"])
    )
    expect(page.locator(f"#chart-{table} svg.chart")).to_have_attribute(
        "data-points", "1", timeout=WAIT
    )

    # a rigged table: every hand pays the house; flagged once past the minimum hands
    real = paigow.round.settle

    def rigged(*args: Any, **kw: Any) -> Settlement:
        s = real(*args, **kw)
        return Settlement(Outcome.LOSS, HandResult.LOSS, HandResult.LOSS, s.wager, 0, 0, s.foul)

    monkeypatch.setattr(paigow.round, "settle", rigged)
    rt = site.server.config.app.state.rt  # the server's settings, as PAIGOW_* would give them
    eight = rt.config.with_(floor_flag_min_hands=8)
    monkeypatch.setattr(rt, "config", eight)
    monkeypatch.setattr(rt.writer, "config", eight)
    for _ in range(9):
        play_round(site, player, table)
    expect(row).to_have_attribute("data-flagged", "1", timeout=WAIT)
    expect(page.locator(f"#flag-{table}")).to_contain_text("outside the 99.9% band")
    expect(page.locator(f"#chart-{table} svg.chart")).to_have_attribute(
        "data-points", "10", timeout=WAIT
    )
    audit = [json.loads(x) for x in site.op.call("GET", "/api/admin/audit").text.splitlines()]
    assert any(x["action"] == "floor-flag" and x["target"] == f"table:{table}" for x in audit)
    monkeypatch.undo()

    # the report downloads, reconciled to the ledger
    with page.expect_download() as info:
        page.click("#report-btn")
    path = tmp_path / "report.csv"
    info.value.save_as(path)
    rows = list(csv.reader(io.StringIO(path.read_text())))
    assert rows[0][:3] == ["gaming_day", "table_id", "table"]
    mine_lines = [r for r in rows if len(r) > 3 and r[1] == str(table)]
    assert sum(int(r[rows[0].index("rounds")]) for r in mine_lines) == 10
    assert rows[-1][0].startswith("# reconciled to the ledger to the cent: true")
    expect(page.locator("#report-msg")).to_contain_text("reconciled to the ledger")
    check_a11y_and_layout(page)
    shot(page, f"-{viewport}")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_player_sets_limits_and_excludes_themselves(
    site: Any, page: Page, shot: Any, viewport: str
) -> None:
    resize(page, viewport)
    table = site.table(name=f"Limits {viewport}")
    name, password, player = site.player(credit=100_000)
    player.call("POST", f"/api/tables/{table}/sit", {"spot": 2})
    log_in(page, site.url, name, password, timeout=WAIT)
    page.goto(site.url + "/#/limits")
    expect(page.locator("#limit-now")).to_contain_text("No daily loss limit", timeout=WAIT)
    page.fill("#loss-limit", "25")
    page.click("#limit-btn")
    expect(page.locator("#limit-now")).to_contain_text("$25.00", timeout=WAIT)
    r = player.call(
        "POST",
        f"/api/tables/{table}/wager",
        {"amount": 3000, "idempotency_key": "over"},
        status=403,
    )
    assert r["code"] == "loss-limit"
    check_a11y_and_layout(page)
    page.fill("#exclude-days", "7")
    page.check("#exclude-confirm")
    page.click("#exclude-btn")
    expect(page.locator("#exclusion-now")).to_contain_text("excluded yourself", timeout=WAIT)
    r = player.call(
        "POST", f"/api/tables/{table}/wager", {"amount": 500, "idempotency_key": "ex"}, status=403
    )
    assert r["code"] == "self-excluded"
    seen = site.op.call("GET", "/api/admin/limits")
    assert any(x["username"] == name and x["excluded"] for x in seen)
    shot(page, f"-{viewport}")
