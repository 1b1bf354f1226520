"""The browser tests' shared walk at the table: a new player logs in on a page of its own and
opens a table, sits, wagers, sets the house way (after a foul, asked and taken back) and sees
the round settled; the other players' moves over the API; the felt's layout rules, what is in
the window, and axe-core's findings.

Used by every browser test file (``site`` is the fixture of ``conftest.py``: its ``player()``
registers and credits a player over the API)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.setting import all_settings

HW = HouseWay.preset("standard")
WAIT = 20_000
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 375, "height": 812}
SIZES = [pytest.param(LAPTOP, id="1366x768"), pytest.param(PHONE, id="375x812")]
VIEWPORTS = {"desktop": LAPTOP, "phone": PHONE}
OPERATOR = ("boss", "operator-password")


# ------------------------------------------------------------------------------- the hands


def house_low(cards: list[str]) -> list[str]:
    """The two cards the house way sets low."""
    return [c.code for c in HW.set_hand(parse_cards(cards)).setting.low]


def foul_low(cards: list[str]) -> list[str] | None:
    """Two cards whose setting low fouls the hand (None: no setting of these cards fouls)."""
    fouls = [s for s in all_settings(parse_cards(cards)) if s.is_foul]
    return [c.code for c in fouls[0].low] if fouls else None


# ------------------------------------------------------------------------------- the page


def new_page(browser: Browser, viewport: dict[str, int], **context: Any) -> Page:
    return browser.new_context(viewport=viewport, **context).new_page()


def resize(page: Page, viewport: str) -> int:
    """The page at one of :data:`VIEWPORTS` (``"desktop"``, ``"phone"``); its width."""
    page.set_viewport_size(VIEWPORTS[viewport])
    return VIEWPORTS[viewport]["width"]


def log_in(page: Page, url: str, username: str, password: str, timeout: float = WAIT) -> None:
    """Log in from the lobby's form (``timeout``: how long the logout button may take)."""
    page.goto(url + "/#/lobby")
    for _ in range(2):  # the page may render the form again while it is filled (its start-up)
        page.fill("#login-username", username)
        page.fill("#login-password", password)
        page.click("#login-form button[type=submit]")
        try:
            expect(page.locator("#logout")).to_be_visible(timeout=timeout / 2)
            return
        except AssertionError:
            if page.locator("#login-username").input_value() == username:
                raise  # filled and sent: a real refusal
    expect(page.locator("#logout")).to_be_visible(timeout=timeout / 2)


def as_operator(page: Page, url: str, where: str = "operator", timeout: float = WAIT) -> None:
    """Log in as the operator and open the page ``where`` (``"operator"``, ``"floor"``)."""
    log_in(page, url, *OPERATOR, timeout=timeout)
    page.goto(url + f"/#/{where}")


def open_table(page: Page, url: str, table: int, live: bool = False) -> None:
    """Open the table ``table`` by its address; with ``live``, wait for its feed too."""
    page.goto(url + f"/#/table/{table}")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    if live:
        expect(page.locator("#view[data-live='1']")).to_have_count(1, timeout=WAIT)


def open_from_lobby(page: Page, table: int) -> None:
    """Open the table ``table`` from the lobby's list (the lobby on the page)."""
    page.click(f"#open-table-{table}")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)


def player_page(
    site: Any, browser: Browser, viewport: dict[str, int], credit: int = 100_000, **context: Any
) -> tuple[Page, str, Any]:
    """A new player, logged in on a page of its own: the page, its name and its API client."""
    name, password, api = site.player(credit=credit)
    page = new_page(browser, viewport, **context)
    log_in(page, site.url, name, password)
    return page, name, api


def at_table(
    site: Any,
    browser: Browser,
    viewport: dict[str, int],
    table: int,
    credit: int = 100_000,
    **context: Any,
) -> tuple[Page, str, Any]:
    """:func:`player_page`, the table ``table`` open on it."""
    page, name, api = player_page(site, browser, viewport, credit, **context)
    open_table(page, site.url, table)
    return page, name, api


# ------------------------------------------------------------------------------- a round, in the browser


def sit(page: Page, spot: int) -> None:
    """Take the seat at ``spot``: the wager form comes."""
    page.click(f"#sit-{spot}")
    expect(page.locator("#wager-amount")).to_be_visible(timeout=WAIT)


def wager(page: Page, dollars: str | None = None) -> None:
    """Wager ``dollars`` (None: the amount the form shows) once the form is there."""
    expect(page.locator("#wager-amount")).to_be_visible(timeout=WAIT)
    if dollars is not None:
        page.fill("#wager-amount", dollars)
    page.click("#wager-btn")


