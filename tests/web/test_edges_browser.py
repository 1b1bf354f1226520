"""Issue 49's rough edges, in Debian's Chromium: each one's fix seen on the page."""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.helpers.walks import (
    VIEWPORTS,
    as_operator,
    at_table,
    log_in,
    open_table,
    resize,
    set_over_api,
    settled,
    sit,
    wager,
    wager_over_api,
    wait_ended,
)

pytestmark = pytest.mark.slow

WAIT = 20_000
SHOTS = "artifacts"


def _floor_row(base: dict[str, Any], table: int, name: str, **over: Any) -> dict[str, Any]:
    row = copy.deepcopy(base)
    row.update(id=table, name=name, side_wagers=[], flagged=False, flag=None, **over)
    return row


READY = {
    "status": "ready",
    "house_way_hold": {"exact": "1/40", "decimal": "0.02721934"},
    "sigma_per_hand": "0.745623",
    "optimal_hold": None,
}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_floor_says_outside_band_and_waits_for_the_hold(
    site: Any, page: Page, viewport: str
) -> None:
    """Edge 1: a hold outside its band says so; a table whose theoretical hold is computing
    never says "within band", and its chart redraws when the hold arrives."""
    resize(page, viewport)
    outside = site.table(name=f"EZ out {viewport}")
    computing = site.table(name=f"EZ wait {viewport}")
    view = site.op.call("GET", "/api/admin/floor")
    base = next(t for t in view["tables"] if t["id"] == outside)
    played = {"rounds": 60, "hands": 83, "handle": 83_000, "house_result": 49_800}
    rows = {
        outside: _floor_row(
            base,
            outside,
            f"EZ out {viewport}",
            **played,
            actual_hold={"exact": "3/5", "decimal": "0.60000000"},
            theoretical=READY,
            band_95=["-0.13500000", "0.19100000"],
            band_999=["-0.30000000", "0.35000000"],
            inside_95=False,
            inside_999=False,
        ),
        computing: _floor_row(
            base,
            computing,
            f"EZ wait {viewport}",
            **played,
            actual_hold={"exact": "3/5", "decimal": "0.60000000"},
            theoretical={"status": "computing", "error": None},
            band_95=None,
            band_999=None,
            inside_95=None,
            inside_999=None,
        ),
    }
    charts: list[int] = []

    def floor(route: Route) -> None:
        body = {**view, "tables": list(rows.values()), "flagged": [], "flag_min_hands": 100}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    def chart(route: Route) -> None:
        table = int(route.request.url.split("/tables/")[1].split("/")[0])
        charts.append(table)
        ready = rows[table]["theoretical"]["status"] == "ready"
        body = {
            "table_id": table,
            "name": rows[table]["name"],
            "theoretical": READY["house_way_hold"] if ready else None,
            "points": [
                {"round": 60, "hands": 83, "handle": 83_000, "result": 49_800, "hold": "0.6"}
            ],
            "flagged": False,
        }
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/admin/floor", floor)
    page.route("**/api/admin/floor/tables/*/chart", chart)
    as_operator(page, site.url, "floor")
    out_status = page.locator(f"#floor-tables tr[data-table='{outside}'] [data-field=status]")
    wait_status = page.locator(f"#floor-tables tr[data-table='{computing}'] [data-field=status]")
    expect(out_status).to_contain_text("outside the 99.9% band", timeout=WAIT)
    expect(out_status).to_contain_text("flagged after 100 hands")
    expect(out_status).not_to_contain_text("within")
    expect(wait_status).to_contain_text("computing")
    expect(wait_status).not_to_contain_text("within")
    expect(page.locator(f"#chart-{computing} svg.chart")).to_have_count(1, timeout=WAIT)
    expect(page.locator(f"#chart-{computing} line.theory")).to_have_count(0)
    page.screenshot(path=f"{SHOTS}/edge1-floor-{viewport}.png", full_page=True)

    # only outside the 95% band
    rows[outside]["inside_999"] = True
    expect(out_status).to_have_text("outside the 95% band", timeout=WAIT)
    # the hold arrives: the status and the chart follow, with no new round
    rows[computing].update(
        theoretical=READY,
        band_95=["-0.13500000", "0.19100000"],
        band_999=["-0.30000000", "0.35000000"],
        actual_hold={"exact": "1/10", "decimal": "0.10000000"},
        inside_95=True,
        inside_999=True,
    )
    expect(wait_status).to_have_text("within the 95% band", timeout=WAIT)
    expect(page.locator(f"#chart-{computing} line.theory")).to_have_count(1, timeout=WAIT)
    assert charts.count(computing) == 2


