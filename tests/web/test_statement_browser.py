"""The player's statement page (issue 47) at 1366x768, 375x812 and 812x375: the wallet's
movements grouped by round, each round linked to its recall, the CSV link; the form, the
summary and the first round inside the window, nothing scrolling sideways, axe-core finding
nothing. Screenshots go to ``artifacts/screenshots``."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.helpers.walks import WAIT, check_a11y, off_screen, play_round_over_api, player_page

pytestmark = pytest.mark.slow

SIZES = [
    pytest.param({"width": 1366, "height": 768}, id="1366x768"),
    pytest.param({"width": 375, "height": 812}, id="375x812"),
    pytest.param({"width": 812, "height": 375}, id="812x375"),
]


@pytest.mark.parametrize("size", SIZES)
def test_the_statement_page(site: Any, browser: Browser, shot: Any, size: dict[str, int]) -> None:
    table = site.table(name="Statement", betting_time_ms=5_000, setting_time_ms=60_000)
    page, _, api = player_page(site, browser, size)
    play_round_over_api(api, table, 2, 1500)
    play_round_over_api(api, table, 2, 2500)
    page.goto(site.url + "/#/statement")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    groups = page.locator(".statement-group")
    expect(groups).to_have_count(3, timeout=WAIT)  # the credit, two rounds
    expect(groups.nth(0)).to_contain_text("Credit by boss")
    expect(groups.nth(1)).to_contain_text("Wager")
    balance = api.call("GET", "/api/me")["balance"]
    expect(page.locator("#st-closing")).to_have_attribute("data-cents", str(balance))
    assert page.locator("#st-csv").get_attribute("href").endswith("format=csv")
    assert "wallet=real" in str(page.locator("#st-csv").get_attribute("href"))
    tag = f"-{size['width']}x{size['height']}"
    problems = off_screen(
        page, ["#st-form", "#st-summary", ".statement-group h3 >> nth=0"], whole=False
    )
    problems = [p for p in problems if not p.startswith("the page scrolls:")]
    assert not problems, problems
    check_a11y(page)
    shot(page, tag)
    # a round's link opens that round in recall
    link = groups.nth(1).locator("a[data-round]")
    rid = link.get_attribute("data-round")
    link.click()
    expect(page.locator("#replay-title")).to_have_attribute("data-round", str(rid), timeout=WAIT)
    check_a11y(page)
    shot(page, f"{tag}-recall")


@pytest.mark.parametrize("size", SIZES)
def test_the_house_sets_the_hand_on_request(
    site: Any, browser: Browser, shot: Any, size: dict[str, int]
) -> None:
    """At a casino table the seat offers "House sets it": the house way's setting, said to be
    set at the player's request, and the round's recall says so."""
    from tests.helpers.walks import house_low, my_cards, open_table, settled, sit, wager

    table = site.table(name="House sets", betting_time_ms=5_000, setting_time_ms=60_000)
    page, _, api = player_page(site, browser, size)
    open_table(page, site.url, table)
    sit(page, 3)
    wager(page, "10")
    cards = my_cards(page)
    expect(page.locator("#house-set-btn")).to_be_visible()
    assert not off_screen(page, ["#house-set-btn", "#set-btn"], whole=False)
    page.click("#house-set-btn")
    settled(page)
    rid = api.call("GET", f"/api/tables/{table}/rounds")[0]["id"]
    log = api.call("GET", f"/api/rounds/{rid}")["events"]
    (hs,) = [e for e in log if e["type"] == "hand-set"]
    assert (hs["by"], hs["reason"]) == ("house-way", "asked")
    assert hs["low"] == sorted(house_low(cards), key=hs["low"].index)
    page.goto(site.url + f"/#/recall/{table}/{rid}")
    expect(page.locator("#steps")).to_contain_text("at the player's request", timeout=WAIT)
    shot(page, f"-{size['width']}x{size['height']}")


@pytest.mark.parametrize("size", SIZES)
def test_my_play_page(site: Any, browser: Browser, shot: Any, size: dict[str, int]) -> None:
    """My play after two practice rounds at a Face Up table (one a foul on purpose): the day's
    totals, each hand with the setting played, the best and the house way's, the costliest
    decisions with their cards; in the window, axe-core finding nothing."""
    import time

    from tests.helpers.walks import foul_low, hand_over_api, house_low, wait_ended

    table = site.table(name="My play", mode="practice", variant="face-up", betting_time_ms=5_000)
    page, _, api = player_page(site, browser, size)
    rids = []
    for foul in (True, False):
        api.call("POST", f"/api/tables/{table}/sit", {"spot": 4})
        body = {"amount": 1000, "idempotency_key": f"w{foul}{size['width']}"}
        rids.append(api.call("POST", f"/api/tables/{table}/wager", body)["round_id"])
        cards = hand_over_api(api, table)
        low = (foul_low(cards) if foul else None) or house_low(cards)
        api.call("POST", f"/api/tables/{table}/set", {"low": low, "confirm_foul": True})
        wait_ended(api, table)
    deadline = time.time() + 20
    while time.time() < deadline:
        if all(api.call("GET", f"/api/me/review/{r}")["status"] == "priced" for r in rids):
            break
        time.sleep(0.1)
    page.goto(site.url + "/#/review")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    expect(page.locator(".review-day tbody tr")).to_have_count(2, timeout=WAIT)
    review = api.call("GET", "/api/me/review?from=2000-01-01&to=2000-01-01")
    assert review["days"] == []
    expect(page.locator("#rv-summary")).to_contain_text("2 hands (2 priced)")
    assert page.locator("#rv-csv").get_attribute("href").endswith("format=csv")
    tag = f"-{size['width']}x{size['height']}"
    problems = off_screen(page, ["#rv-form", "#rv-summary"], whole=False)
    assert not [p for p in problems if not p.startswith("the page scrolls:")], problems
    check_a11y(page)
    shot(page, tag)


def test_the_showdown_shows_the_price_of_your_setting(
    site: Any, browser: Browser, shot: Any
) -> None:
    """At a practice table the result line adds, moments after the showdown, what the setting
    was worth against the best and the house way's, linking to My play."""
    from tests.helpers.walks import house_low, my_cards, open_table, settled, sit, wager

    table = site.table(name="Priced", mode="practice", variant="face-up", betting_time_ms=5_000)
    page, _, _ = player_page(site, browser, {"width": 812, "height": 375})
    open_table(page, site.url, table)
    sit(page, 2)
    wager(page, "10")
    cards = my_cards(page)
    page.click("#house-set-btn")
    settled(page)
    expect(page.locator("#my-price")).to_contain_text("gave up", timeout=WAIT)
    assert page.locator("#my-price").get_attribute("href") == "#/review"
    assert house_low(cards)
    problems = off_screen(page, ["#my-result", "#dealer-hand"], whole=False)
    assert not problems, problems
    shot(page, "-812x375")