def my_cards(page: Page) -> list[str]:
    """The seven cards dealt to the page's player, as the page shows them."""
    buttons = page.locator("#my-cards button.card")
    expect(buttons).to_have_count(7, timeout=WAIT)
    return [str(buttons.nth(i).get_attribute("data-card")) for i in range(7)]


def pick(page: Page, codes: list[str]) -> None:
    """Click each of these cards (a click moves a card to the low hand, or back)."""
    for code in codes:
        page.click(f"#card-{code}")


def set_house_way(page: Page, cards: list[str]) -> None:
    pick(page, house_low(cards))
    expect(page.locator("#set-btn")).to_be_enabled()
    page.click("#set-btn")


def foul_asked(page: Page, cards: list[str], seen: Callable[[], None]) -> None:
    """When these cards can foul: set a foul, the page warns and asks again at the set button;
    ``seen()`` that question, then take the foul back (no card left low)."""
    low = foul_low(cards)
    if not low:
        return
    pick(page, low)
    expect(page.locator("#foul-warning")).to_be_visible(timeout=WAIT)
    page.click("#set-btn")
    expect(page.locator("#foul-confirm")).to_be_visible()
    seen()
    page.click("#cancel-foul")
    pick(page, low)
    expect(page.locator("#low-slots .card")).to_have_count(0)


def settled(page: Page) -> None:
    expect(page.locator("#status")).to_have_attribute("data-phase", "settled", timeout=WAIT)


# ------------------------------------------------------------------------------- over the API


def wager_over_api(api: Any, table: int, spot: int, amount: int = 1000, **body: Any) -> None:
    """Sit at ``spot`` and wager (``body``: more of the wager's fields, e.g. side wagers)."""
    api.call("POST", f"/api/tables/{table}/sit", {"spot": spot})
    api.call(
        "POST",
        f"/api/tables/{table}/wager",
        {"amount": amount, "idempotency_key": secrets.token_hex(8), **body},
    )


def hand_over_api(api: Any, table: int) -> list[str]:
    """The player's seven cards, once dealt."""
    deadline = time.time() + 30
    while time.time() < deadline:
        hand = api.call("GET", f"/api/tables/{table}/hand", status=None)
        if isinstance(hand, dict) and hand.get("cards"):
            return list(hand["cards"])
        time.sleep(0.05)
    raise AssertionError("no cards dealt")


def set_over_api(api: Any, table: int) -> None:
    """Set the player's hand by the house way."""
    api.call("POST", f"/api/tables/{table}/set", {"low": house_low(hand_over_api(api, table))})


def wait_ended(api: Any, table: int) -> None:
    deadline = time.time() + 30
    while time.time() < deadline and api.call("GET", f"/api/tables/{table}")["round"]:
        time.sleep(0.05)


def play_round_over_api(api: Any, table: int, spot: int, amount: int = 1000) -> list[str]:
    """A whole round for one player through the API (house-way setting); its cards."""
    wager_over_api(api, table, spot, amount)
    cards = hand_over_api(api, table)
    api.call("POST", f"/api/tables/{table}/set", {"low": house_low(cards)})
    wait_ended(api, table)
    return cards


# ------------------------------------------------------------------------------- the felt

FELT_JS = """async ({ mine, page }) => {
  await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  const problems = [];
  const felt = document.getElementById('felt');
  if (!felt) return ['no felt'];
  const f = felt.getBoundingClientRect();
  const cs = getComputedStyle(felt);
  const inner = { left: f.left + parseFloat(cs.borderLeftWidth), right: f.right - parseFloat(cs.borderRightWidth),
                  top: f.top + parseFloat(cs.borderTopWidth), bottom: f.bottom - parseFloat(cs.borderBottomWidth) };
  const inside = (r, o) => r.left >= o.left - 0.5 && r.right <= o.right + 0.5 && r.top >= o.top - 0.5 && r.bottom <= o.bottom + 0.5;
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const name = (el) => el.id || el.dataset.card || el.className;
  const boxes = [...felt.querySelectorAll('.spot, .dealer, #dice-shown')];
  boxes.forEach((b, i) => {
    const r = b.getBoundingClientRect();
    if (!inside(r, inner)) problems.push(`${name(b)} outside the felt`);
    boxes.slice(i + 1).forEach((o) => { if (overlap(r, o.getBoundingClientRect())) problems.push(`${name(b)} over ${name(o)}`); });
  });
  for (const el of felt.querySelectorAll('.card, .chip')) {
    const box = el.closest('.spot, .dealer');
    if (!box || !inside(el.getBoundingClientRect(), box.getBoundingClientRect())) problems.push(`${name(el)} outside its box`);
  }
  const cards = [...document.querySelectorAll(mine)];
  cards.forEach((c, i) => cards.slice(i + 1).forEach((o) => {
    if (overlap(c.getBoundingClientRect(), o.getBoundingClientRect())) problems.push(`your ${name(c)} over ${name(o)}`);
  }));
  if (page && document.documentElement.scrollWidth > window.innerWidth) problems.push(`page ${document.documentElement.scrollWidth} px wide`);
  return problems;
}"""


