"""Side wagers in the browser (issue 20, part 5): the bonus circles beside the main wager (chips
build each wager; limits shown; a wager outside them refused in dollars), the posted pay tables,
the ledger and the wallet after a round with side wagers, each spot's bonus hand at the showdown
in the narrator's words, the live meter on the felt moved by the server's ``meter`` message, the
Envy and jackpot news announced to the table, a practice table's exact returns; axe-core clean."""

from __future__ import annotations

import json
import re
import secrets
from fractions import Fraction
from typing import Any

import pytest
from playwright.sync_api import Browser, WebSocketRoute, expect

from paigow.bonus.hand import BonusCategory
from paigow.bonus.paytable import PayTable
from paigow.events import SideWagerSettled
from paigow.narrator import side_line
from tests.helpers.walks import (
    HW,
    LAPTOP,
    PHONE,
    WAIT,
    axe_problems,
    log_in,
    my_cards,
    new_page,
    open_table,
    set_house_way,
    set_over_api,
)

pytestmark = pytest.mark.slow

BANK = "web-bank"
OFFERS = [
    {"name": "fortune", "paytable": "fortune-a", "min_wager": 1_000, "max_wager": 2_500},
    {
        "name": "progressive",
        "paytable": "fortune-progressive",
        "min_wager": 100,
        "max_wager": 100,
        "bank": BANK,
    },
]


