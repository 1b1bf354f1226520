"""The operator's pages at 1366x768 and 375x812 (issue 22, items 10-12), in Debian's Chromium:
the floor's columns all on screen at 1366 and one card a table on the phone; the operator page's
live tables and their Close buttons on the phone; a saved exact edge shown at once; charts with one
to three hands drawn (dots and bars, "1 hand"); the audit log in dollars with the raw record on
demand; the table form's commission as a percentage (0 to 5%) and its defaults the demo tables';
the limits page's gaming day in words. axe-core finds no violation on any of them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from math import comb
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from paigow.analysis.edge import saved_name
from paigow.analysis.kernels import edge_digest
from paigow.house_way import HouseWay
from tests.helpers.walks import (
    VIEWPORTS,
    as_operator,
    check_a11y,
    log_in,
    resize,
    wager_over_api,
)
from tests.helpers.web import Site

pytestmark = pytest.mark.slow

WAIT = 30_000
LONG_NAME = "Baccarat Pit Seven Annex"


def inside(page: Page, selector: str, width: int) -> None:
    """Every element ``selector`` is visible and wholly inside the viewport's width."""
    boxes = page.locator(selector)
    expect(boxes.first).to_be_visible()
    # read every box at once: a page that draws its view again (the floor's, each few seconds)
    # replaces the elements between one read and the next
    seen = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map((e) => {
            const r = e.getBoundingClientRect();
            return { x: r.x, width: r.width, shown: r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' };
        })""",
        selector,
    )
    assert seen, selector
    for b in seen:
        assert b["shown"] and b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, (selector, b)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache folder holding the exact counts ``paigow edge`` saves for the standard house way
    (so the server needs no worker: item 11)."""
    folder = tmp_path_factory.mktemp("cache")
    deals = comb(53, 7) * comb(46, 7)
    win, push = 2358120164000604, 3427552624666108
    saved = {
        "player": "house-way",
        "deals": deals,
        "win": win,
        "push": push,
        "loss": deals - win - push,
        "house_way": HouseWay.preset("standard").to_dict(),
        "wheel": "second",
        "deck": 53,
        "code": edge_digest("house-way"),
    }
    (folder / saved_name(HouseWay.preset("standard"), "second", "house-way")).write_text(
        json.dumps(saved)
    )
    before = os.environ.get("PAIGOW_CACHE_DIR")
    os.environ["PAIGOW_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("PAIGOW_CACHE_DIR", None)
    else:
        os.environ["PAIGOW_CACHE_DIR"] = before


@pytest.fixture(scope="module")
def floor(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A server whose floor shows three tables with large figures (one flagged, one with one
    hand, one with three), written straight into the floor's running totals."""
    from paigow.service.store.db import Database
    from paigow.service.store.floor_models import FloorPoint, FloorTable

    folder = tmp_path_factory.mktemp("opweb")
    url = f"sqlite:///{folder / 'tables.sqlite3'}"
    site = Site(url)
    ids = [site.table(name=f"{LONG_NAME} {i}") for i in range(3)]
    for spot in range(1, 5):  # players with long names at the flagged table
        _, _, api = site.player()
        api.call("POST", f"/api/tables/{ids[0]}/sit", {"spot": spot})
    db = Database(url)
    try:
        with db.write() as s:
            big = dict(
                rounds=123_456,
                hands=654_321,
                handle=98_765_432_100,
                handle_sq=10**18,
                round_sq=10**18,
                player_wins=45_678_901_234,
                player_losses=51_234_567_890,
                commission=2_283_945_061,
                flagged=True,
                flag={
                    "band_999": ["0.01000000", "0.04000000"],
                    "theoretical_hold": {"exact": "1/37", "decimal": "0.02721934"},
                },
            )
            s.merge(FloorTable(table_id=ids[0], **big))
            for tid, results in ((ids[1], [-1000]), (ids[2], [1000, -500, 1500])):
                total = handle = sq = 0
                for seq, r in enumerate(results, start=1):
                    total, handle, sq = total + r, handle + 1000, sq + 10**6
                    s.merge(
                        FloorPoint(
                            table_id=tid,
                            seq=seq,
                            hands=seq,
                            handle=handle,
                            handle_sq=sq,
                            round_sq=sq,
                            result=total,
                        )
                    )
                s.merge(
                    FloorTable(
                        table_id=tid,
                        rounds=len(results),
                        hands=len(results),
                        handle=handle,
                        handle_sq=sq,
                        round_sq=sq,
                        player_wins=max(0, -total),
                        player_losses=max(0, total),
                    )
                )
    finally:
        db.dispose()
    site.ids = ids  # type: ignore[attr-defined]
    try:
        yield site
    finally:
        site.stop()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_floors_columns_are_on_screen(floor: Any, page: Page, shot: Any, viewport: str) -> None:
    """Item 10: at 1366 every column, the band and the status included, is inside the screen
    and the table does not scroll; on the phone each table is a card, nothing off screen. Item
    11: the saved exact edge is shown (never "computing"); charts of one and three hands are
    drawn (dots, a band bar) and say "1 hand"."""
    width = resize(page, viewport)
    as_operator(page, floor.url, "floor", timeout=WAIT)
    first = page.locator(f"#floor-tables tr[data-table='{floor.ids[0]}']")
    expect(first).to_have_attribute("data-flagged", "1", timeout=WAIT)
    expect(first.locator("[data-field=theoretical] [data-status=ready]")).to_have_count(1)
    expect(page.locator("#floor-tables")).not_to_contain_text("computing")
    # issue 50, item 10: each table's house way
    expect(first.locator("[data-field=house-way]")).to_contain_text("house way standard")
    shot(page, f"-{viewport}")
    for field in ("band", "status", "house_result", "theoretical"):
        inside(page, f"#floor-tables [data-field={field}]", width)
    scroll = page.locator("#floor-scroll")
    assert scroll.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the table scrolls"
    expect(page.locator("#floor-scroll-hint")).to_be_hidden()
    # charts with one and three hands: dots and bands, not empty boxes
    one, three = (page.locator(f"#chart-{t} svg.chart") for t in floor.ids[1:])
    expect(one).to_have_attribute("data-points", "1", timeout=WAIT)
    expect(three).to_have_attribute("data-points", "3", timeout=WAIT)
    assert one.locator("circle.point").count() == 1 and three.locator("circle.point").count() == 3
    assert one.locator(".band").count() == 2  # the 95% and 99.9% bars
    b = one.locator("circle.point").bounding_box()
    assert b is not None and b["width"] > 4
    assert "1 hand" in one.inner_html() and "1 hands" not in one.inner_html()
    assert "3 hands" in three.inner_html()
    expect(page.locator("#report-day")).to_contain_text("from 06:00 to 06:00 the next day, UTC")
    check_a11y(page)
    shot(page, f"-{viewport}")


def test_a_table_too_wide_for_its_box_says_it_scrolls(floor: Any, page: Page) -> None:
    """Item 10: where the floor's table must scroll (a window between the phone's cards and
    the desktop's columns), a visible line says so."""
    page.set_viewport_size({"width": 800, "height": 700})
    as_operator(page, floor.url, "floor", timeout=WAIT)
    expect(page.locator(f"#floor-tables tr[data-table='{floor.ids[0]}']")).to_be_visible(
        timeout=WAIT
    )
    overflows = page.locator("#floor-scroll").evaluate("e => e.scrollWidth > e.clientWidth + 1")
    if overflows:
        expect(page.locator("#floor-scroll-hint")).to_be_visible()
    else:
        expect(page.locator("#floor-scroll-hint")).to_be_hidden()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_operator_page_shows_every_live_table_and_its_close_button(
    floor: Any, page: Page, shot: Any, viewport: str
) -> None:
    """Item 10: on the phone the live tables and their Close buttons are on screen."""
    width = resize(page, viewport)
    tid = floor.table(name=f"Closing on the {viewport}")
    as_operator(page, floor.url, timeout=WAIT)
    expect(page.locator(f"#close-{tid}")).to_be_visible(timeout=WAIT)
    inside(page, "#op-tables button[id^=close-]", width)
    inside(page, "#op-tables td[data-label=Commission]", width)
    # issue 50, item 10: each table's house way
    way = page.locator(f"#op-tables tr[data-table='{tid}'] [data-field=house-way]")
    expect(way).to_have_text("house way standard")
    # issue 50, versions: the house ways in use, each by the digest of its rules, and its tables
    digest = HouseWay.preset("standard").digest
    expect(way).to_have_attribute("title", f"digest {digest}")
    in_use = page.locator(f"#op-ways tr[data-digest='{digest}']")
    expect(in_use).to_contain_text(f"Closing on the {viewport} (#{tid})")
    expect(in_use).to_contain_text(digest)
    expect(page.locator("#who")).not_to_contain_text("null")  # an operator has no balance
    # issue 48: closing asks for confirmation; "Keep it open" keeps it; a closed table reopens
    row = page.locator(f"#op-tables tr[data-table='{tid}']")
    page.click(f"#close-{tid}")
    expect(page.locator(f"#close-q-{tid}")).to_contain_text(f"Close table {tid}?")
    check_a11y(page)
    shot(page, f"-{viewport}-confirm")
    page.click(f"#close-no-{tid}")
    expect(page.locator(f"#close-q-{tid}")).to_have_count(0)
    assert floor.op.call("GET", f"/api/tables/{tid}")["status"] == "open"
    page.click(f"#close-{tid}")
    page.click(f"#close-yes-{tid}")
    expect(row).to_contain_text("clos", timeout=WAIT)
    expect(page.locator(f"#reopen-{tid}")).to_be_visible(timeout=WAIT)
    page.click(f"#reopen-{tid}")
    expect(row.locator("td[data-label=Status]")).to_have_text("open", timeout=WAIT)
    assert floor.op.call("GET", f"/api/tables/{tid}")["status"] == "open"
    check_a11y(page)
    shot(page, f"-{viewport}")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_audit_log_reads_in_dollars_with_the_raw_record_on_demand(
    floor: Any, page: Page, shot: Any, viewport: str
) -> None:
    """Item 12: the audit log is a table in dollars; the raw record (cents) opens on demand."""
    width = resize(page, viewport)
    name, _, _ = floor.player(credit=12_345)
    as_operator(page, floor.url, timeout=WAIT)
    page.click("#load-audit")
    row = page.locator(f"#audit-table tr[data-action=credit]:has-text('wallet:{name}')")
    expect(row).to_have_count(1, timeout=WAIT)
    said = row.locator(".said")
    expect(said).to_contain_text("amount $123.45")
    assert "12345" not in said.inner_text()
    raw = row.locator("details.raw pre")
    expect(raw).to_be_hidden()
    row.locator("details.raw summary").click()
    expect(raw).to_be_visible()
    assert json.loads(raw.inner_text())["details"]["amount"] == 12_345
    created = page.locator("#audit-table tr[data-action=table-created]").first
    expect(created.locator(".said")).to_contain_text("commission 5%")
    expect(created.locator(".said")).to_contain_text("betting time 30 s")
    inside(page, "#audit-table tr[data-action=credit] .said", width)
    expect(page.locator("#audit-export")).to_be_visible()
    check_a11y(page)
    shot(page, f"-{viewport}")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_table_form_takes_commission_as_a_percentage_with_the_demo_defaults(
    floor: Any, page: Page, shot: Any, viewport: str
) -> None:
    """Item 12: commission typed as tables post it ("5%"), 0 to 5% or a clear error; the
    betting time the demo tables' (20 s)."""
    resize(page, viewport)
    as_operator(page, floor.url, timeout=WAIT)
    expect(page.locator("#t-commission")).to_have_value("5%", timeout=WAIT)
    expect(page.locator("#t-betting")).to_have_value("20")
    expect(page.locator("label:has(#t-commission)")).to_contain_text("0 to 5%")
    before = len(floor.op.call("GET", "/api/tables"))
    for bad in ("6%", "5.5", "-1%", "0.05.1", "five"):
        page.fill("#t-commission", bad)
        page.click("#create-table button[type=submit]")
        expect(page.locator("#create-msg")).to_contain_text("percentage from 0 to 5%")
        expect(page.locator("#t-commission")).to_have_attribute("aria-invalid", "true")
    assert len(floor.op.call("GET", "/api/tables")) == before
    page.fill("#t-name", f"Two and a half {viewport}")
    page.fill("#t-commission", "2.5%")
    page.click("#create-table button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text("2.5% posted", timeout=WAIT)
    made = [
        t for t in floor.op.call("GET", "/api/tables") if t["name"] == f"Two and a half {viewport}"
    ]
    assert [(t["commission"], t["betting_time_s"]) for t in made] == [("0.025", 20.0)]
    check_a11y(page)
    shot(page, f"-{viewport}")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_limits_page_says_the_gaming_day_in_words(
    floor: Any, page: Page, shot: Any, viewport: str
) -> None:
    """Item 12: "Today's gaming day is Tuesday 1 December 2026, from 06:00 that day to 06:00 on
    Wednesday 2 December (UTC)", never "(06:00 to 06:00 (UTC))"."""
    resize(page, viewport)
    name, password, _ = floor.player()
    log_in(page, floor.url, name, password, timeout=WAIT)
    page.goto(floor.url + "/#/limits")
    day = page.locator("#gaming-day")
    expect(day).to_contain_text("from 06:00 that day to 06:00 on", timeout=WAIT)
    expect(day).to_contain_text("Today's gaming day is")
    assert "(UTC))" not in day.inner_text()
    check_a11y(page)
    shot(page, f"-{viewport}")


def _copy_bonus_counts(cache: Path) -> bool:
    """The standard house way's bonus counts, copied into the test's cache from a cache that has
    them (the server then shows the side wagers' exact holds at once); False if none has."""
    import shutil

    from paigow.analysis.bonus_counts import counts_path
    from paigow.ranking import Wheel

    way = HouseWay.preset("standard")
    target = counts_path(way, Wheel.SECOND, cache)
    for folder in (
        Path.home() / ".cache" / "paigow",
        Path(__file__).parents[2] / ".cache" / "tables",
    ):
        source = counts_path(way, Wheel.SECOND, folder)
        if source.exists():
            shutil.copyfile(source, target)
            return True
    return False


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_operator_opens_a_table_with_side_wagers_and_sees_them_on_the_floor(
    floor: Any, cache: Path, page: Page, shot: Any, viewport: str
) -> None:
    """Issue 20, part 5: the form offers the preset side wagers (limits, a progressive's bank);
    the progressive's bank shows its meter, and seeding it moves the meter; a round with side
    wagers shows on the floor by wager type, to the cent, beside the exact theoretical hold."""
    import time

    width = resize(page, viewport)
    counted = _copy_bonus_counts(cache)
    bank = f"browser-{viewport}"
    as_operator(page, floor.url, timeout=WAIT)
    page.fill("#t-name", f"Side {viewport}")
    page.fill("#t-betting", "1")
    page.fill("#t-setting", "0.2")
    page.click("#t-side summary")
    page.check("#sw-fortune-a-on")
    page.fill("#sw-fortune-a-min", "1")
    page.fill("#sw-fortune-a-max", "25")
    page.check("#sw-fortune-progressive-on")
    expect(page.locator("#sw-fortune-progressive-min")).to_be_disabled()  # a fixed $1 wager
    page.fill("#sw-fortune-progressive-bank", bank)
    inside(page, "#t-side fieldset.side-offer", width)
    page.click("#create-table button[type=submit]")
    expect(page.locator("#op-msg")).to_contain_text(
        "side wagers: Fortune bonus, pay table A (8,000 to 1), with Envy; Pai gow progressive",
        timeout=WAIT,
    )
    made = next(t for t in floor.op.call("GET", "/api/tables") if t["name"] == f"Side {viewport}")
    offers = {o["name"]: o for o in made["side_wagers"]}
    assert (offers["fortune-a"]["min_wager"], offers["fortune-a"]["max_wager"]) == (100, 2500)
    assert offers["fortune-progressive"]["bank"] == bank
    row = page.locator(f"#banks tr[data-bank='{bank}']")
    expect(row.locator("[data-field=meter]")).to_have_attribute(
        "data-cents", "1000000", timeout=WAIT
    )
    page.fill("#bank-amount", "50")
    page.click(f"#seed-{bank}")
    expect(row.locator("[data-field=meter]")).to_have_attribute(
        "data-cents", "1005000", timeout=WAIT
    )
    inside(page, f"#seed-{bank}", width)
    check_a11y(page)
    shot(page, f"-{viewport}-form")

    # a round with side wagers, then the floor by wager type
    _, _, player = floor.player(credit=100_000)
    wager_over_api(player, made["id"], 1, 1000, side={"fortune-a": 500, "fortune-progressive": 100})
    deadline = time.time() + 30
    while player.call("GET", f"/api/tables/{made['id']}")["rounds_played"] < 1:
        assert time.time() < deadline, "the round did not settle"
        time.sleep(0.1)
    page.goto(floor.url + "/#/floor")
    fa = page.locator(f"#floor-types tr[data-table='{made['id']}'][data-wager='fortune-a']")
    expect(fa.locator("[data-field=handle]")).to_have_attribute("data-cents", "500", timeout=WAIT)
    view = floor.op.call("GET", "/api/admin/floor")
    mine = next(t for t in view["tables"] if t["id"] == made["id"])
    line = {w["name"]: w for w in mine["side_wagers"]}
    expect(fa.locator("[data-field=house_result]")).to_have_attribute(
        "data-cents", str(line["fortune-a"]["house_result"])
    )
    assert line["fortune-a"]["house_result"] == 500 - line["fortune-a"]["returned"]
    prog = page.locator(
        f"#floor-types tr[data-table='{made['id']}'][data-wager='fortune-progressive']"
    )
    expect(prog).to_contain_text("meter $10,0")
    if counted:
        expect(fa.locator("[data-field=theoretical] [data-status=ready]")).to_have_count(
            1, timeout=WAIT
        )
    inside(page, f"#floor-types tr[data-table='{made['id']}'] [data-field=band]", width)
    check_a11y(page)
    shot(page, f"-{viewport}-floor")


OWN_WAY = """name = "my-casino"

[[rule]]
id = "mine.best-low"
choose = "best-low"
"""


def in_view(page: Page, selector: str) -> None:
    """``selector`` is visible and wholly inside the viewport (no scrolling needed)."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)


@pytest.mark.parametrize("viewport", [*VIEWPORTS, "sideways"])
def test_the_operator_opens_a_table_with_its_own_house_way_file(
    floor: Any, page: Page, shot: Any, viewport: str, tmp_path: Path
) -> None:
    """docs/house-way.md: the form takes a house-way file, says what is wrong with a bad one
    (its file by the name it was given, the line and the word) beside its button, in view, with
    the button disabled while the check runs (issue 50, items 1 and 7), and opens the table
    with a good one (checked over every hand; here checked once beforehand, so the server finds
    the answer kept), shown by its name and the start of its digest (item 2)."""
    from paigow.analysis.compiled import validate

    assert validate(HouseWay.from_text(OWN_WAY, "house_way_toml")) == []
    if viewport == "sideways":  # a phone held sideways
        page.set_viewport_size({"width": 812, "height": 375})
    else:
        resize(page, viewport)
    as_operator(page, floor.url, timeout=WAIT)
    expect(page.locator("#t-house-own")).to_be_hidden(timeout=WAIT)
    page.select_option("#t-house", "")
    expect(page.locator("#t-house-own")).to_be_visible()
    page.fill("#t-name", f"Own way {viewport}")
    page.click("#create-table button[type=submit]")
    expect(page.locator("#create-msg")).to_contain_text("Choose your house way's file")
    in_view(page, "#create-msg")
    bad = tmp_path / "casino-way.toml"
    bad.write_text(OWN_WAY.replace('choose = "best-low"', 'when = "flsh"'))
    page.set_input_files("#t-house-file", str(bad))
    expect(page.locator("#t-house-toml")).to_have_value(bad.read_text())
    held: list[Any] = []  # the request held, to see the form while the check runs
    page.route(
        "**/api/admin/tables", lambda route: route.continue_() if held else held.append(route)
    )
    page.click("#create-table button[type=submit]")
    expect(page.locator("#create-msg")).to_contain_text("Checking your house way")
    expect(page.locator("#create-table button[type=submit]")).to_be_disabled()
    in_view(page, "#create-msg")
    shot(page, f"-checking-{viewport}")
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#create-msg")).to_contain_text("casino-way.toml:5", timeout=WAIT)
    expect(page.locator("#create-msg")).to_contain_text("unknown feature 'flsh'")
    expect(page.locator("#create-table button[type=submit]")).to_be_enabled()
    in_view(page, "#create-msg")
    shot(page, f"-refused-{viewport}")
    page.fill("#t-house-toml", OWN_WAY.replace("my-casino", "standard"))
    page.click("#create-table button[type=submit]")
    expect(page.locator("#create-msg")).to_contain_text("a name of its own", timeout=WAIT)
    page.fill("#t-house-toml", OWN_WAY)
    page.click("#create-table button[type=submit]")
    digest = HouseWay.from_text(OWN_WAY).digest[:8]
    expect(page.locator("#op-msg")).to_contain_text(f"house way my-casino #{digest}", timeout=WAIT)
    expect(page.locator("#create-msg")).to_contain_text(f"house way my-casino #{digest}")
    made = [t for t in floor.op.call("GET", "/api/tables") if t["name"] == f"Own way {viewport}"]
    assert [t["house_way"] for t in made] == ["my-casino"]
    row = page.locator(f"#op-tables tr[data-table='{made[0]['id']}'] [data-field=house-way]")
    expect(row).to_have_text(f"house way my-casino #{digest}", timeout=WAIT)
    check_a11y(page)
    shot(page, f"-{viewport}")
