"""The dragon hand in the browser, at 1366x768 and 375x812: posted beside the commission, the offer
shown to the player whose turn it is (an amount from the table minimum to their own wager, wager
or decline; a wrong amount refused in words) and "offered to spot N" to everyone else, the dragon
on its empty spot face down, then its cards and its result at the showdown, your net with it, on
one screen and with no serious axe-core violation; recall shows it; the operator's form opens a
dragon table."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from paigow.house_way import BUILTIN_PRESETS, HouseWay
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
    open_table,
    phase_check,
    set_house_way,
    settled,
    sit,
    wager,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("size", SIZES)
def test_a_dragon_hand_offered_wagered_and_settled_on_the_page(
    site: Any, browser: Browser, shot: Any, size: dict[str, int]
) -> None:
    table = site.table(name="Dragon", dragon=True, setting_time_ms=120_000)
    name, password, _ = site.player()
    page = new_page(browser, size, reduced_motion="reduce")
    watcher = new_page(browser, size, reduced_motion="reduce")
    tag = f"-{size['width']}x{size['height']}"
    found: dict[str, list[str]] = {}
    check = phase_check(page, shot, tag, found, ["#dealer", ".spot.dragon"])

    log_in(page, site.url, name, password)
    open_table(page, site.url, table)
    watcher.goto(site.url + f"/#/table/{table}")  # watching, not logged in
    expect(page.locator("#posted-dragon")).to_contain_text("Dragon hand")
    sit(page, 3)
    wager(page, "20")
    cards = my_cards(page)
    # the only player: the offer is yours at once; everyone else reads whose turn it is
    expect(page.locator("#dragon-offer")).to_be_visible(timeout=WAIT)
    expect(page.locator("#dragon-range")).to_have_text("($5.00–$20.00)")
    expect(page.locator("#dragon-state")).to_have_text("offered to you")
    expect(watcher.locator("#dragon-state")).to_have_text("offered to spot 3", timeout=WAIT)
    expect(watcher.locator(".spot.dragon .cards .card")).to_have_count(7)  # face down
    check("offer", ["#dragon-offer", "#dragon-amount", "#dragon-accept", "#dragon-decline"])
    page.fill("#dragon-amount", "25")  # above your own wager: refused, in words
    page.click("#dragon-accept")
    expect(page.locator("#status-msg")).to_contain_text("$5.00–$20.00")
    page.fill("#dragon-amount", "7.50")
    page.click("#dragon-accept")
    expect(page.locator("#dragon-offer")).to_have_count(0, timeout=WAIT)
    expect(page.locator("#dragon-state")).to_have_text("spot 3 (you) wagers $7.50")
    expect(watcher.locator("#dragon-state")).to_have_text("spot 3 wagers $7.50", timeout=WAIT)
    expect(page.locator("#dragon-chip")).to_be_visible()
    if size["width"] >= 1000:  # room for the whole line on a wide screen (issue 49): not cut
        cut = page.locator("#dragon-state").evaluate("e => e.scrollWidth > e.clientWidth + 1")
        assert not cut, page.locator("#dragon-state").text_content()
    set_house_way(page, cards)
    settled(page)
    # the showdown: the dragon's seven cards as the house way set them, and its result
    expect(page.locator("#dragon-hands .card")).to_have_count(7, timeout=WAIT)
    expect(page.locator("#dragon-result")).to_be_visible(timeout=WAIT)
    expect(page.locator("#result-dragon")).to_have_count(1)  # in the side panel
    expect(page.locator("#my-dragon")).to_contain_text("dragon")
    outcome = str(page.locator("#result-dragon").get_attribute("data-outcome"))
    assert outcome in ("win", "push", "loss")
    expect(watcher.locator("#dragon-hands .card")).to_have_count(7, timeout=WAIT)
    check("results", ["#dealer-hand", "#dragon-hands", "#dragon-result", "#my-result"])
    if size["width"] >= 1000:  # the longest rule of any preset wraps in the dragon's line, whole
        longest = max((r for n in BUILTIN_PRESETS for r in HouseWay.preset(n).rule_ids()), key=len)
        cut = page.locator(".spot.dragon .set-by").evaluate(
            """(e, text) => { e.textContent = text; const s = e.closest('.spot');
                return [e.scrollWidth - e.clientWidth, s.scrollHeight - s.clientHeight]; }""",
            f"house way, {longest}",
        )
        assert cut[0] <= 1 and cut[1] <= 1, (longest, cut)
    note(found, "watcher", axe_problems(watcher))
    # the round in recall: the dragon's setting and result
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    page.click("#step-last")
    expect(page.locator("#recall-dragon")).to_contain_text("spot 3 (you) wagers $7.50"[:6])
    expect(page.locator("#recall-dragon .card")).to_have_count(7)
    note(found, "recall", axe_problems(page))
    page.context.close()
    watcher.context.close()
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_the_operators_form_opens_a_dragon_table(site: Any, browser: Browser) -> None:
    page = new_page(browser, LAPTOP)
    as_operator(page, site.url)
    expect(page.locator("#create-table")).to_be_visible(timeout=WAIT)
    page.fill("#t-name", "Dragon from the form")
    expect(page.locator("#t-dragon")).not_to_be_checked()  # off by default
    page.check("#t-dragon")
    page.click("#create-table button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text("the dragon hand offered", timeout=WAIT)
    assert axe_problems(page) == []
    tid = int(page.locator("#op-msg").inner_text().split()[1])
    assert site.op.call("GET", f"/api/tables/{tid}")["dragon"] is True
    page.context.close()