def money(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def label(category: str | None) -> str:
    return BonusCategory(category).label if category else "no bonus hand"


def side_summary(settled: list[dict[str, Any]]) -> str:
    """Your side wagers' results as the page sums them up (side.js ``sideSummary``)."""
    won = [e for e in settled if e["returned"] > 0]
    lost = [e for e in settled if e["returned"] <= 0]
    parts = [f"{e['name'].capitalize()}: {label(e['hand'])}, won {money(e['win'])}" for e in won]
    if lost:
        hand = next((e["hand"] for e in lost if e["hand"]), None)
        named = f" ({label(hand)})" if hand and not won else ""
        lost_sum = money(sum(e["wager"] for e in lost))
        parts.append(f"{'other ' if won else ''}side lost {lost_sum}{named}")
    return "".join(f"; {p}" for p in parts)


def side_table(site: Any, **cfg: Any) -> int:
    return int(site.table(name="Fortune", side_wagers=OFFERS, **cfg))


def test_main_and_bonus_wager_play_a_round_the_showdown_names_each_bonus_hand(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = side_table(site, betting_time_ms=60_000, setting_time_ms=120_000)
    name, password, me = site.player(credit=100_000)
    _, _, other = site.player(credit=100_000)
    page = new_page(browser, LAPTOP, reduced_motion="reduce")
    log_in(page, site.url, name, password)
    open_table(page, site.url, table, live=True)
    # posted: the offers and their limits, the pay tables with Envy, the meter on the felt
    expect(page.locator("#posted-side")).to_contain_text(
        "Side wagers: Fortune $10.00–$25.00, Progressive $1.00"
    )
    expect(page.locator("#pays-fortune")).to_contain_text("8000 to 1")
    expect(page.locator("#pays-fortune")).to_contain_text("$5,000.00")  # its Envy
    expect(page.locator("#pays-progressive")).to_contain_text("100% of meter")
    expect(page.locator("#meter-progressive")).to_contain_text("$10,000.00")
    expect(page.locator("#pays-meter-progressive")).to_have_text("$10,000.00")
    expect(page.locator("#return-fortune")).to_have_count(0)  # a casino table: no figures
    other.call("POST", f"/api/tables/{table}/sit", {"spot": 5})
    page.click("#sit-2")
    expect(page.locator("#bet-side-fortune")).to_be_visible(timeout=WAIT)
    expect(page.locator("#bet-side-fortune")).to_contain_text("$10–$25")
    # chips build each wager: the main one, then the Fortune circle's
    page.click("#add-2500")
    page.click("#bet-side-fortune")
    expect(page.locator("#bet-side-fortune")).to_have_attribute("aria-pressed", "true")
    page.click("#add-500")
    expect(page.locator("#bet-side-fortune")).to_have_attribute("data-cents", "500")
    expect(page.locator("#wager-amount")).to_have_value("25.00")  # the main wager unchanged
    page.click("#wager-btn")  # $5 is under the Fortune's $10 minimum: refused in dollars
    expect(page.locator("#status-msg")).to_have_text(
        "The Fortune side wager at this table is $10.00–$25.00: $5.00 is outside it."
    )
    assert me.call("GET", "/api/me")["balance"] == 100_000
    page.click("#add-500")
    page.click("#add-2500")  # capped at the Fortune's $25 maximum
    expect(page.locator("#bet-side-fortune")).to_have_attribute("data-cents", "2500")
    page.click("#bet-side-progressive")  # a fixed wager: the circle puts on its $1
    expect(page.locator("#bet-side-progressive")).to_have_attribute("data-cents", "100")
    assert axe_problems(page) == []
    shot(page, "-betting")
    page.click("#wager-btn")
    expect(page.locator("#my-side")).to_have_text(
        " + $26.00 side: Fortune $25.00, Progressive $1.00", timeout=WAIT
    )
    assert me.call("GET", "/api/me")["balance"] == 100_000 - 2_500 - 2_500 - 100
    expect(page.locator("#side-chip-2")).to_have_attribute(
        "aria-label", "side wagers: Fortune $25.00, Progressive $1.00"
    )
    other.call(
        "POST",
        f"/api/tables/{table}/wager",
        {"amount": 1_000, "side": {"fortune": 1_000}, "idempotency_key": secrets.token_hex(8)},
    )
    set_house_way(page, my_cards(page))
    expect(page.locator("#my-set-line")).to_be_visible(timeout=WAIT)
    set_over_api(other, table)
    expect(page.locator("#status")).to_have_attribute("data-phase", "settled", timeout=WAIT)
    expect(page.locator("#side-res-2")).to_be_visible(timeout=WAIT)
    expect(page.locator("#side-res-5")).to_be_visible(timeout=WAIT)
    # the round's log, as the server narrates it: each side wager's words on the page
    rnd = me.call("GET", f"/api/tables/{table}/rounds")[0]
    settled = [e for e in rnd["events"] if e["type"] == "side-wager-settled"]
    assert {(e["spot"], e["name"]) for e in settled} == {
        (2, "fortune"),
        (2, "progressive"),
        (5, "fortune"),
    }
    pays = {o["name"]: PayTable.preset(o["paytable"]).to_dict()["pays"] for o in OFFERS}
    for e in settled:
        ev = SideWagerSettled(
            e["spot"],
            e["name"],
            e["wager"],
            e["hand"],
            e["win"],
            e["returned"],
            e.get("meter"),
            e.get("meter_after"),
        )
        words = side_line(ev, pays[e["name"]]).split(": ", 1)[1]
        line = page.locator(f"#result-{e['spot']} .side-line[data-name='{e['name']}']")
        expect(line).to_have_text(f" {e['name'].capitalize()}: {words}.")
        label = "no bonus hand" if not e["hand"] else e["hand"].replace("-", " ")
        if e["hand"] and e["returned"]:
            expect(page.locator(f"#side-res-{e['spot']}")).to_contain_text(label.split(" ")[0])
    mine = [e for e in settled if e["spot"] == 2]
    # your result: each side win named, the losses together; the server's words in its title
    expect(page.locator("#my-side-result")).to_have_text(side_summary(mine))
    title = str(page.locator("#my-side-result").get_attribute("title"))
    assert "Fortune: " in title and "Progressive: " in title
    # the wallet and the ledger: the main wager, the side wagers and what they returned
    result = next(e for e in rnd["events"] if e["type"] == "spot-settled" and e["spot"] == 2)
    envy = sum(e["amount"] for e in rnd["events"] if e["type"] == "envy-paid" and e["spot"] == 2)
    net = (
        result["returned"] - result["wager"] + sum(e["returned"] - e["wager"] for e in mine) + envy
    )
    balance = me.call("GET", "/api/me")["balance"]
    assert balance == 100_000 + net
    expect(page.locator("#wallet-balance")).to_have_attribute(
        "data-cents", str(balance), timeout=WAIT
    )
    expect(page.locator("#ledger")).to_have_attribute("data-net", str(net), timeout=WAIT)
    sign = "+" if net > 0 else "-" if net < 0 else ""
    expect(page.locator("#my-result .net")).to_have_text(
        f"net {sign}${abs(net) // 100:,}.{abs(net) % 100:02d}"
    )
    assert axe_problems(page) == []
    shot(page, "-showdown")
    page.context.close()


@pytest.mark.parametrize(
    "viewport", [pytest.param(LAPTOP, id="1366"), pytest.param(PHONE, id="375")]
)
def test_meter_message_moves_the_meter_on_the_felt(
    site: Any, browser: Browser, viewport: dict[str, int], shot: Any
) -> None:
    table = side_table(site)
    page = new_page(browser, viewport, reduced_motion="reduce")
    open_table(page, site.url, table, live=True)  # watching: the meter is posted to everyone
    meter = page.locator("#meter-progressive")
    expect(meter).to_be_visible()
    before = int(str(meter.get_attribute("data-cents")))
    seeded = site.op.call("POST", f"/api/admin/progressives/{BANK}/seed", {"amount": 12_345})
    assert seeded["meter"] == before + 12_345
    want = seeded["meter"]
    expect(meter).to_have_attribute("data-cents", str(want), timeout=WAIT)
    expect(meter).to_contain_text(f"${want // 100:,}.{want % 100:02d}")
    expect(page.locator("#pays-meter-progressive")).to_have_attribute("data-cents", str(want))
    shot(page, f"-{viewport['width']}")
    page.context.close()


def test_envy_and_jackpot_wins_are_announced_to_the_table(site: Any, browser: Browser) -> None:
    table = side_table(site)
    page = new_page(browser, PHONE, reduced_motion="reduce")
    routes: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        routes.append(ws)

    page.route_web_socket(f"**/ws/tables/{table}*", route)
    open_table(page, site.url, table, live=True)
    assert routes
    rid = "r" + secrets.token_hex(8)
    base = {"round_id": rid, "round_number": 7}
    news = [
        {
            "type": "side-wager-settled",
            "spot": 3,
            "name": "progressive",
            "wager": 100,
            "hand": "seven-card-straight-flush",
            "win": 1_000_000,
            "returned": 1_000_100,
            "meter": 1_000_000,
            "meter_after": 1_000_000,
            "text": "spot 3 progressive: seven-card straight flush pays 100% of meter, won "
            "$10,000.00, returned $10,001.00; meter $10,000.00",
        },
        {
            "type": "envy-paid",
            "spot": 1,
            "name": "fortune",
            "amount": 500_000,
            "hands": [[3, "seven-card-straight-flush"]],
            "text": "spot 1 fortune Envy: $5,000.00 for spot 3's seven-card straight flush",
        },
    ]
    for e in news:
        routes[-1].send(json.dumps({**base, **e}))
    box = page.locator("#side-news")
    expect(box).to_have_attribute("role", "status")
    expect(box.locator(".jackpot")).to_have_text(
        "JACKPOT! Spot 3 hits seven-card straight flush on the Progressive: $10,000.00."
    )
    expect(box.locator(".envy")).to_have_text(
        "Envy! Spot 1 is paid $5,000.00 for spot 3's seven-card straight flush."
    )
    expect(box).to_be_in_viewport()
    expect(page.locator("#announcer")).to_contain_text("Envy! Spot 1", timeout=WAIT)
    assert axe_problems(page) == []
    page.context.close()


def test_a_practice_table_posts_each_side_wagers_exact_return(
    site: Any, browser: Browser, shot: Any
) -> None:
    from paigow.analysis.bonus_return import analyze
    from paigow.service.floor.side_holds import cached_counts

    # a practice table plays for play money, so it offers no progressive (a bank's meter holds
    # the house's money: refused with practice-progressive); its other side wagers' returns
    offers = [o for o in OFFERS if not o.get("bank")]
    table = int(site.table(name="Fortune", side_wagers=offers, mode="practice"))
    page = new_page(browser, PHONE, reduced_motion="reduce")
    open_table(page, site.url, table, live=True)
    page.click("#info-btn")
    edge = page.locator("#return-fortune")
    expect(edge).to_have_attribute(
        "data-edge", re.compile(".+"), timeout=60_000
    )  # counted once if needed
    meters = site.op.call("GET", f"/api/tables/{table}")["meters"]
    counts = cached_counts(HW, "second")
    assert counts is not None
    assert meters == {}
    for o in offers:
        meter = None
        a = analyze(
            PayTable.preset(str(o["paytable"])), counts, wager=int(o["min_wager"]), meter=meter
        )
        shown = page.locator(f"#return-{o['name']}")
        exact = Fraction(-a.paid_return)
        expect(shown).to_contain_text(f"House edge {float(exact) * 100:.2f}%")
        expect(shown).to_contain_text(f"exactly {exact}")
    expect(page.locator("#return-fortune")).to_contain_text("Envy adds")
    expect(page.locator("#return-progressive")).to_have_count(0)
    page.locator("#pay-tables").scroll_into_view_if_needed()
    assert axe_problems(page) == []
    shot(page)
    page.context.close()


def test_a_side_wager_added_after_the_main_wager_while_betting_is_open(
    site: Any, browser: Browser
) -> None:
    table = side_table(site, betting_time_ms=60_000)
    name, password, me = site.player(credit=50_000)
    _, _, other = site.player()
    page = new_page(browser, PHONE, reduced_motion="reduce")
    log_in(page, site.url, name, password)
    open_table(page, site.url, table, live=True)
    other.call(
        "POST", f"/api/tables/{table}/sit", {"spot": 4}
    )  # seated, no wager: betting stays open
    page.click("#sit-1")
    page.click("#add-500")
    page.click("#wager-btn")  # the main wager alone
    expect(page.locator("#late-side-fortune")).to_have_text("Fortune $10.00", timeout=WAIT)
    assert me.call("GET", "/api/me")["balance"] == 50_000 - 500
    page.click("#late-side-fortune")
    expect(page.locator("#my-side")).to_contain_text("+ $10.00 side", timeout=WAIT)
    expect(page.locator("#late-side-fortune")).to_have_count(0)
    expect(page.locator("#late-side-progressive")).to_be_visible()
    assert me.call("GET", "/api/me")["balance"] == 50_000 - 500 - 1_000
    expect(page.locator("#side-chip-1")).to_have_attribute(
        "aria-label", "side wagers: Fortune $10.00"
    )
    assert axe_problems(page) == []
    page.context.close()
