"""What a newcomer hit at the browser table (issue 22, items 1-9), one test each: the stale
wallet error and the hint before sitting; chips from zero, a clear-bet control, colours by value
and faces inside the chip; the starting position unlike your seat, the last round not shown as
the current one; leaving mid-round; one name per round; who is still setting; the practice
table's play money and its EV table on a phone; recall's step counter and a loss's amount; a foul
in the narrator's words."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from paigow.cards import parse_cards
from paigow.setting import all_settings
from tests.helpers.walks import (
    LAPTOP,
    PHONE,
    WAIT,
    at_table,
    foul_low,
    hand_over_api,
    house_low,
    my_cards,
    new_page,
    pick,
    player_page,
    set_house_way,
    set_over_api,
    settled,
    sit,
    wager,
    wager_over_api,
    wait_ended,
)

pytestmark = pytest.mark.slow

FOUL_LOSES = "foul: loses"  # paigow.narrator.FOUL_LOSES (test 9 checks they agree)


def a_fouling_round(site: Any, table: int, spot: int) -> str:
    """A player (over the API) who plays rounds until a hand can foul, and fouls it: a loss.
    The fouled round's id (the rounds before it, of hands that could not foul, were won or
    lost as the house way set them)."""
    _, _, api = site.player()
    for _ in range(10):
        wager_over_api(api, table, spot)
        cards = hand_over_api(api, table)
        low = foul_low(cards)
        done = api.call(
            "POST",
            f"/api/tables/{table}/set",
            {"low": low or house_low(cards), "confirm_foul": True},
        )
        wait_ended(api, table)
        if low:
            return str(done["round_id"])
    pytest.skip("no hand could foul in ten rounds")


# ------------------------------------------------------------------------------- 1


def test_1_the_wallet_hint_before_sitting_and_the_error_cleared_by_a_credit(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Empty wallet", min_wager=500)
    page, name, _ = at_table(site, browser, LAPTOP, table, credit=0)
    hint = page.locator("#wallet-hint")
    expect(hint).to_contain_text("Your wallet has $0.00", timeout=WAIT)
    expect(hint).to_contain_text("minimum wager is $5.00")
    expect(hint).to_contain_text("Ask the operator to credit your wallet")
    page.click("#sit-3")
    msg = page.locator("#status-msg")
    expect(msg).to_contain_text("ask the operator to credit it before you sit", timeout=WAIT)
    site.credit(name, 10_000)  # the operator, elsewhere: the page learns it over the feed
    expect(msg).to_have_text("", timeout=WAIT)
    expect(hint).to_have_count(0)
    sit(page, 3)
    shot(page)
    page.context.close()


# ------------------------------------------------------------------------------- 2

CHIP_JS = """() => [...document.querySelectorAll('#wager-form .chip-btn')].map((b) => {
  const r = b.getBoundingClientRect(); const f = b.querySelector('.chip-face').getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const far = Math.max(...[[f.left, f.top], [f.right, f.top], [f.left, f.bottom], [f.right, f.bottom]]
    .map(([x, y]) => Math.hypot(x - cx, y - cy)));
  return { id: b.id, colour: getComputedStyle(b).getPropertyValue('--c').trim(), inner: far / (r.width / 2) };
})"""


def test_2_chips_count_from_zero_clear_the_bet_and_show_their_value(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Chips", min_wager=500, max_wager=100_000)
    page, _, _ = at_table(site, browser, PHONE, table)
    page.click("#sit-1")
    amount = page.locator("#wager-amount")
    expect(amount).to_have_value("5.00", timeout=WAIT)  # the minimum, suggested
    page.click("#add-2500")
    expect(amount).to_have_value("25.00")  # not $30.00: the first chip replaces the suggestion
    page.click("#add-10000")
    expect(amount).to_have_value("125.00")
    page.click("#wager-clear")
    expect(amount).to_have_value("")
    expect(page.locator("#bet-main")).to_contain_text("Bet")
    page.click("#add-50000")
    expect(amount).to_have_value("500.00")
    expect(page.locator("#bet-main .chip.v50000")).to_have_count(1)
    chips = page.evaluate(CHIP_JS)
    assert [c["id"] for c in chips] == [
        "add-500",
        "add-2500",
        "add-10000",
        "add-50000",
        "add-100000",
    ]
    assert len({c["colour"] for c in chips}) == len(chips), chips  # a colour for each value
    for c in chips:  # the face inside the chip's inner circle, clear of the dashed edge
        assert c["inner"] <= 0.8, c
    shot(page, "-rack")
    page.click("#wager-btn")
    expect(page.locator("#chip-1.v50000")).to_have_count(1, timeout=WAIT)  # purple on the felt
    page.context.close()


# ------------------------------------------------------------------------------- 3


def test_3_the_starting_position_is_unlike_your_seat_and_the_last_round_reads_as_past(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Highlights")
    page, _, _ = at_table(site, browser, PHONE, table)
    sit(page, 2)
    wager(page)
    my_cards(page)
    start = page.locator("#felt .start")
    expect(start).to_have_count(1, timeout=WAIT)
    styles = page.evaluate(
        """() => {
        const mine = document.querySelector('.spot.mine'), start = document.querySelector('#felt .start');
        const probe = document.createElement('div'); probe.className = 'spot start';
        document.getElementById('spots').append(probe);
        const s = getComputedStyle(probe).boxShadow; probe.remove();
        return { mine: getComputedStyle(mine).borderTopColor, start: s,
                 badge: start.classList.contains('dealer') || !!start.querySelector('.start-badge') };
    }"""
    )
    colour = re.search(r"rgba?\([^)]*\)", styles["start"])
    assert colour and colour.group(0) != styles["mine"], styles  # not the same gold frame
    assert styles["badge"], styles
    set_house_way(page, my_cards(page))
    settled(page)
    # a newcomer opening the table now sees the last round as the last round
    newcomer = new_page(browser, LAPTOP)
    newcomer.goto(site.url + f"/#/table/{table}")
    expect(newcomer.locator("#view[data-ready='1']")).to_have_count(1, timeout=WAIT)
    expect(newcomer.locator("#phase")).to_contain_text("Round 1 settled")
    expect(newcomer.locator("#felt .start")).to_have_count(0)
    expect(newcomer.locator("#felt.past")).to_have_count(1)
    expect(newcomer.locator("#spot-2 .result")).to_contain_text("last round")
    expect(newcomer.locator("#dice-shown")).to_have_count(0)
    shot(newcomer, "-newcomer")
    newcomer.context.close()
    page.context.close()


# ------------------------------------------------------------------------------- 4


def test_4_leaving_mid_round_is_asked_and_the_spot_shows_the_hand_in_play(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Leaving", setting_time_ms=120_000)
    _, _, other = site.player()
    page, name, _ = at_table(site, browser, PHONE, table)
    sit(page, 3)
    wager_over_api(other, table, 5)
    wager(page)
    my_cards(page)
    page.click("#leave-btn")
    ask = page.locator("#leave-ask")
    expect(ask).to_be_visible()  # asked, not done at once
    expect(ask).to_contain_text("wager stays in play")
    expect(ask).to_contain_text("house way sets your hand")
    page.click("#leave-cancel")
    expect(ask).to_have_count(0)
    expect(page.locator("#spot-3")).to_contain_text(f"{name} (you)")
    page.click("#leave-btn")
    page.click("#leave-confirm")
    spot = page.locator("#spot-3")
    expect(spot).to_contain_text("left; in play", timeout=WAIT)
    expect(spot).not_to_contain_text("empty")
    expect(page.locator("#sit-3")).to_have_count(0)  # no "Sit" over the live cards
    expect(spot).to_contain_text("house way (left)", timeout=WAIT)  # set at once
    expect(page.locator("#left-note")).to_contain_text("your wager plays out")
    shot(page, "-left")
    # the table does not wait the setting time for the player who left
    started = time.time()
    set_over_api(other, table)
    settled(page)
    assert time.time() - started < 20
    expect(page.locator("#my-result")).to_be_visible(timeout=WAIT)  # your result, still yours
    page.context.close()


# ------------------------------------------------------------------------------- 5


def test_5_a_round_has_one_name_everywhere(site: Any, browser: Browser, shot: Any) -> None:
    table = site.table(name="Names")
    page, _, api = at_table(site, browser, LAPTOP, table)
    wager_over_api(api, table, 4)
    expect(page.locator("#phase")).to_contain_text("Round 1:", timeout=WAIT)
    expect(page.locator("#log li").first).to_have_text(
        re.compile(r"^Round 1 opens: "), timeout=WAIT
    )
    set_over_api(api, table)
    wait_ended(api, table)
    expect(page.locator("#results-title")).to_have_text("Results, round 1", timeout=WAIT)
    hexes = re.compile(r"round [0-9a-f]{8,}", re.I)
    assert not hexes.search(page.locator("#table-app").inner_text())
    page.goto(site.url + f"/#/recall/{table}")
    page.click("#round-1")
    expect(page.locator("#replay-title")).to_have_text("Round 1")
    page.click("#step-last")
    page.click("#step-first")
    page.click("#step-next")
    expect(page.locator("#step-text")).to_contain_text("Step 1 of")
    expect(page.locator("#step-text")).to_contain_text("Round 1 opens")
    assert not hexes.search(page.locator("#view").inner_text())
    shot(page)
    page.context.close()


# ------------------------------------------------------------------------------- 6


def test_6_waiting_names_who_is_still_setting(site: Any, browser: Browser, shot: Any) -> None:
    table = site.table(name="Who sets", setting_time_ms=120_000)
    other_name, _, other = site.player()
    page, _, _ = at_table(site, browser, LAPTOP, table)
    sit(page, 1)
    wager_over_api(other, table, 6)
    wager(page)
    set_house_way(page, my_cards(page))
    line = page.locator("#my-set-line")
    expect(line).to_contain_text(f"waiting for spot 6 ({other_name}) to set", timeout=WAIT)
    expect(line).not_to_contain_text("dealer")
    shot(page)
    set_over_api(other, table)
    settled(page)
    expect(line).not_to_contain_text("waiting")
    page.context.close()


# ------------------------------------------------------------------------------- 7


def fake_ev(cards: list[str]) -> dict[str, Any]:
    """An EV answer in the server's shape (the compiled table may be missing on this machine)."""
    settings = all_settings(parse_cards(cards))
    return {
        "available": True,
        "analysis": {
            "dealer_hands": 1_533_939,
            "optimal": 0,
            "house_way": 1,
            "settings": [
                {
                    "high": [c.code for c in s.high],
                    "low": [c.code for c in s.low],
                    "ev": -0.0123 * (i + 1),
                    "win": 712_345,
                    "push": 101_234,
                    "loss": 720_360,
                    "foul": s.is_foul,
                }
                for i, s in enumerate(settings)
            ],
        },
    }