def _settled_round(site: Any, **cfg: Any) -> tuple[int, str, str, Any]:
    """A table with one settled round (a player's wager, set by the house way when its time ran
    out): the table, the player's name, password and API client."""
    table = site.table(name="Recall", betting_time_ms=300, setting_time_ms=100, **cfg)
    name, password, api = site.player()
    wager_over_api(api, table, 1)
    wait_ended(api, table)
    deadline = time.time() + 30
    while time.time() < deadline and not api.call("GET", f"/api/tables/{table}")["rounds_played"]:
        time.sleep(0.05)
    return table, name, password, api


def _rank(code: str) -> int:
    """A card's rank for sorting (the joker with the aces)."""
    return 14 if code.lower() == "jk" else "23456789TJQKA".index(code[0].upper()) + 2


def test_recall_prints_no_null(site: Any, page: Page) -> None:
    """Edge 4: no literal ``null`` beside the hands at any step of a recalled round."""
    table, name, password, _ = _settled_round(site)
    log_in(page, site.url, name, password)
    page.goto(site.url + f"/#/recall/{table}")
    page.locator("#rounds button").first.click()
    state = page.locator("#replay-state")
    total = int(str(page.locator("#step-text").text_content()).split(" of ")[1].split(":")[0])
    for _ in range(total):
        page.click("#step-next")
        text = str(state.text_content()) + str(page.locator("#step-text").text_content())
        assert "null" not in text and "undefined" not in text, text
        # edge 11: the hands are sorted as "Your hand" is, highest first, at every step
        for row in state.locator(".cards").all():
            ranks = [_rank(str(c.get_attribute("data-card"))) for c in row.locator(".card").all()]
            assert ranks == sorted(ranks, reverse=True), ranks
    page.screenshot(path=f"{SHOTS}/edge4-recall.png", full_page=True)


def test_every_card_row_comes_sorted_as_your_hand(site: Any, page: Page) -> None:
    """Edge 11, on its own: the row of cards the page draws for every hand (a spot's on the felt,
    the dealer's, the dragon's, recall's) comes highest first, pairs together, the joker before
    the aces, as "Your hand" does, whatever order the feed gives them in."""
    page.goto(site.url + "/#/lobby")
    rows = page.evaluate(
        """async () => {
             const m = await import("/static/cards.js");
             const row = (opts) => [...m.cardRow(["7s", "Ah", "3c", "7d", "JK", "Kd"], opts).querySelectorAll(".card")];
             return [row({ small: true, fan: true }), row({ small: true })].map((r) => r.map((c) => c.dataset.card));
           }"""
    )
    assert rows == [["JK", "Ah", "Kd", "7s", "7d", "3c"]] * 2


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_opening_a_table_before_sitting_says_nothing_of_leaving(
    site: Any, page: Page, viewport: str
) -> None:
    """Edge 5: a player who opens a table before sitting is not told "You left the spot"."""
    resize(page, viewport)
    table = site.table(name=f"Fresh {viewport}")
    name, password, _ = site.player()
    log_in(page, site.url, name, password)
    open_table(page, site.url, table, live=True)
    expect(page.locator("#sit-1")).to_be_visible(timeout=WAIT)
    expect(page.locator("#left-note")).to_have_count(0)
    expect(page.locator("#view")).not_to_contain_text("You left the spot")
    page.screenshot(path=f"{SHOTS}/edge5-pre-bet-{viewport}.png", full_page=True)


