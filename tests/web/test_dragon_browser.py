"""The dragon hand in the browser, at 1366x768 and 375x812: posted beside the commission, the offer
shown to the player whose turn it is (an amount from the table minimum to their own wager, wager
or decline; a wrong amount refused in words) and "offered to spot N" to everyone else, the dragon
on its empty spot face down, then its cards and its result at the showdown, your net with it, on
one screen and with no serious axe-core violation; recall shows it; the operator's form opens a
dragon table."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from paigow.cards import parse_cards
from paigow.house_way import HouseWay

pytestmark = pytest.mark.slow

WAIT = 20_000
SIZES = [
    pytest.param({"width": 1366, "height": 768}, id="1366x768"),
    pytest.param({"width": 375, "height": 812}, id="375x812"),
]
IN_VIEW_JS = """(sel) => { const el = document.querySelector(sel); if (!el) return `${sel} missing`;
  const r = el.getBoundingClientRect();
  if (r.height <= 0 || r.width <= 0) return `${sel} not shown`;
  if (r.top < -0.5 || r.left < -0.5 || r.bottom > window.innerHeight + 0.5 || r.right > window.innerWidth + 0.5)
    return `${sel} outside the window`;
  return null; }"""


def axe_problems(page: Page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def off_screen(page: Page, selectors: list[str]) -> list[str]:
    out = [p for p in (page.evaluate(IN_VIEW_JS, s) for s in selectors) if p]
    if page.evaluate("document.documentElement.scrollHeight > window.innerHeight"):
        out.append("the page scrolls")
    return out


def log_in(page: Page, url: str, username: str, password: str) -> None:
    page.goto(url + "/#/lobby")
    page.fill("#login-username", username)
    page.fill("#login-password", password)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#logout")).to_be_visible(timeout=WAIT)


@pytest.mark.parametrize("size", SIZES)
def test_a_dragon_hand_offered_wagered_and_settled_on_the_page(
    site: Any, browser: Browser, shot: Any, size: dict[str, int]
) -> None:
    table = site.table(name="Dragon", dragon=True, setting_time_ms=120_000)
    name, password, _ = site.player()
    page = browser.new_context(viewport=size, reduced_motion="reduce").new_page()
    watcher = browser.new_context(viewport=size, reduced_motion="reduce").new_page()
    tag = f"-{size['width']}x{size['height']}"
    found: dict[str, list[str]] = {}

    def check(phase: str, selectors: list[str]) -> None:
        page.wait_for_timeout(200)
        problems = off_screen(page, ["#dealer", ".spot.dragon", *selectors]) + axe_problems(page)
        if problems:
            found[phase] = problems
        shot(page, f"{tag}-{phase}")

    log_in(page, site.url, name, password)
    page.goto(site.url + f"/#/table/{table}")
    watcher.goto(site.url + f"/#/table/{table}")  # watching, not logged in
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    expect(page.locator("#posted-dragon")).to_contain_text("Dragon hand")
    page.click("#sit-3")
    page.fill("#wager-amount", "20")
    page.click("#wager-btn")
    buttons = page.locator("#my-cards button.card")
    expect(buttons).to_have_count(7, timeout=WAIT)
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
    cards = parse_cards([str(buttons.nth(i).get_attribute("data-card")) for i in range(7)])
    for card in HouseWay.preset("standard").set_hand(cards).setting.low:
        page.click(f"#my-cards button[data-card='{card.code}']")
    page.click("#set-btn")
    expect(page.locator("#status")).to_have_attribute("data-phase", "settled", timeout=WAIT)
    # the showdown: the dragon's seven cards as the house way set them, and its result
    expect(page.locator("#dragon-hands .card")).to_have_count(7, timeout=WAIT)
    expect(page.locator("#dragon-result")).to_be_visible(timeout=WAIT)
    expect(page.locator("#result-dragon")).to_have_count(1)  # in the side panel
    expect(page.locator("#my-dragon")).to_contain_text("dragon")
    outcome = str(page.locator("#result-dragon").get_attribute("data-outcome"))
    assert outcome in ("win", "push", "loss")
    expect(watcher.locator("#dragon-hands .card")).to_have_count(7, timeout=WAIT)
    check("results", ["#dealer-hand", "#dragon-hands", "#dragon-result", "#my-result"])
    problems = axe_problems(watcher)
    if problems:
        found["watcher"] = problems
    # the round in recall: the dragon's setting and result
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    page.click("#step-last")
    expect(page.locator("#recall-dragon")).to_contain_text("spot 3 (you) wagers $7.50"[:6])
    expect(page.locator("#recall-dragon .card")).to_have_count(7)
    problems = axe_problems(page)
    if problems:
        found["recall"] = problems
    page.context.close()
    watcher.context.close()
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_the_operators_form_opens_a_dragon_table(site: Any, browser: Browser) -> None:
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    log_in(page, site.url, "boss", "operator-password")
    page.goto(site.url + "/#/operator")
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