def felt_problems(page: Page, mine: str = "#my-cards .card", whole_page: bool = True) -> list[str]:
    """The felt's rules: every box inside the felt, none over another, every card and chip
    inside its spot, none of your cards (``mine``) over another; and with ``whole_page``, the
    page no wider than the window."""
    return list(page.evaluate(FELT_JS, {"mine": mine, "page": whole_page}))


# ------------------------------------------------------------------------------- the window

SCREEN_JS = """({ whole }) => {
  const out = [];
  const d = document.documentElement;
  if (d.scrollHeight > window.innerHeight) out.push(`the page scrolls: ${d.scrollHeight} px high in ${window.innerHeight}`);
  if (!whole) return out;
  if (d.scrollWidth > window.innerWidth) out.push(`the page scrolls sideways: ${d.scrollWidth} px wide in ${window.innerWidth}`);
  // nothing cut off inside the boxes that hide their overflow (the seat, the felt, each spot)
  for (const el of document.querySelectorAll('#seat, #felt, .spot, .dealer')) {
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
      out.push(`${el.id || el.className} cuts off its content: ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
    }
  }
  // no words cut short: no element inside them that hides its overflow (an ellipsis, a clipped
  // line) holds more text than it shows (the visually hidden ones, 1 px, for screen readers aside)
  const boxes = new Set(document.querySelectorAll('#seat, #felt, .spot, .dealer'));
  for (const el of document.querySelectorAll('#table-app *')) {
    if (boxes.has(el) || el.clientWidth <= 1 || !el.textContent.trim()) continue;
    const cs = getComputedStyle(el);
    if (cs.overflowX === 'visible' && cs.overflowY === 'visible' && cs.textOverflow !== 'ellipsis') continue;
    if (cs.overflowX === 'auto' || cs.overflowY === 'auto' || cs.overflowY === 'scroll') continue;
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
      out.push(`"${el.textContent.trim().slice(0, 40)}" cut off in ${el.id || el.className}: ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
    }
  }
  return out;
}"""


def off_screen(page: Page, selectors: list[str], whole: bool = True) -> list[str]:
    """The selectors whose (first) element is missing or not wholly inside the window, and the
    page's scrolling down, if any; with ``whole``, also its scrolling sideways and any content
    cut off in the seat, the felt, a spot or the dealer's box, or any words cut short inside
    the table's page (an ellipsis, a clipped line)."""
    problems = list(page.evaluate(SCREEN_JS, {"whole": whole}))
    size = page.viewport_size
    assert size
    for sel in selectors:
        loc = page.locator(sel)
        if loc.count() == 0:
            problems.append(f"{sel} missing")
            continue
        box = loc.first.bounding_box()
        if box is None or box["height"] <= 0 or box["width"] <= 0:
            problems.append(f"{sel} not shown")
            continue
        if (
            box["x"] < -0.5
            or box["y"] < -0.5
            or box["x"] + box["width"] > size["width"] + 0.5
            or box["y"] + box["height"] > size["height"] + 0.5
        ):
            problems.append(f"{sel} outside the window: {box}")
    return problems


def note(found: dict[str, list[str]], phase: str, problems: list[str]) -> None:
    """Keep a phase's problems, if any, to report them all at the end of the test."""
    if problems:
        found[phase] = problems


def phase_check(
    page: Page, shot: Any, tag: str, found: dict[str, list[str]], always: list[str]
) -> Callable[[str, list[str]], None]:
    """``check(phase, selectors)``: once the page has settled, the ``always`` and ``selectors``
    elements wholly inside the window, the page not scrolling down and axe-core finding nothing
    serious (the problems noted in ``found`` under ``phase``); the phase's screenshot."""

    def check(phase: str, selectors: list[str]) -> None:
        page.wait_for_timeout(200)
        problems = off_screen(page, [*always, *selectors], whole=False) + axe_problems(page)
        note(found, phase, problems)
        shot(page, f"{tag}-{phase}")

    return check


# ------------------------------------------------------------------------------- axe-core


def axe_problems(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, in words."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def check_a11y(page: Page) -> None:
    """No axe-core violation at all (of any impact), and the page no wider than the window."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, (
        "the page scrolls sideways"
    )