def test_bank_name_pattern_checks_in_the_browser(site: Any, page: Page) -> None:
    """Edge 6: the bank name's pattern compiles under the ``v`` flag, so the browser checks it."""
    logged: list[str] = []
    page.on("console", lambda m: logged.append(m.text))
    as_operator(page, site.url)
    bank = page.locator("#sw-fortune-progressive-bank")
    expect(bank).to_have_count(1, timeout=WAIT)
    checks = bank.evaluate(
        """el => ['Bad Name!', 'good-bank-1', '-lead'].map(v => {
             el.value = v; return el.validity.patternMismatch; })"""
    )
    assert checks == [True, False, True]
    assert not [x for x in logged if "pattern" in x], logged


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_lobby_cards_name_the_game(site: Any, page: Page, viewport: str) -> None:
    """Edge 2: a lobby card names the table's side wagers, push rule, dragon hand and face up."""
    resize(page, viewport)
    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500}]
    ez = site.table(name=f"EZ {viewport}", variant="ez", dragon=True, side_wagers=offers)
    up = site.table(name=f"Up {viewport}", variant="face-up")
    plain = site.table(name=f"Plain {viewport}")
    page.goto(site.url + "/#/lobby")
    card = page.locator(f"#tables li[data-table='{ez}']")
    expect(card.locator("[data-field=push]")).to_contain_text("pushes every wager", timeout=WAIT)
    expect(card.locator("[data-field=dragon]")).to_contain_text("empty spot")
    expect(card.locator("[data-field=side]")).to_have_text("Fortune ($1.00–$25.00)")
    expect(card.locator("[data-field=face-up]")).to_have_count(0)
    up_card = page.locator(f"#tables li[data-table='{up}']")
    expect(up_card.locator("[data-field=face-up]")).to_contain_text("face up")
    expect(page.locator(f"#tables li[data-table='{plain}'] [data-field]")).to_have_count(0)
    card.scroll_into_view_if_needed()
    page.screenshot(path=f"{SHOTS}/edge2-lobby-{viewport}.png")


def test_wallet_splits_each_wagers_stake_and_win(site: Any, page: Page) -> None:
    """Edge 3: the wallet panel's lines at a showdown with a main win, a dragon win and a side
    wager's win (one ledger entry: stake and win together): each wager's stake returned and win
    paid apart, the dragon's stake once; the lines add up to the entries."""
    page.goto(site.url + "/#/lobby")
    entries = [
        {"kind": "wager", "amount": -1000, "memo": "spot 1"},
        {"kind": "wager", "amount": -500, "memo": "spot 1 fortune"},
        {"kind": "wager", "amount": -800, "memo": "spot 1 dragon"},
        {"kind": "settlement", "amount": 1000, "memo": "spot 1 win"},
        {"kind": "settlement", "amount": 1000, "memo": "spot 1 win"},
        {"kind": "settlement", "amount": -50, "memo": "spot 1 win commission"},
        {"kind": "settlement", "amount": 800, "memo": "spot 1 dragon win"},
        {"kind": "settlement", "amount": 800, "memo": "spot 1 dragon win"},
        {"kind": "settlement", "amount": -40, "memo": "spot 1 dragon win commission"},
        {"kind": "settlement", "amount": 2500, "memo": "spot 1 fortune won"},
    ]
    lines = page.evaluate(
        """async ([entries]) => {
             const m = await import("/static/wallet_lines.js");
             return m.walletLines(entries, { 1: { fortune: 500 } })
               .map((x) => [x.amount, x.label, m.memoText(x.memo, "round 1")]);
           }""",
        [entries],
    )
    assert lines == [
        [-1000, "wager placed", "spot 1"],
        [-500, "wager placed", "spot 1 fortune"],
        [-800, "wager placed", "spot 1 dragon"],
        [1000, "stake returned", "spot 1"],
        [1000, "win paid", "spot 1"],
        [-50, "commission", "spot 1"],
        [800, "stake returned", "spot 1 dragon"],
        [800, "win paid", "spot 1 dragon"],
        [-40, "commission", "spot 1 dragon"],
        [500, "stake returned", "spot 1 fortune"],
        [2000, "win paid", "spot 1 fortune"],
    ]
    assert sum(x[0] for x in lines) == sum(e["amount"] for e in entries)


def test_operator_pages_name_the_dragon_push_and_side_wagers(site: Any, page: Page) -> None:
    """Edge 7: the audit summary of a ruleset names its push rule, face up and the dragon; the
    operator's and the floor's table rows name the dragon hand; "Every table, live" names the
    side wagers."""
    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500}]
    table = site.table(name="Dragon EZ", variant="ez", dragon=True, side_wagers=offers)
    as_operator(page, site.url)
    row = page.locator(f"#op-tables tr[data-table='{table}']")
    expect(row.locator("[data-field=dragon]")).to_have_text("; dragon hand", timeout=WAIT)
    expect(row.locator("[data-field=side]")).to_have_text("; side wagers fortune")
    ruleset = {
        "commission": "0",
        "min_wager": 500,
        "max_wager": 100_000,
        "start": "dice",
        "wheel": "second",
        "push": "queen-high-pai-gow",
        "face_up": True,
        "dragon": True,
    }
    words = page.evaluate(
        """async ([r]) => (await import("/static/audit.js")).detailValue("ruleset", r)""",
        [ruleset],
    )
    assert "push on the dealer's queen high pai gow" in words
    assert "dealer face up" in words and "dragon hand" in words
    page.goto(site.url + "/#/floor")
    floor_row = page.locator(f"#floor-tables tr[data-table='{table}'] [data-field=variant]")
    expect(floor_row).to_contain_text("dragon hand", timeout=WAIT)
    page.screenshot(path=f"{SHOTS}/edge7-floor.png")


