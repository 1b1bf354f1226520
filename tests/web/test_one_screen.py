"""The table on one screen (issue 22): at 1366x768, at 375x812 and on a phone held sideways
(812x375), every phase of a round (seated, betting, dealt and setting, the foul question, waiting
for another player, the showdown and results) shows the dealer's cards, your cards and your boxes,
the wager or setting controls, the countdown and your result inside the window, with the six
spots, and the page does not scroll. Each phase's screenshot goes to ``artifacts/screenshots``;
``scripts/screenshots.py`` copies the ones the docs show into ``docs/``."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.setting import all_settings

pytestmark = pytest.mark.slow

HW = HouseWay.preset("standard")
WAIT = 20_000
SIZES = [
    pytest.param({"width": 1366, "height": 768}, "casino", id="1366x768"),
    pytest.param({"width": 375, "height": 812}, "casino", id="375x812"),
    pytest.param({"width": 812, "height": 375}, "casino", id="812x375"),
    # a practice table adds its help (the hint and EV buttons, a line on real money)
    pytest.param({"width": 375, "height": 812}, "practice", id="375x812-practice"),
    pytest.param({"width": 812, "height": 375}, "practice", id="812x375-practice"),
    # a table with side wagers adds its bonus circles, the live meter and the bonus hands
    pytest.param({"width": 1366, "height": 768}, "side", id="1366x768-side"),
    pytest.param({"width": 375, "height": 812}, "side", id="375x812-side"),
    pytest.param({"width": 812, "height": 375}, "side", id="812x375-side"),
    # a table offering the dragon hand adds the offer in your seat and the dragon's spot
    pytest.param({"width": 1366, "height": 768}, "dragon", id="1366x768-dragon"),
    pytest.param({"width": 375, "height": 812}, "dragon", id="375x812-dragon"),
    pytest.param({"width": 812, "height": 375}, "dragon", id="812x375-dragon"),
]
SIDE_OFFERS = [
    {"name": "fortune", "paytable": "fortune-a", "min_wager": 500, "max_wager": 2_500},
    {
        "name": "progressive",
        "paytable": "fortune-progressive",
        "min_wager": 100,
        "max_wager": 100,
        "bank": "one-screen",
    },
]
SPOTS = [f"#spot-{n}" for n in range(1, 7)]

# what must be in view in each phase, beside the dealer and the six spots
PHASES: dict[str, list[str]] = {
    "seated": ["#phase", "#wager-amount", "#wager-btn", "#bet-main", "#add-500", "#wager-clear"],
    "betting": ["#phase", "#countdown", "#wager-amount", "#wager-btn", "#bet-main", "#add-500"],
    "betting-bonus": [
        *("#countdown", "#wager-amount", "#wager-btn", "#bet-main"),
        *("#bet-side-fortune", "#bet-side-progressive"),
    ],
    "setting": ["#countdown", "#dealer .cards", "#high-box", "#low-box", "#set-btn"]
    + [f"#my-cards button.card >> nth={i}" for i in range(7)],
    "foul": ["#dealer .cards", "#high-box", "#low-box", "#foul-confirm", "#confirm-foul"]
    + [f"#my-cards button.card >> nth={i}" for i in range(7)],
    "dragon": ["#countdown", "#dealer .cards", "#high-box", "#low-box", "#set-btn"]
    + ["#dragon-offer", "#dragon-amount", "#dragon-accept", "#dragon-decline", ".spot.dragon"]
    + [f"#my-cards button.card >> nth={i}" for i in range(7)],
    "waiting": ["#countdown", "#dealer .cards", "#my-setting", "#my-set-line"]
    + [f"#my-setting .card >> nth={i}" for i in range(7)],
    "results": ["#phase", "#dealer-hand", "#my-result", "#wager-amount", "#wager-btn"]
    + [f"#dealer-hand .card >> nth={i}" for i in range(7)]
    + [f"#my-setting .card >> nth={i}" for i in range(7)],
}

# and at a practice table, its help
PRACTICE: dict[str, list[str]] = {
    "seated": ["#practice-money"],
    "setting": ["#hint-btn", "#ev-btn"],
}
# and at a table offering the dragon hand, its spot on the felt: face down once you wagered on it,
# its cards and result at the showdown
DRAGON: dict[str, list[str]] = {
    "setting": [".spot.dragon", "#dragon-state", "#dragon-chip"],
    "waiting": [".spot.dragon", "#dragon-state"],
    "results": [".spot.dragon", "#dragon-result", "#my-dragon"]
    + [f"#dragon-hands .card >> nth={i}" for i in range(7)],
}
# and at a table with side wagers, the meter on the felt in every phase, the bonus hands at the
# showdown
SIDE: dict[str, list[str]] = {
    **{phase: ["#meter-progressive"] for phase in PHASES},
    "waiting": ["#meter-progressive", "#my-side"],
    "results": ["#meter-progressive", "#side-res-2", "#side-res-5", "#my-side-result"],
}

ONE_SCREEN_JS = """(selectors) => {
  const out = [];
  const d = document.documentElement;
  if (d.scrollHeight > window.innerHeight) out.push(`the page scrolls: ${d.scrollHeight} px high in ${window.innerHeight}`);
  if (d.scrollWidth > window.innerWidth) out.push(`the page scrolls sideways: ${d.scrollWidth} px wide in ${window.innerWidth}`);
  // nothing cut off inside the boxes that hide their overflow (the seat, the felt, each spot)
  for (const el of document.querySelectorAll('#seat, #felt, .spot, .dealer')) {
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
      out.push(`${el.id || el.className} cuts off its content: ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
    }
  }
  return out;
}"""

# the felt's own rules (as tests/web/test_table.py checks them): every box inside the felt, none
# over another, every card and chip inside its spot
FELT_JS = """async () => {
  await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  const problems = [];
  const felt = document.getElementById('felt');
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
  const mine = [...document.querySelectorAll('#my-cards .card, #my-setting .card')];
  mine.forEach((c, i) => mine.slice(i + 1).forEach((o) => {
    if (overlap(c.getBoundingClientRect(), o.getBoundingClientRect())) problems.push(`your ${name(c)} over ${name(o)}`);
  }));
  return problems;
}"""


def house_low(cards: list[str]) -> list[str]:
    return [c.code for c in HW.set_hand(parse_cards(cards)).setting.low]


def log_in(page: Page, url: str, username: str, password: str) -> None:
    page.goto(url + "/#/lobby")
    page.fill("#login-username", username)
    page.fill("#login-password", password)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#logout")).to_be_visible(timeout=WAIT)


def my_cards(page: Page) -> list[str]:
    buttons = page.locator("#my-cards button.card")
    expect(buttons).to_have_count(7, timeout=WAIT)
    return [str(buttons.nth(i).get_attribute("data-card")) for i in range(7)]


def off_screen(page: Page, selectors: list[str]) -> list[str]:
    """The selectors whose element is missing or not wholly inside the window, and the page's
    scrolling, if any."""
    problems = list(page.evaluate(ONE_SCREEN_JS, selectors))
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


@pytest.mark.parametrize(("size", "mode"), SIZES)
def test_every_phase_fits_one_screen(
    site: Any, browser: Browser, shot: Any, size: dict[str, int], mode: str
) -> None:
    table = site.table(
        name="One screen",
        mode="casino" if mode in ("side", "dragon") else mode,
        betting_time_ms=60_000,
        setting_time_ms=120_000,
        **({"side_wagers": SIDE_OFFERS} if mode == "side" else {}),
        **({"dragon": True} if mode == "dragon" else {}),
    )
    name, password, _ = site.player()
    _, _, other = site.player()
    page = browser.new_context(viewport=size, reduced_motion="reduce").new_page()
    tag = f"-{size['width']}x{size['height']}" + ("" if mode == "casino" else f"-{mode}")
    found: dict[str, list[str]] = {}

    def check(phase: str) -> None:
        page.wait_for_timeout(150)
        extra = {"practice": PRACTICE, "side": SIDE, "dragon": DRAGON}.get(mode, {}).get(phase, [])
        problems = off_screen(page, ["#dealer", *SPOTS, *PHASES[phase], *extra])
        problems += page.evaluate(FELT_JS)
        if problems:
            found[phase] = problems
        shot(page, f"{tag}-{phase}")

    log_in(page, site.url, name, password)
    page.goto(site.url + f"/#/table/{table}")
    expect(page.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    page.click("#sit-2")
    expect(page.locator("#wager-amount")).to_be_visible(timeout=WAIT)
    check("seated")
    other.call("POST", f"/api/tables/{table}/sit", {"spot": 5})
    other.call(
        "POST",
        f"/api/tables/{table}/wager",
        {"amount": 2_500, "idempotency_key": secrets.token_hex(8)}
        | ({"side": {"fortune": 500}} if mode == "side" else {}),
    )
    expect(page.locator("#countdown")).to_contain_text("Betting closes in", timeout=WAIT)
    page.click("#add-10000")
    check("betting")
    if mode == "side":  # the bonus circles, a chip on each
        page.click("#bet-side-fortune")
        page.click("#add-500")
        page.click("#bet-side-progressive")
        check("betting-bonus")
    page.click("#wager-btn")
    cards = my_cards(page)
    expect(page.locator("#countdown")).to_contain_text("Time to set", timeout=WAIT)
    if mode == "dragon":  # the offer comes to you (the other player declines if first), you wager
        expect(page.locator("#dragon-state")).to_be_visible(timeout=WAIT)
        if "spot 5" in page.locator("#dragon-state").inner_text():
            other.call(
                "POST",
                f"/api/tables/{table}/dragon",
                {"accept": False, "idempotency_key": secrets.token_hex(8)},
            )
        expect(page.locator("#dragon-offer")).to_be_visible(timeout=WAIT)
        check("dragon")
        page.fill("#dragon-amount", "50")
        page.click("#dragon-accept")
        expect(page.locator("#dragon-offer")).to_have_count(0, timeout=WAIT)
        expect(page.locator("#dragon-state")).to_contain_text("(you) wagers $50.00", timeout=WAIT)
    check("setting")
    fouls = [s for s in all_settings(parse_cards(cards)) if s.is_foul]
    if fouls:
        for c in fouls[0].low:
            page.click(f"#card-{c.code}")
        expect(page.locator("#foul-warning")).to_be_visible(timeout=WAIT)
        page.click("#set-btn")
        expect(page.locator("#foul-confirm")).to_be_visible()
        check("foul")
        page.click("#cancel-foul")
        for c in fouls[0].low:
            page.click(f"#card-{c.code}")
        expect(page.locator("#low-slots .card")).to_have_count(0)
    for code in house_low(cards):
        page.click(f"#card-{code}")
    expect(page.locator("#set-btn")).to_be_enabled()
    page.click("#set-btn")
    expect(page.locator("#my-set-line")).to_contain_text("waiting for spot 5", timeout=WAIT)
    check("waiting")
    hand = other.call("GET", f"/api/tables/{table}/hand")
    other.call("POST", f"/api/tables/{table}/set", {"low": house_low(hand["cards"])})
    expect(page.locator("#status")).to_have_attribute("data-phase", "settled", timeout=WAIT)
    expect(page.locator("#my-result")).to_be_visible(timeout=WAIT)
    expect(page.locator("#wager-amount")).to_be_visible(timeout=WAIT)
    if mode == "dragon":
        expect(page.locator("#my-dragon")).to_be_visible(timeout=WAIT)
    check("results")
    page.context.close()
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
