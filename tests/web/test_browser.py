"""The browser table in Debian's Chromium: register, log in, sit, wager, set, results and the
ledger; a foul warned and lost; two players each seeing only their own cards until the showdown;
practice hints and EV versus a casino table; recall; the operator's page. Each test saves a
screenshot in ``artifacts/screenshots``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.setting import Setting
from tests.helpers.walks import (
    WAIT,
    as_operator,
    foul_low,
    house_low,
    log_in,
    my_cards,
    new_page,
    open_from_lobby,
    pick,
    play_round_over_api,
    set_house_way,
    sit,
    wager,
)

pytestmark = pytest.mark.slow


def result_of(page: Page, spot: int) -> dict[str, Any]:
    row = page.locator(f"#result-{spot}")  # in the side panel (a closed drawer on a phone)
    expect(row).to_be_attached(timeout=WAIT)
    return {
        "outcome": row.get_attribute("data-outcome"),
        "returned": int(str(row.get_attribute("data-returned"))),
    }


def test_register_login_sit_wager_set_and_check_the_ledger(
    site: Any, page: Page, shot: Any
) -> None:
    table = site.table(name="Main", min_wager=500, max_wager=50_000)
    name = "ann" + re.sub(r"\D", "", str(id(page)))[-6:]
    password = "password-ann-123"
    page.goto(site.url + "/")
    # register in the browser (the operator then credits the wallet), log out, log in again
    page.fill("#register-username", name)
    page.fill("#register-password", password)
    page.click("#register-form button[type=submit]")
    expect(page.locator("#logout")).to_be_visible(timeout=WAIT)
    site.credit(name, 100_000)
    page.click("#logout")
    log_in(page, site.url, name, password)
    expect(page.locator("#lobby-balance")).to_have_text("$1,000.00")
    row = page.locator(f"#tables [data-table='{table}']")
    expect(row).to_contain_text("5%")
    expect(row).to_contain_text("$5.00 – $500.00")
    expect(row).to_contain_text("three dice")
    open_from_lobby(page, table)
    expect(page.locator("#posted-commission")).to_contain_text("5%")
    expect(page.locator("#posted-limits")).to_contain_text("$5.00 – $500.00")
    sit(page, 2)
    wager(page, "15")
    cards = my_cards(page)
    expect(page.locator("#dice-shown")).to_be_visible()
    expect(page.locator("#count")).to_contain_text("first packet to")
    expect(page.locator("#dealer .card.back")).to_have_count(7)
    # choose the house way's low hand from the keyboard: Tab to a card, Space toggles it
    low = house_low(cards)
    for code in low:
        page.locator(f"#my-cards button[data-card='{code}']").focus()
        page.keyboard.press("Space")
    expect(page.locator("#my-cards button[aria-pressed='true']")).to_have_count(2)
    value = Setting.from_low(parse_cards(cards), low).value()
    expect(page.locator("#high-name")).to_have_text(value.high.name, timeout=WAIT)
    expect(page.locator("#low-name")).to_have_text(value.low.name)
    expect(page.locator("#foul-warning")).to_have_count(0)
    page.locator("#set-btn").focus()
    page.keyboard.press("Enter")
    result = result_of(page, 2)
    expect(page.locator("#dealer-rule")).to_contain_text("rule")
    expect(page.locator("#ledger")).to_be_visible(timeout=WAIT)
    balance = 100_000 - 1500 + result["returned"]
    expect(page.locator("#wallet-balance")).to_have_attribute("data-cents", str(balance))
    expect(page.locator("#ledger")).to_have_attribute("data-net", str(result["returned"] - 1500))
    expect(page.locator("#balance")).to_have_attribute("data-cents", str(balance))
    me = site.login(name, password).call("GET", "/api/me")
    assert me["balance"] == balance
    shot(page)


def test_a_foul_is_warned_and_if_confirmed_loses(site: Any, page: Page, shot: Any) -> None:
    table = site.table(name="Fouls")
    name, password, api = site.player()
    log_in(page, site.url, name, password)
    open_from_lobby(page, table)
    sit(page, 3)
    for _ in range(4):
        wager(page, "10")
        cards = my_cards(page)
        low = foul_low(cards)
        if low is not None:
            break
        set_house_way(page, cards)  # no foul possible (very rare): play this round out
        result_of(page, 3)
    else:
        pytest.skip("no hand with a foul setting in four rounds")
    before = api.call("GET", "/api/me")["balance"]
    pick(page, low)
    warning = page.locator("#foul-warning")
    expect(warning).to_be_visible(timeout=WAIT)
    expect(warning).to_contain_text("loses")
    page.click("#set-btn")
    expect(page.locator("#foul-confirm")).to_be_visible()
    shot(page, "-warning")
    page.click("#confirm-foul")
    result = result_of(page, 3)
    assert result == {"outcome": "loss", "returned": 0}
    expect(page.locator("#result-3")).to_contain_text("foul")
    expect(page.locator("#ledger")).to_be_visible(timeout=WAIT)
    assert api.call("GET", "/api/me")["balance"] == before
    shot(page)


def test_two_players_see_only_their_own_cards_until_the_showdown(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Pair")
    pages = []
    for spot, width in ((1, 1280), (6, 375)):
        name, password, _ = site.player()
        page = new_page(browser, {"width": width, "height": 900})
        log_in(page, site.url, name, password)
        open_from_lobby(page, table)
        sit(page, spot)
        pages.append((spot, page))
    for _, page in pages:
        wager(page, "5")
    hands = {spot: my_cards(page) for spot, page in pages}
    assert not set(hands[1]) & set(hands[6])
    (a_spot, a), (b_spot, b) = pages
    for spot, page in pages:
        other = hands[b_spot if spot == a_spot else a_spot]
        for code in other:
            expect(page.locator(f"[data-card='{code}']")).to_have_count(0)
        other_spot = b_spot if spot == a_spot else a_spot
        expect(page.locator(f"#spot-{other_spot} .card.back")).to_have_count(7)
    # the phone-width page fits its width
    assert b.evaluate("document.documentElement.scrollWidth") <= 376
    # A sets; B still sees A's cards face down
    set_house_way(a, hands[a_spot])
    expect(a.locator("#my-setting")).to_be_visible(timeout=WAIT)
    expect(b.locator(f"#spot-{a_spot}")).to_contain_text("set", timeout=WAIT)
    for code in hands[a_spot]:
        expect(b.locator(f"[data-card='{code}']")).to_have_count(0)
    shot(b, "-before-showdown")
    set_house_way(b, hands[b_spot])
    # the showdown: every setting is public
    for _, page in pages:
        result_of(page, a_spot)
        result_of(page, b_spot)
        for spot in (a_spot, b_spot):
            for code in hands[spot]:
                expect(page.locator(f"#spot-{spot} [data-card='{code}']")).to_have_count(1)
    assert b.evaluate("document.documentElement.scrollWidth") <= 376
    shot(a)
    shot(b, "-phone")
    for _, page in pages:
        page.context.close()


def test_a_practice_table_shows_hints_and_a_casino_table_does_not(
    site: Any, page: Page, shot: Any
) -> None:
    practice = site.table(name="Practice", mode="practice")
    casino = site.table(name="Casino", mode="casino")
    name, password, api = site.player()
    log_in(page, site.url, name, password)
    open_from_lobby(page, practice)
    expect(page.locator("#posted-mode")).to_have_text("Practice table")
    sit(page, 4)
    wager(page, "5")
    cards = my_cards(page)
    page.click("#hint-btn")
    hint = page.locator("#hint")
    expect(hint).to_contain_text("House way", timeout=WAIT)
    page.click("#use-hint")
    expect(page.locator("#my-cards button[aria-pressed='true']")).to_have_count(2)
    pressed = page.locator("#my-cards button[aria-pressed='true']")
    assert sorted(str(pressed.nth(i).get_attribute("data-card")) for i in range(2)) == sorted(
        house_low(cards)
    )
    page.click("#ev-btn")
    expect(page.locator("#ev-table tbody tr, #ev-unavailable")).not_to_have_count(
        0, timeout=120_000
    )
    if page.locator("#ev-table").count():
        expect(page.locator("#ev-table tbody tr")).to_have_count(21)
        expect(page.locator("#ev-table")).to_contain_text("house way")
    shot(page)
    page.click("#set-btn")
    result_of(page, 4)
    # the casino table: no hint, no EV, on the page or from the API
    page.goto(site.url + "/#/lobby")
    open_from_lobby(page, casino)
    expect(page.locator("#posted-mode")).to_have_text("Casino table")
    sit(page, 4)
    wager(page, "5")
    my_cards(page)
    expect(page.locator("#practice")).to_have_count(0)
    expect(page.locator("#hint-btn")).to_have_count(0)
    expect(page.locator("#ev-btn")).to_have_count(0)
    assert api.call("GET", f"/api/tables/{casino}/hint", status=403)["code"] == "casino-table"
    assert api.call("GET", f"/api/web/tables/{casino}/ev", status=403)["code"] == "casino-table"
    shot(page, "-casino")


def test_recall_replays_a_round(site: Any, page: Page, shot: Any) -> None:
    table = site.table(name="Recall")
    name, password, api = site.player()
    play_round_over_api(api, table, 5, 700)
    log_in(page, site.url, name, password)
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    expect(page.locator("#step-text")).to_contain_text("Step 0 of")
    # issue 50, versions: the round's house way by name and the digest of its rules, from its log
    digest = HouseWay.preset("standard").digest
    expect(page.locator("#round-house-way")).to_have_attribute("data-digest", digest)
    expect(page.locator("#round-house-way")).to_contain_text(
        f"standard (digest of its rules {digest})"
    )
    steps = int(re.search(r"of (\d+)", str(page.locator("#step-text").text_content())).group(1))  # type: ignore[union-attr]
    assert steps >= 8
    for i in range(1, steps + 1):
        page.keyboard.press("Enter")  # "Next step" keeps the focus
        expect(page.locator("#step-text")).to_contain_text(f"Step {i} of {steps}")
    expect(page.locator("#steps li")).to_have_count(steps)
    expect(page.locator("#steps")).to_contain_text("Dice")
    expect(page.locator("#steps")).to_contain_text("Dealer sets by the house way, rule")
    expect(page.locator("#step-text")).to_contain_text("Round settled")
    expect(page.locator("#replay-state")).to_contain_text(
        re.compile(r"WIN: won \$|PUSH: push, \$|LOSS: lost \$")  # the amount, whatever the outcome
    )
    page.click("#step-prev")
    expect(page.locator("#step-text")).to_contain_text(f"Step {steps - 1} of {steps}")
    shot(page)


def test_the_operator_page(site: Any, page: Page, shot: Any) -> None:
    name, _, api = site.player(credit=0)
    as_operator(page, site.url)
    page.fill("#t-name", "Opened in the browser")
    page.fill("#t-commission", "4%")
    page.select_option("#t-mode", "practice")
    page.click("#create-table button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text("4% posted", timeout=WAIT)
    opened = [t for t in api.call("GET", "/api/tables") if t["name"] == "Opened in the browser"]
    assert (
        len(opened) == 1 and opened[0]["commission"] == "0.04" and opened[0]["mode"] == "practice"
    )
    page.fill("#c-user", name)
    page.fill("#c-amount", "25")
    page.click("#credit-form button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text("$25.00", timeout=WAIT)
    assert api.call("GET", "/api/me")["balance"] == 2500
    page.click(f"#close-{opened[0]['id']}")
    page.click(f"#close-yes-{opened[0]['id']}")  # closing asks first
    expect(page.locator("#op-tables")).to_contain_text("clos", timeout=WAIT)
    page.click("#load-audit")
    expect(page.locator("#audit")).to_contain_text("credit", timeout=WAIT)
    expect(page.locator("#audit-export")).to_be_visible()
    with page.expect_download() as download:
        page.click("#audit-export")
    assert "credit" in Path(download.value.path()).read_text()
    shot(page)
