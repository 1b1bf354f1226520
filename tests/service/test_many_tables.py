"""Many players from one address (a casino floor behind one NAT address, a test client): at 100
tables x 6 players the former cap of 256 WebSockets per address refused 344 players' sockets,
so they never saw their cards and their hands were set by the time-out. Signed-in sockets are
now held per user; the low per-address cap is for spectators (no token) only."""

from __future__ import annotations

from paigow.service.config import ServiceConfig
from tests.helpers.service import Service


def test_the_default_caps_hold_a_floor_of_players_from_one_address() -> None:
    cfg = ServiceConfig(database_url="sqlite:///unused.sqlite3")
    assert cfg.ws_per_addr >= 100 * 6  # 100 tables x 6 players, every one watching its table
    assert cfg.ws_spectators_per_addr < cfg.ws_per_addr


def test_signed_in_players_pass_the_spectators_cap_of_their_address(db_url: str) -> None:
    s = Service(db_url, ws_per_user=2, ws_spectators_per_addr=2, ws_per_addr=8)
    try:
        table = s.new_table()
        players = [s.player(credit=0) for _ in range(5)]
        sockets = [p.ws(table) for p in players]  # five signed-in, one address: more than 2
        try:
            for w in sockets:
                assert w.wait_for(lambda m: m.get("type") in ("hello", "error"))["type"] == "hello"
            spectators = [players[0].ws(table, token="") for _ in range(3)]
            sockets += spectators
            for w in spectators[:2]:
                assert w.wait_for(lambda m: m.get("type") in ("hello", "error"))["type"] == "hello"
            refused = spectators[2].wait_for(lambda m: m.get("type") in ("hello", "error"))
            assert refused["code"] == "too-many-connections"  # the third spectator
            spectators[2].thread.join(10)
            assert spectators[2].closed == 4429
            extra = players[1].ws(table)  # the 8th open from the address: still in
            sockets.append(extra)
            assert extra.wait_for(lambda m: m.get("type") in ("hello", "error"))["type"] == "hello"
            over = players[2].ws(table)  # the 9th: over the address's cap of everyone
            sockets.append(over)
            assert over.wait_for(lambda m: m.get("type") in ("hello", "error"))["code"] == (
                "too-many-connections"
            )
        finally:
            for w in sockets:
                w.close()
    finally:
        s.stop()