def test_the_showdown_marks_the_bonus_hands_cards(site: Any, browser: Browser, shot: Any) -> None:
    """Rounds at a table offering Fortune until the player holds a bonus hand: at the showdown
    the cards that make it are marked on the felt (and named so for screen readers)."""
    from tests.helpers.walks import LAPTOP, hand_over_api, house_low, open_table, wait_ended

    offers = [{"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2500}]
    table = site.table(name="Marks", side_wagers=offers, betting_time_ms=5_000)
    page, _, api = player_page(site, browser, LAPTOP)
    api.call("POST", f"/api/tables/{table}/sit", {"spot": 3})
    for k in range(60):
        body = {"amount": 500, "side": {"fortune": 100}, "idempotency_key": f"m{k}"}
        rid = api.call("POST", f"/api/tables/{table}/wager", body)["round_id"]
        api.call("POST", f"/api/tables/{table}/set", {"low": house_low(hand_over_api(api, table))})
        wait_ended(api, table)
        events = api.call("GET", f"/api/rounds/{rid}")["events"]
        marked = next((e["cards"] for e in events if e.get("cards")), None)
        if marked:
            break
    else:
        pytest.skip("no bonus hand in 60 rounds")
    open_table(page, site.url, table)
    cards = page.locator("#spot-3 .card.bonus")
    expect(page.locator("#my-setting .card.bonus")).to_have_count(len(marked), timeout=WAIT)
    expect(cards).to_have_count(len(marked), timeout=WAIT)
    assert sorted(cards.nth(i).get_attribute("data-card") for i in range(len(marked))) == sorted(
        marked
    )
    assert "in the bonus hand" in str(cards.first.get_attribute("aria-label"))
    shot(page)