def test_wording_of_the_header_and_a_live_pay_table(
    site: Any, page: Page, browser: Browser
) -> None:
    """Edge 12: the operator's header shows no "Balance: $0.00"; a live table's pay table is
    not titled "an example table"."""
    offers = [
        {"name": "insurance", "paytable": "pai-gow-insurance", "min_wager": 100, "max_wager": 500}
    ]
    table = site.table(name="Insured", side_wagers=offers)
    as_operator(page, site.url)
    expect(page.locator("#logout")).to_be_visible(timeout=WAIT)
    expect(page.locator("#who")).not_to_contain_text("Balance")
    player = at_table(site, browser, VIEWPORTS["desktop"], table)[0]
    expect(player.locator("#balance")).to_have_count(1)
    expect(player.locator("#pt-insurance")).to_contain_text("Pai Gow Insurance", timeout=WAIT)
    expect(player.locator("#pt-insurance")).not_to_contain_text("example table")
    player.close()


def test_the_create_table_confirmation_names_side_wagers_as_the_form_does(
    site: Any, page: Page
) -> None:
    """Edge 12: the confirmation of a new table names its side wagers by the titles the form
    offers them under, not by their presets' internal ids ("fortune-a")."""
    as_operator(page, site.url)
    page.fill("#t-name", "Titled")
    page.click("#t-side summary")
    page.check("#sw-fortune-a-on")
    page.click("#create-table button[type=submit]")
    msg = page.locator("#create-msg")
    expect(msg).to_contain_text("is open", timeout=WAIT)
    expect(msg).to_contain_text("side wagers: Fortune bonus, pay table A (8,000 to 1), with Envy")
    expect(msg).not_to_contain_text("fortune-a")
    expect(page.locator("#op-msg")).not_to_contain_text("fortune-a")
    page.screenshot(path=f"{SHOTS}/edge12-created.png")


def test_sitting_at_another_spot_clears_the_last_hand(site: Any, browser: Browser) -> None:
    """Edge 9: at 375 px, after a round, leaving the spot and sitting at another: the seat no
    longer shows the last round's hand."""
    table = site.table(name="Move", betting_time_ms=300, setting_time_ms=300)
    page = at_table(site, browser, VIEWPORTS["phone"], table)[0]
    sit(page, 1)
    wager(page, "10")
    settled(page)
    expect(page.locator("#hand-title")).to_have_text("Your hand, spot 1", timeout=WAIT)
    page.click("#leave-btn")
    sit(page, 2)
    expect(page.locator("#hand-panel")).to_be_hidden(timeout=WAIT)
    expect(page.locator("#seat")).not_to_contain_text("Your hand, spot 1")
    page.screenshot(path=f"{SHOTS}/edge9-moved-phone.png")
    page.close()


