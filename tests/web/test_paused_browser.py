"""In Chromium: the table page and the lobby say plainly that play is paused, and why, while the
database is out of space (SQLite on a small tmpfs filled by a file, mounted and unmounted here)
or read-only (a private PostgreSQL cluster with ``default_transaction_read_only``), and the banner
goes by itself once room is made (writes allowed) and the held round deals. Screenshots at
1366x768 and 375x812."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.helpers import pg_cluster
from tests.helpers.disk import fill, tmpfs
from tests.helpers.walks import (
    LAPTOP,
    PHONE,
    at_table,
    axe_problems,
    hand_over_api,
    sit,
    wager,
    wager_over_api,
)
from tests.helpers.web import Site

pytestmark = pytest.mark.slow

WAIT = 20_000
FULL = "Play is paused: the database is out of space."


def empty_wal(path: Path) -> None:
    """The WAL checkpointed and truncated: every write then needs room of its own."""
    with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
        for _ in range(50):
            if not conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:
                break
            time.sleep(0.05)
    assert os.path.getsize(f"{path}-wal") == 0


def test_pages_say_play_is_paused_while_the_database_is_full(browser: Browser, shot: Any) -> None:
    with tmpfs(48) as disk:
        path = disk / "tables.sqlite3"
        site = Site(f"sqlite:///{path}")
        filler: Path | None = None
        try:
            table = site.table(betting_time_ms=4000, setting_time_ms=60_000)
            page, _name, _api = at_table(site, browser, LAPTOP, table)
            banner = page.locator("#paused")
            expect(banner).to_be_hidden()
            sit(page, 1)
            _other, _pw, api = site.player()
            wager_over_api(api, table, 2, 1000)  # a round in betting: the dealer will deal it
            empty_wal(path)
            filler = fill(disk)
            wager(page, "10")  # refused 503 storage-full: the banner at once, the form says so
            expect(banner).to_be_visible(timeout=WAIT)
            expect(banner).to_contain_text(FULL)
            expect(banner).to_contain_text("Nothing you did was lost")
            expect(page.locator("#view")).to_contain_text("Not taken: play is paused")
            assert page.evaluate("document.activeElement && document.activeElement.id") != "paused"
            shot(page, "-table-1366x768")
            page.set_viewport_size(PHONE)
            expect(banner).to_be_visible()
            box = banner.bounding_box()
            assert box is not None and box["width"] <= PHONE["width"] and box["y"] < 200, box
            shot(page, "-table-375x812")
            # the lobby: said there too (the health poll, no request of its own refused)
            page.goto(site.url + "/#/lobby")
            page.reload()
            expect(page.locator("#tables")).to_be_visible(timeout=WAIT)
            expect(banner).to_contain_text(FULL, timeout=WAIT)
            shot(page, "-lobby-375x812")
            assert axe_problems(page) == []  # the banner's contrast and role among them
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            page.set_viewport_size(LAPTOP)
            shot(page, "-lobby-1366x768")
            # room made: the held round deals, and the banner goes by itself
            filler.unlink()
            filler = None
            expect(banner).to_be_hidden(timeout=WAIT)
            assert len(hand_over_api(api, table)) == 7  # dealt after the hold
            assert site.op.call("GET", "/api/health")["storage"] == "ok"
        finally:
            if filler is not None:
                filler.unlink()
            site.stop()


@pytest.mark.skipif(not pg_cluster.available(), reason="no private PostgreSQL clusters here")
def test_pages_say_play_is_paused_while_the_database_is_read_only(
    browser: Browser, shot: Any
) -> None:
    def read_only(pg: pg_cluster.Cluster, on: bool) -> None:
        pg.sql(f"ALTER SYSTEM SET default_transaction_read_only = {'on' if on else 'off'}")
        pg.sql("SELECT pg_reload_conf()")
        time.sleep(0.5)  # every session, the server's pooled ones too, takes it

    with pg_cluster.cluster() as pg:
        site = Site(pg.url())
        try:
            table = site.table(betting_time_ms=4000, setting_time_ms=60_000)
            page, _name, _api = at_table(site, browser, PHONE, table)
            banner = page.locator("#paused")
            sit(page, 1)
            _other, _pw, api = site.player()
            wager_over_api(api, table, 2, 1000)
            read_only(pg, True)
            wager(page, "10")
            expect(banner).to_contain_text(
                "Play is paused: the database is read-only (it takes no changes).", timeout=WAIT
            )
            expect(page.locator("#view")).to_contain_text("Not taken: play is paused")
            shot(page, "-table-375x812")
            read_only(pg, False)
            expect(banner).to_be_hidden(timeout=WAIT)
            assert len(hand_over_api(api, table)) == 7
        finally:
            site.stop()
