"""The table page's reducer (``web/table_state.js``) on its own, under Node: a round played by the
core (a table offering the dragon hand and a side wager, two players), each event rendered as the
live feed renders it for the player at spot 2 (``EventItem.text``), the table's public state as
the feed sends it (``_state_of``) between them, a reconnect's ``hello`` halfway and the next
round's first event; ``table_state.test.mjs`` feeds them to ``reduce`` one by one and checks the
state after each. No browser: it runs in the quick lane."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from paigow.bonus.paytable import PayTable
from paigow.round import Round
from paigow.ruleset import Ruleset, SideWagerOffer, StartMethod
from paigow.service.game.table_rows import _Round, _Row, _state_of
from paigow.service.game.visibility import view_log
from paigow.service.live.feeds import EventItem

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")
ALICE, BOB = (1, "alice"), (2, "bob")  # (user id, name): alice at spot 2 watches, bob at spot 5


def _table(r: Round, seats: dict[int, str], phase: str | None, number: int = 1) -> dict[str, Any]:
    """The table's public state as the feed's ``table`` message carries it."""
    row = _Row(
        7,
        "Reducer",
        "open",
        "casino",
        r.ruleset.to_dict(),
        r.house_way.to_dict(),
        30_000,
        60_000,
        number - 1,
    )
    rnd = None if phase is None else _Round(r.round_id, number, phase, None)
    wagers = sorted(r.wagers.items()) if phase else []
    return _state_of(row, seats, rnd, wagers, 0.0, {})


def _round() -> Round:
    """A round where the dragon hand is offered to bob first (he declines), then to alice."""
    fortune = SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2_500)
    jackpot = SideWagerOffer("jackpot", PayTable.load("fortune-progressive"), 100, 100, bank="pb")
    rules = Ruleset(start=StartMethod.RNG, dragon=True, side_wagers=(fortune, jackpot))
    for seed in range(200):
        r = Round(rules, round_id="r1")
        r.wager(2, 1_000, player="alice")
        r.side_wager(2, "fortune", 500)
        r.wager(5, 2_000, player="bob")
        r.shuffle(random.Random(seed))
        r.choose_start(number=seed % 7 + 1)
        r.deal_packets()
        if r.dragon_spot is None:
            continue
        r.offer_dragon()
        if r.dragon_order == (5, 2):
            return r
    raise AssertionError("no seed offers the dragon hand to spot 5 first")


def feed() -> list[dict[str, Any]]:
    """The feed's messages to alice, in order (``msg``; ``reconnect``: a hello halfway)."""
    r = _round()
    r.decline_dragon(5)
    r.accept_dragon(2, 500)
    r.set_house_way(2)
    r.set_house_way(5)
    r.finish()
    log = r.log()
    owners = {2: ALICE[0], 5: BOB[0]}

    def event(seq: int) -> dict[str, Any]:
        text = EventItem(r.round_id, 1, seq, log, owners).text(ALICE[0])
        assert text is not None
        return dict(json.loads(text))

    out: list[dict[str, Any]] = [
        {
            "msg": {
                "type": "hello",
                "table": _table(r, {}, None),
                "viewer": {"username": "alice", "role": "player"},
                "round": None,
            }
        },
        {"msg": {"type": "table", "table": _table(r, {2: "alice"}, None)}},
    ]
    seated = {2: "alice", 5: "bob"}
    for seq, e in enumerate(log):
        out.append({"msg": event(seq)})
        if e["type"] == "wager-placed" and e["spot"] == 5:  # bob's seat arrives after his wager
            out.append({"msg": {"type": "table", "table": _table(r, seated, "betting")}})
        if e["type"] == "dealt":  # a reconnect: the hello carries the round so far
            players = {str(s): n for s, n in seated.items()}
            round_part = {"id": r.round_id, "number": 1, "phase": "setting", "log_length": seq + 1,
                          "log": view_log(log[: seq + 1], {2}), "players": players}  # fmt: skip
            viewer = {"username": "alice", "role": "player"}
            hello = {
                "type": "hello",
                "table": _table(r, seated, "setting"),
                "viewer": viewer,
                "round": round_part,
            }
            out.append({"msg": hello, "reconnect": True})
    out.append({"msg": {"type": "meter", "bank": "elsewhere", "meter": 5}})
    out.append({"msg": {"type": "meter", "bank": "pb", "meter": 1_000_025}})
    out.append({"msg": {"type": "wallet", "balance": 99}})
    out.append({"msg": {"type": "leave-question", "open": True}})
    out.append({"msg": {"type": "you-left", "spot": 2, "inPlay": False}})
    out.append({"msg": {"type": "table", "table": _table(r, {5: "bob"}, None)}})
    out.append({"msg": {"type": "leave-question", "open": True}})  # open as the next round starts
    nxt = Round(r.ruleset, round_id="r2")
    first = {"round_id": "r2", "round_number": 2, "seq": 0, **view_log(nxt.log(), set())[0]}
    out.append({"msg": first})
    return out


@pytest.mark.skipif(NODE is None, reason="no node")
def test_the_reducer_over_a_round_of_the_feed(tmp_path: Path) -> None:
    path = tmp_path / "feed.json"
    path.write_text(json.dumps(feed()), encoding="utf-8")
    done = subprocess.run(
        [str(NODE), "--test", str(HERE / "table_state.test.mjs")],
        env={"TABLE_STATE_FEED": str(path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
