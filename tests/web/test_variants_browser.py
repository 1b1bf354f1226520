"""A Face Up table in the browser, at 1366x768 and 375x812: the variant posted beside the
commission, the dealer's seven cards set face up and shown before you set (with the practice
table's best setting against them), each spot's setting and result at the settlement, all on one
screen and with no serious axe-core violation; the operator's form opens an EZ table. The dragon
hand in the browser is not covered here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.helpers.walks import (
    LAPTOP,
    SIZES,
    WAIT,
    as_operator,
    axe_problems,
    log_in,
    my_cards,
    new_page,
    note,
    off_screen,
    open_table,
    phase_check,
    set_house_way,
    settled,
    sit,
    wager,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", SIZES)
def test_a_face_up_table_shows_the_dealer_before_you_set(
    site: Any, browser: Browser, shot: Any, size: dict[str, int]
) -> None:
    table = site.table(name="Face up", variant="face-up", mode="practice", setting_time_ms=120_000)
    name, password, _ = site.player()
    page = new_page(browser, size, reduced_motion="reduce")
    tag = f"-{size['width']}x{size['height']}"
    found: dict[str, list[str]] = {}
    check = phase_check(page, shot, tag, found, ["#dealer"])

    log_in(page, site.url, name, password)
    open_table(page, site.url, table)
    expect(page.locator("#posted-commission")).to_have_text("No commission (posted, 9-1(f))")
    expect(page.locator("#posted-push")).to_have_text(
        "The dealer's ace-high pai gow pushes every wager"
    )
    expect(page.locator("#posted-face-up")).to_contain_text("Face up")
    sit(page, 2)
    wager(page, "10")
    cards = my_cards(page)
    # the dealer's seven cards, set, before you set
    expect(page.locator("#dealer-hand .card")).to_have_count(7, timeout=WAIT)
    expect(page.locator("#dealer-rule")).to_contain_text("Face up, set by the house way")
    expect(page.locator("#set-btn")).to_be_visible()
    expect(page.locator("#status")).to_have_attribute("data-phase", "setting")
    dealer = [
        str(page.locator("#dealer-hand .card").nth(i).get_attribute("data-card")) for i in range(7)
    ]
    assert not set(dealer) & set(cards)
    check("setting", ["#dealer-hand", "#high-box", "#low-box", "#set-btn", "#hint-btn"])
    page.click("#hint-btn")
    expect(page.locator("#best-hint")).to_contain_text("Best against the dealer's setting")
    # (the help opened may scroll on a phone, as the house way's alone does)
    page.locator("#use-best").scroll_into_view_if_needed()
    note(found, "hint", axe_problems(page))
    shot(page, f"{tag}-hint")
    page.click("#use-best")
    expect(page.locator("#low-slots .card")).to_have_count(2, timeout=WAIT)
    expect(page.locator("#set-btn")).to_be_enabled()
    page.click("#set-btn")
    settled(page)
    result = page.locator("#result-2")
    expect(result).to_have_count(1, timeout=WAIT)  # in the side panel (a drawer on a phone)
    expect(page.locator("#my-result")).to_be_visible(timeout=WAIT)
    if result.get_attribute("data-reason"):  # the dealer's ace-high pai gow pushed it
        expect(result).to_contain_text("PUSH BY RULE")
        expect(page.locator("#dealer-push")).to_contain_text("all wagers push")
    check("results", ["#dealer-hand", "#my-result"])
    # the round in recall, the spot's setting shown with its result
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    page.click("#step-last")
    expect(page.locator("#replay-state .recall-result")).to_have_count(1, timeout=WAIT)
    note(found, "recall", axe_problems(page))
    page.context.close()
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_the_operators_form_opens_an_ez_table(site: Any, browser: Browser) -> None:
    page = new_page(browser, LAPTOP)
    as_operator(page, site.url)
    expect(page.locator("#create-table")).to_be_visible(timeout=WAIT)
    page.fill("#t-name", "EZ from the form")
    page.select_option("#t-variant", "ez")
    expect(page.locator("#t-commission")).to_have_value("0%")
    expect(page.locator("#t-push")).to_have_value("queen-high-pai-gow")
    expect(page.locator("#t-face-up")).not_to_be_checked()
    expect(page.locator("#t-variant-hint")).to_contain_text("queen-high pai gow pushes")
    page.click("#create-table button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text(
        "commission 0% posted; dealer's queen-high pai gow: every wager pushes", timeout=WAIT
    )
    expect(page.locator("#op-tables")).to_contain_text("EZ from the form")
    assert axe_problems(page) == []
    tid = page.locator("#op-msg").inner_text().split()[1]
    # the floor names the variant beside the table (its hold is the push rule's)
    page.goto(site.url + "/#/floor")
    variant = page.locator(f"tr[data-table='{tid}'] [data-field=variant]")
    expect(variant).to_contain_text("commission 0%; dealer's queen-high pai gow", timeout=WAIT)
    assert axe_problems(page) == []
    page.context.close()


RULE_PUSH = "dealer's queen-high pai gow: all wagers push"


def as_rule_push(message: str | bytes) -> str | bytes:
    """A spot's settlement from the server as a push by the EZ rule would be (the rule's
    trigger is the server's, tested there; here: how the page shows one)."""
    if not isinstance(message, str) or '"spot-settled"' not in message:
        return message
    m = json.loads(message)
    if m.get("type") != "spot-settled":
        return message
    m.update(outcome="push", win=0, commission=0, returned=m["wager"], reason="queen-high-pai-gow")
    m["text"] = f"spot {m['spot']}: push, ${m['wager'] / 100:.2f} returned ({RULE_PUSH})"
    return json.dumps(m)


@pytest.mark.parametrize("size", SIZES)
def test_a_push_by_the_rule_is_its_own_outcome_on_the_page(
    site: Any, browser: Browser, shot: Any, size: dict[str, int]
) -> None:
    table = site.table(name="EZ", variant="ez")
    name, password, _ = site.player()
    page = new_page(browser, size, reduced_motion="reduce")

    def relay(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: ws.send(as_rule_push(message)))

    page.route_web_socket("**/ws/**", relay)
    log_in(page, site.url, name, password)
    open_table(page, site.url, table)
    expect(page.locator("#posted-commission")).to_have_text("No commission (posted, 9-1(f))")
    expect(page.locator("#posted-push")).to_have_text(
        "The dealer's queen-high pai gow pushes every wager"
    )
    sit(page, 4)
    wager(page, "10")
    cards = my_cards(page)
    expect(page.locator("#dealer-hand")).to_have_count(0)  # face down until all have set
    set_house_way(page, cards)
    settled(page)
    expect(page.locator("#result-4")).to_contain_text("PUSH BY RULE", timeout=WAIT)
    expect(page.locator("#result-4")).to_have_attribute("data-reason", "queen-high-pai-gow")
    expect(page.locator("#spot-4 .result")).to_contain_text("PUSH BY RULE")
    expect(page.locator("#my-result")).to_contain_text("PUSH BY RULE")
    expect(page.locator("#dealer-push")).to_have_text(RULE_PUSH)
    shot(page, f"-{size['width']}x{size['height']}-rule-push")
    problems = off_screen(
        page, ["#dealer", "#dealer-hand", "#dealer-push", "#my-result"], whole=False
    )
    problems += page.evaluate(
        """() => [...document.querySelectorAll('.dealer, .spot')].filter((el) =>
          el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
          .map((el) => `${el.id || el.className} cuts off its content`)"""
    )
    assert problems == [] and axe_problems(page) == []
    page.context.close()
