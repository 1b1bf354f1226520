"""The operator's players page (issue 48) at 1366x768, 375x812 and 812x375: each player rated
by their decisions (the flat and the exact theoretical wins, their difference), how many hands
are rated and how many wait, the CSV link, one player with their statement; the form, the
summary and the first player inside the window, nothing scrolling sideways, axe-core finding
nothing. Screenshots go to ``artifacts/screenshots``."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.helpers.edges import DEALS, HOUSE_WAY_COUNTS
from tests.helpers.walks import (
    OPERATOR,
    WAIT,
    check_a11y,
    log_in,
    new_page,
    off_screen,
    play_round_over_api,
)

pytestmark = pytest.mark.slow

SIZES = [
    pytest.param({"width": 1366, "height": 768}, id="1366x768"),
    pytest.param({"width": 375, "height": 812}, id="375x812"),
    pytest.param({"width": 812, "height": 375}, id="812x375"),
]


WIN, PUSH = HOUSE_WAY_COUNTS["none"]


def seed_edge(site: Any, table: int) -> None:
    """The table's exact counts (the standard house way's), as the floor's worker stores them:
    its worker rates the hands at once instead of counting the edge first."""
    from paigow.service.floor import edges
    from paigow.service.floor.hold import table_ident
    from paigow.service.game import table_rows
    from paigow.service.store.db import Database

    db = Database(site.db_url)
    counts = {"deals": DEALS, "win": WIN, "push": PUSH, "loss": DEALS - WIN - PUSH}
    try:
        with db.write() as s:
            t = table_rows.get_table(s, table)
            edges.store_counts(s, table_ident(t), t.house_way, "second", counts, min_hands=100)
    finally:
        db.dispose()


@pytest.mark.parametrize("size", SIZES)
def test_the_players_page(
    site: Any, browser: Browser, shot: Any, size: dict[str, int], compiled: Any
) -> None:
    table = site.table(name="Rated", betting_time_ms=5_000, setting_time_ms=60_000)
    seed_edge(site, table)
    name, _, api = site.player(credit=100_000)
    api.call("POST", f"/api/tables/{table}/sit", {"spot": 2})
    for amount in (1500, 2500):
        play_round_over_api(api, table, 2, amount)
    me = api.call("GET", "/api/me")
    page = new_page(browser, size)
    log_in(page, site.url, *OPERATOR)
    page.goto(site.url + "/#/players")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    row = page.locator(f"#pl-table tr[data-player='{me['id']}']")
    expect(row).to_contain_text(name, timeout=WAIT)
    # the hands wait, then are rated in the background; the page looks again by itself
    expect(page.locator("#pl-waiting")).to_have_attribute("data-n", "0", timeout=60_000)
    expect(row.locator("[data-field=hands]")).to_contain_text("2 (2 rated)", timeout=WAIT)
    expect(row.locator("[data-field=exact]")).to_contain_text("$", timeout=WAIT)
    expect(row.locator("[data-field=flat]")).to_contain_text("$", timeout=WAIT)
    line = site.op.call("GET", f"/api/admin/players/{me['id']}")
    expect(row.locator("[data-field=exact]")).to_have_text(line["exact_theo"]["dollars"])
    assert str(page.locator("#pl-csv").get_attribute("href")).endswith("format=csv")
    tag = f"-{size['width']}x{size['height']}"
    shot(page, tag)
    first = "#pl-table tbody tr >> nth=0"
    problems = off_screen(page, ["#pl-form", "#pl-summary", first], whole=False)
    assert not [p for p in problems if not p.startswith("the page scrolls:")], problems
    check_a11y(page)
    # one player, with the statement of their wallet
    page.click(f"#player-{me['id']}")
    expect(page.locator("#pl-facts")).to_contain_text(line["exact_theo"]["dollars"], timeout=WAIT)
    expect(page.locator("#pl-statement .statement-group")).to_have_count(3, timeout=WAIT)
    check_a11y(page)
    shot(page, f"{tag}-one")
