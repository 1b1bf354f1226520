"""What ``paigow bots --acks FILE`` was acknowledged, set against a database's rows.

Each line of the file is one step the server acknowledged: ``wager`` (round, user, spot, amount:
a 2xx answer), ``set`` (round, spot, low: a 2xx answer), ``round-settled`` or ``voided`` (the
round's end seen on the table's feed). :func:`missing` lists every acknowledged step whose row
is not in the database (the wager with its amount, the player's ``hand-set`` event with its low
hand, the round in the phase seen): after a failover to a synchronous standby it must be empty.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa

PHASE = {"round-settled": "settled", "voided": "voided"}


def read(path: Path) -> list[dict[str, Any]]:
    """The acknowledgements in ``path`` (a last line cut short by a killed client left out)."""
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def missing(acks: list[dict[str, Any]], url: str) -> dict[str, list[dict[str, Any]]]:
    """The acknowledged steps not in the database at ``url``, by kind (empty lists: none)."""
    from paigow.service.store.db import Database, RoundEvent, RoundRow, RoundWager, User

    db = Database(url)
    try:
        with db.read() as s:
            wagers = {
                (r, u): a
                for r, u, a in s.execute(
                    sa.select(RoundWager.round_id, User.username, RoundWager.amount).join(
                        User, User.id == RoundWager.user_id
                    )
                )
            }
            sets: set[tuple[str, int, tuple[str, ...]]] = set()
            query = sa.select(RoundEvent.round_id, RoundEvent.data).where(
                RoundEvent.type == "hand-set"
            )
            for rid, d in s.execute(query):
                sets.add((rid, int(d["spot"]), tuple(sorted(d["low"]))))
                if d.get("submitted"):  # a foul the rules reset: the player's own setting
                    sets.add((rid, int(d["spot"]), tuple(sorted(d["submitted"][1]))))
            phases = dict(s.execute(sa.select(RoundRow.id, RoundRow.phase)).all())
    finally:
        db.dispose()
    lost: dict[str, list[dict[str, Any]]] = {"wager": [], "set": [], "end": []}
    for a in acks:
        if a["kind"] == "wager" and wagers.get((a["round"], a["user"])) != a["amount"]:
            lost["wager"].append(a)
        elif a["kind"] == "set" and (a["round"], a["spot"], tuple(a["low"])) not in sets:
            lost["set"].append(a)
        elif a["kind"] in PHASE and phases.get(a["round"]) != PHASE[a["kind"]]:
            lost["end"].append(a)
    return lost
