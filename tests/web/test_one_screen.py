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
from playwright.sync_api import Browser, expect

from tests.helpers.walks import (
    WAIT,
    axe_problems,
    felt_problems,
    foul_asked,
    my_cards,
    note,
    off_screen,
    open_table,
    player_page,
    set_house_way,
    set_over_api,
    settled,
    sit,
    wager_over_api,
)

pytestmark = pytest.mark.slow

SIZES = [
    pytest.param({"width": 1366, "height": 768}, "casino", id="1366x768"),
    pytest.param({"width": 375, "height": 812}, "casino", id="375x812"),
    pytest.param({"width": 812, "height": 375}, "casino", id="812x375"),
    # a practice table adds its help (the hint and EV buttons, a line on its play money)
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


# the phases axe-core checks too (each page's words, names and contrast): the table before a
# wager, the hand to set (with the dragon's offer), the showdown
AXE = ("seated", "setting", "dragon", "results")

RECALL_JS = """() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px`);
  for (const el of document.querySelectorAll('#replay-state *')) {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > window.innerWidth + 0.5) out.push(`${el.id || el.className || el.tagName} past the window's right edge`);
  }
  return out.slice(0, 5);
}"""


def recall_problems(page: Any) -> list[str]:
    """Recall's page no wider than the window, nothing of the replayed round past its edge."""
    return list(page.evaluate(RECALL_JS))


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
    _, _, other = site.player()
    page, _, _ = player_page(site, browser, size, reduced_motion="reduce")
    tag = f"-{size['width']}x{size['height']}" + ("" if mode == "casino" else f"-{mode}")
    found: dict[str, list[str]] = {}

    def check(phase: str) -> None:
        page.wait_for_timeout(150)
        extra = {"practice": PRACTICE, "side": SIDE, "dragon": DRAGON}.get(mode, {}).get(phase, [])
        problems = off_screen(page, ["#dealer", *SPOTS, *PHASES[phase], *extra])
        problems += felt_problems(page, "#my-cards .card, #my-setting .card", whole_page=False)
        if phase in AXE:
            problems += axe_problems(page)
        note(found, phase, problems)
        shot(page, f"{tag}-{phase}")

    open_table(page, site.url, table)
    sit(page, 2)
    check("seated")
    wager_over_api(other, table, 5, 2_500, **({"side": {"fortune": 500}} if mode == "side" else {}))
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
    foul_asked(page, cards, lambda: check("foul"))
    set_house_way(page, cards)
    expect(page.locator("#my-set-line")).to_contain_text("waiting for spot 5", timeout=WAIT)
    check("waiting")
    set_over_api(other, table)
    settled(page)
    expect(page.locator("#my-result")).to_be_visible(timeout=WAIT)
    expect(page.locator("#wager-amount")).to_be_visible(timeout=WAIT)
    if mode == "dragon":
        expect(page.locator("#my-dragon")).to_be_visible(timeout=WAIT)
    check("results")
    # the round in recall, stepped to its end: a page of its own (it may scroll down, never
    # sideways), every word whole, nothing axe-core finds serious
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    page.click("#step-last")
    expect(page.locator("#step-text")).to_contain_text("Round settled", timeout=WAIT)
    if mode == "side":  # your side wagers, each with its bonus hand and pay
        expect(page.locator("#recall-side-2 li")).to_have_count(2)
        expect(page.locator("#recall-side-2")).to_contain_text("Fortune: ")
    page.wait_for_timeout(150)
    note(found, "recall", recall_problems(page) + axe_problems(page))
    shot(page, f"{tag}-recall")
    page.context.close()
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
