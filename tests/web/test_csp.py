"""The strict Content-Security-Policy in Debian's Chromium: every page of the app, as a player and
as an operator at 1366x768, 375x812 and 812x375, works (a round played through the page, its live feed over the
WebSocket that ``connect-src 'self'`` allows) without one policy violation or console error; and
the policy is really enforced (an inline script and an inline style injected are refused)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers.walks import (
    LAPTOP,
    PHONE,
    as_operator,
    my_cards,
    new_page,
    open_table,
    player_page,
    set_house_way,
    settled,
    sit,
    wager,
)

pytestmark = pytest.mark.slow

WAIT = 30_000
RECORD = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


class Watch:
    """A page's CSP violations (from the page's own event) and console errors."""

    def __init__(self, page: Page) -> None:
        self.page, self.console = page, []
        page.context.add_init_script(RECORD)
        page.on(
            "console",
            lambda m: self.console.append(m.text) if m.type in ("error", "warning") else None,
        )

    def problems(self, where: str) -> list[str]:
        found = [f"{where}: {v}" for v in self.page.evaluate("window.__csp || []")]
        found += [f"{where}: console: {t}" for t in self.console]
        self.console.clear()
        return found


def visit(page: Page, url: str, route: str, ready: str) -> None:
    page.goto(f"{url}/#/{route}")
    expect(page.locator(ready).first).to_be_visible(timeout=WAIT)
    expect(page.locator("#view .error")).to_have_count(0)


LANDSCAPE = {"width": 812, "height": 375}


@pytest.mark.parametrize(
    "viewport", [LAPTOP, PHONE, LANDSCAPE], ids=["laptop", "phone", "landscape"]
)
def test_every_page_works_under_the_policy(
    site: Any, browser: Browser, viewport: dict[str, int]
) -> None:
    table = site.table(name="Policy")
    page, _, _ = player_page(site, browser, viewport)
    watch = Watch(page)  # from here on: every navigation records its violations
    found: list[str] = []
    visit(page, site.url, "lobby", f"#open-table-{table}")
    found += watch.problems("lobby")
    visit(page, site.url, "rules", "#view h1, #view h2")
    found += watch.problems("rules")
    visit(page, site.url, "limits", "#limit-now")
    found += watch.problems("limits")
    open_table(page, site.url, table, live=True)  # the feed: a WebSocket to the same host
    sit(page, 1)
    wager(page, "5")
    set_house_way(page, my_cards(page))
    settled(page)
    expect(page.locator("#felt .card").first).to_be_visible()
    found += watch.problems("table")
    visit(page, site.url, f"recall/{table}", "#rounds li button")
    page.locator("#rounds li button").first.click()
    expect(page.locator("#replay-title")).to_be_visible(timeout=WAIT)
    found += watch.problems("recall")
    page.context.close()

    op = new_page(browser, viewport)
    watch = Watch(op)
    as_operator(op, site.url)
    op.get_by_role("button", name="Load the audit log").click()
    expect(op.locator("#audit-table")).to_be_visible(timeout=WAIT)
    found += watch.problems("operator and audit")
    op.goto(site.url + "/#/floor")
    expect(op.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    found += watch.problems("floor")
    open_table(op, site.url, table, live=True)
    found += watch.problems("operator at the table")
    visit(op, site.url, f"recall/{table}", "#rounds li button")
    found += watch.problems("operator's recall")
    visit(op, site.url, "rules", "#view h1, #view h2")
    found += watch.problems("operator's rules")
    op.context.close()
    assert found == []


def test_the_policy_is_enforced(site: Any, browser: Browser) -> None:
    """Were the policy not sent, these injected inline script and style would be let through."""
    page = new_page(browser, LAPTOP)
    watch = Watch(page)
    visit(page, site.url, "lobby", "#login-form")
    assert watch.problems("lobby") == []
    page.evaluate(
        """() => {
        const s = document.createElement('script');
        s.textContent = 'window.__ran = true';
        document.body.append(s);
        const d = document.createElement('div');
        d.id = 'styled';
        document.body.insertAdjacentHTML('beforeend', '<div id="styled" style="width: 123px">x</div>');
    }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("window.__ran === undefined")
    assert page.evaluate("getComputedStyle(document.getElementById('styled')).width") != "123px"
    found = " ".join(page.evaluate("window.__csp"))
    assert "script-src" in found and "style-src" in found, found
    page.context.close()