def test_the_landscape_result_keeps_the_main_wagers_amount(site: Any, browser: Browser) -> None:
    """Edge 10 (in part): in landscape, with side wagers, your result keeps the main wager's
    amount (its words are folded away for room)."""
    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500}]
    table = site.table(
        name="Landscape", side_wagers=offers, betting_time_ms=300, setting_time_ms=300
    )
    page, _, api = at_table(site, browser, {"width": 812, "height": 375}, table)
    wager_over_api(api, table, 1, 1000, side={"fortune": 500})
    settled(page)
    short = page.locator("#my-result .main-short")
    expect(short).to_be_visible(timeout=WAIT)
    expect(short).to_contain_text("main ")
    expect(page.locator("#my-result .words")).to_be_hidden()
    page.screenshot(path=f"{SHOTS}/edge10-result-landscape.png")
    page.set_viewport_size(VIEWPORTS["desktop"])
    expect(short).to_be_hidden()
    expect(page.locator("#my-result .words")).to_be_visible()
    page.close()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_side_circle_with_chips_keeps_its_name(
    site: Any, browser: Browser, viewport: str
) -> None:
    """Edge 10 (in part): a side-wager circle with chips on it still names its wager."""
    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500}]
    table = site.table(name=f"Circles {viewport}", side_wagers=offers)
    page = at_table(site, browser, VIEWPORTS[viewport], table)[0]
    sit(page, 1)
    page.click("#bet-side-fortune")
    page.click("#add-500")
    circle = page.locator("#bet-side-fortune")
    expect(circle.locator(".chip")).to_have_count(1, timeout=WAIT)
    expect(circle.locator(".circle-tag")).to_be_visible()
    expect(circle.locator(".circle-tag")).to_have_text("Fortune")
    page.screenshot(path=f"{SHOTS}/edge10-circle-{viewport}.png")
    page.close()


@pytest.mark.parametrize("size", [{"width": 375, "height": 812}, {"width": 812, "height": 375}])
def test_narrow_seat_shows_the_whole_wager_and_hand_names(
    site: Any, browser: Browser, size: dict[str, int]
) -> None:
    """Edge 10 (in part): on a phone and in landscape, "Your wager $5.00 + $1.00 side" is not
    clipped by the leave button, and the hand names beside your cards are not cut."""
    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500}]
    table = site.table(name=f"Narrow {size['width']}", side_wagers=offers, betting_time_ms=300)
    page, _, api = at_table(site, browser, size, table)
    wager_over_api(api, table, 2, 1000, side={"fortune": 100})
    expect(page.locator("#my-side")).to_be_visible(timeout=WAIT)
    expect(page.locator("#countdown")).to_contain_text("Time to set", timeout=WAIT)
    side = page.locator("#my-side").bounding_box()
    leave = page.locator("#leave-btn").bounding_box()
    box = page.locator("#my-wager").bounding_box()
    assert side and leave and box
    assert side["x"] + side["width"] <= min(leave["x"], box["x"] + box["width"]) + 1
    page.screenshot(path=f"{SHOTS}/edge10-wager-{size['width']}x{size['height']}.png")
    set_over_api(api, table)
    expect(page.locator("#my-high-name")).not_to_be_empty(timeout=WAIT)
    for name in ("#my-high-name", "#my-low-name"):
        cut = page.locator(name).evaluate("e => e.scrollWidth > e.clientWidth + 1")
        assert not cut, page.locator(name).text_content()
    page.screenshot(path=f"{SHOTS}/edge10-seat-{size['width']}x{size['height']}.png")
    page.close()


@pytest.mark.parametrize("size", [{"width": 375, "height": 812}, {"width": 812, "height": 375}])
def test_narrow_showdown_keeps_the_main_amount_and_whole_hand_names(
    site: Any, browser: Browser, size: dict[str, int]
) -> None:
    """Edge 10 (the rest): on a phone held upright too, with side wagers, your result keeps the
    main wager's amount; the dealer's hand names and the spots' bonus hands are not cut
    ("three of a kind, quee...") beside the progressive's meter."""
    offers = [
        {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2_500},
        {
            "name": "progressive",
            "paytable": "fortune-progressive",
            "min_wager": 100,
            "max_wager": 100,
            "bank": "edge10-names",
        },
    ]
    table = site.table(
        name=f"Names {size['width']}", side_wagers=offers, betting_time_ms=300, setting_time_ms=300
    )
    page, _, api = at_table(site, browser, size, table)
    wager_over_api(api, table, 2, 1000, side={"fortune": 500, "progressive": 100})
    settled(page)
    expect(page.locator("#my-side-result")).to_be_visible(timeout=WAIT)
    short = page.locator("#my-result .main-short")
    expect(short).to_be_visible()
    expect(short).to_contain_text("main ")
    expect(page.locator("#dealer .hname")).to_have_count(2, timeout=WAIT)
    page.screenshot(path=f"{SHOTS}/edge10-names-{size['width']}x{size['height']}.png")
    names = page.locator("#dealer .hname, .spot .side-res")
    for i in range(names.count()):
        el = names.nth(i)
        cut = el.evaluate(
            "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1"
        )
        assert not cut, f"cut: {el.text_content()!r}"
    page.close()