def test_7_the_practice_table_says_it_plays_for_play_money_and_its_ev_fits_a_phone(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Practice money", mode="practice")
    page, _, _ = at_table(site, browser, PHONE, table)
    expect(page.locator("#posted-money")).to_contain_text("play money, never your wallet")
    page.click("#sit-2")
    note = page.locator("#practice-money")
    expect(note).to_be_visible(timeout=WAIT)
    expect(note).to_contain_text("Play money $1,000.00 (not your wallet)")
    # the table's layout is what is checked: any seven cards will do
    answer = fake_ev(["Jk", "As", "Kd", "Qh", "Tc", "9s", "2d"])
    page.route("**/api/web/tables/*/ev", lambda route: route.fulfill(json=answer))
    page.click("#wager-btn")
    my_cards(page)
    page.click("#ev-btn")
    ev = page.locator("#ev-table")
    expect(ev).to_be_visible(timeout=WAIT)
    fits = page.evaluate(
        """() => { const t = document.getElementById('ev-table'); const side = document.getElementById('side');
        const r = t.getBoundingClientRect(), s = side.getBoundingClientRect();
        const cells = [...t.querySelectorAll('caption, th, td')].filter((c) => c.scrollWidth > c.clientWidth + 1).length;
        return { right: r.right, sideRight: s.right, width: innerWidth, sideScroll: side.scrollWidth - side.clientWidth, clipped: cells }; }"""
    )
    assert fits["right"] <= fits["width"] and fits["right"] <= fits["sideRight"], fits
    assert fits["sideScroll"] <= 0 and fits["clipped"] == 0, fits
    expect(page.locator("#ev-table th").nth(3)).to_be_in_viewport()
    shot(page, "-ev")
    page.context.close()


# ------------------------------------------------------------------------------- 8


def test_8_recall_shows_the_step_its_counter_names_and_a_loss_with_its_amount(
    site: Any, browser: Browser, shot: Any
) -> None:
    table = site.table(name="Recall phone")
    fouled = a_fouling_round(site, table, 2)
    page, _, _ = player_page(site, browser, PHONE)
    page.goto(site.url + f"/#/recall/{table}")
    page.locator(f'#rounds button[data-round="{fouled}"]').click()
    page.click("#step-last")
    text = page.locator("#step-text").inner_text()
    m = re.match(r"Step (\d+) of (\d+)", text)
    assert m and m.group(1) == m.group(2), text
    seen = page.evaluate(
        """() => { const list = document.getElementById('steps'); const cur = list.querySelector('.current');
        const l = list.getBoundingClientRect(), c = cur.getBoundingClientRect();
        return { inside: c.top >= l.top - 1 && c.bottom <= l.bottom + 1, n: [...list.children].indexOf(cur) + 1 }; }"""
    )
    assert seen["inside"], seen  # the current step is in the list's view
    assert seen["n"] == int(m.group(1)), seen
    result = page.locator(".recall-result")
    expect(result).to_contain_text(re.compile(r"LOSS: lost \$10\.00"))
    expect(result).to_contain_text(FOUL_LOSES)
    shot(page)
    page.context.close()


# ------------------------------------------------------------------------------- 9


def test_9_a_foul_reads_in_the_narrators_words(site: Any, browser: Browser, shot: Any) -> None:
    from paigow import narrator

    assert getattr(narrator, "FOUL_LOSES", None) == FOUL_LOSES
    table = site.table(name="Foul words")
    page, _, _ = at_table(site, browser, LAPTOP, table)
    page.click("#sit-3")
    for _ in range(10):
        wager(page, "5")
        cards = my_cards(page)
        low = foul_low(cards)
        pick(page, low or house_low(cards))
        page.click("#set-btn")
        if low:
            page.click("#confirm-foul")
        settled(page)
        if low:
            break
    else:
        pytest.skip("no hand could foul in ten rounds")
    expect(page.locator("#my-result")).to_contain_text(f"lost $5.00 ({FOUL_LOSES})")
    expect(page.locator("#result-3")).to_contain_text(f"lost $5.00 ({FOUL_LOSES})")
    expect(page.locator("#log")).to_contain_text(f"lost $5.00 ({FOUL_LOSES})")
    shot(page)
    page.context.close()
