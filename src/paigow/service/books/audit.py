"""The append-only audit log (operator actions and faults), its JSON-lines export, and
``verify``: the ledger check plus a replay of every round's event log through the rules engine.

>>> line = to_json_line({"id": 1, "at": 0.0, "actor": "op", "action": "credit", "target": "wallet:ann", "details": {}})
>>> line
'{"id":1,"at":"1970-01-01T00:00:00.000000Z","actor":"op","action":"credit","target":"wallet:ann","details":{}}'
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.errors import PaigowError
from paigow.round import Round
from paigow.service.books.ledger import check as check_ledger
from paigow.service.statuses import DragonStatus, Phase, WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import AuditRecord, Database, RoundEvent, RoundRow, RoundWager, now
from paigow.service.store.dragon_models import RoundDragon


def record(
    session: Session,
    actor: str,
    action: str,
    target: str | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """Append one record in the caller's transaction (so it commits with what it records)."""
    session.add(
        AuditRecord(at=now(), actor=actor, action=action, target=target, details=details or {})
    )


def record_now(
    db: Database, actor: str, action: str, target: str | None, details: dict[str, Any]
) -> None:
    """Append one record in a transaction of its own (faults)."""
    with db.write() as s:
        record(s, actor, action, target, details)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_json_line(row: dict[str, Any]) -> str:
    out = dict(row)
    out["at"] = _iso(float(out["at"]))
    return json.dumps(out, separators=(",", ":"), sort_keys=False)


def export(db: Database, *, after_id: int = 0, batch: int = 1000) -> Iterator[str]:
    """Every audit record as JSON lines, oldest first."""
    last = after_id
    while True:
        with db.read() as s:
            rows = (
                s.execute(
                    sa.select(AuditRecord)
                    .where(AuditRecord.id > last)
                    .order_by(AuditRecord.id)
                    .limit(batch)
                )
                .scalars()
                .all()
            )
            items = [
                {
                    "id": r.id,
                    "at": r.at,
                    "actor": r.actor,
                    "action": r.action,
                    "target": r.target,
                    "details": r.details,
                }
                for r in rows
            ]
        if not items:
            return
        for item in items:
            yield to_json_line(item) + "\n"
        last = items[-1]["id"]


# ----------------------------------------------------------------------------------- verify
def replay_round(session: Session, row: RoundRow) -> str | None:
    """Replay one round's log with the rules engine and compare with what was recorded (phase,
    totals, what each wager returned). None when it agrees, else what differs."""
    events = session.execute(
        sa.select(RoundEvent.seq, RoundEvent.data)
        .where(RoundEvent.round_id == row.id)
        .order_by(RoundEvent.seq)
    ).all()
    if [seq for seq, _ in events] != list(range(len(events))):
        return "the log has gaps in its sequence numbers"
    if len(events) != row.event_count:
        return f"the round records {row.event_count} events but its log has {len(events)}"
    try:
        rnd = Round.replay([data for _, data in events])
    except PaigowError as exc:
        return f"replay failed: {exc}"
    if rnd.phase.value != row.phase:
        return f"recorded phase {row.phase!r}, replay reaches {rnd.phase.value!r}"
    wagers = {
        w.spot: w
        for w in session.execute(
            sa.select(RoundWager).where(RoundWager.round_id == row.id)
        ).scalars()
    }
    if {s: w.amount for s, w in wagers.items()} != rnd.wagers:
        return "the recorded wagers differ from the log's"
    problem = _side_problem(session, row.id, rnd) or _dragon_problem(session, row.id, rnd)
    if problem is not None:
        return problem
    if rnd.is_over:
        returned = rnd.returned()
        for spot, w in wagers.items():
            if w.returned != returned.get(spot, 0):
                return f"spot {spot}: recorded return {w.returned}, replay gives {returned.get(spot, 0)}"
            want = WagerStatus.SETTLED if rnd.phase is Phase.SETTLED else WagerStatus.RETURNED
            if w.status != want:
                return f"spot {spot}: wager status {w.status!r}, expected {want.value!r}"
        if rnd.phase is Phase.SETTLED:
            totals = next(e for e in reversed(rnd.events) if e.type == "round-settled").to_dict()
            totals.pop("type")
            if (row.result or {}).get("totals") != totals:
                return f"recorded totals {row.result} differ from the replay's {totals}"
    else:
        for spot, w in wagers.items():
            if w.status != WagerStatus.IN_PLAY:
                return f"spot {spot}: wager {w.status} in a round still in play"
    return None


def _side_problem(session: Session, round_id: str, rnd: Round) -> str | None:
    """The round's side-wager records against its log: amounts, and once it is over, what each
    returned, its Envy and its status."""
    sides = {
        (w.spot, w.name): w
        for w in session.execute(
            sa.select(RoundSideWager).where(RoundSideWager.round_id == round_id)
        ).scalars()
    }
    if {k: w.amount for k, w in sides.items()} != rnd.side_wagers:
        return "the recorded side wagers differ from the log's"
    if not sides:
        return None
    if not rnd.is_over:
        if any(w.status != WagerStatus.IN_PLAY for w in sides.values()):
            return "a side wager closed in a round still in play"
        return None
    returned = rnd.side_returned()
    want = WagerStatus.SETTLED if rnd.phase is Phase.SETTLED else WagerStatus.RETURNED
    for (spot, name), w in sides.items():
        envy = rnd.envy.get((spot, name))
        if w.returned != returned.get((spot, name), 0) or w.envy != (envy.amount if envy else 0):
            return f"spot {spot} {name}: recorded return {w.returned} and Envy {w.envy} differ"
        if w.status != want:
            return f"spot {spot} {name}: side wager status {w.status!r}, expected {want.value!r}"
    return None


def _dragon_problem(session: Session, round_id: str, rnd: Round) -> str | None:
    """The round's dragon-hand record against its log: the packet, who wagered and how much,
    and once the round is over what it returned and its status."""
    found = session.get(RoundDragon, round_id)
    if found is None:
        offered = rnd.dragon_order is not None
        return "the log offers a dragon hand the records do not hold" if offered else None
    if found.spot != rnd.dragon_spot or rnd.dragon_order is None:
        return f"the dragon hand recorded (spot {found.spot}) differs from the log's"
    if (found.by_spot, found.amount) != (rnd.dragon_by, rnd.dragon_wager):
        return (
            f"the dragon wager recorded (spot {found.by_spot}, {found.amount}) differs from the "
            f"log's (spot {rnd.dragon_by}, {rnd.dragon_wager})"
        )
    back = rnd.dragon_returned() if rnd.is_over else None
    want: str
    if back is None:
        open_ = rnd.dragon_pending and not rnd.is_over  # a void closes an open offer
        want = DragonStatus.OFFERED if open_ else DragonStatus.DECLINED
        if rnd.dragon_by is not None:
            want = WagerStatus.IN_PLAY
    else:
        want = WagerStatus.SETTLED if rnd.phase is Phase.SETTLED else WagerStatus.RETURNED
        if found.returned != back[1]:
            return f"the dragon wager: recorded return {found.returned}, replay gives {back[1]}"
    if found.status != want:
        return f"the dragon hand's status {found.status!r}, expected {str(want)!r}"
    return None


def verify(db: Database) -> dict[str, Any]:
    """Check the ledger and replay every round. ``ok`` only when everything holds."""
    with db.read() as s:
        if db.is_postgres:
            s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        report = check_ledger(s)
        ids = (
            s.execute(sa.select(RoundRow.id).order_by(RoundRow.table_id, RoundRow.number))
            .scalars()
            .all()
        )
        mismatches: list[dict[str, str]] = []
        replayed = 0
        for rid in ids:
            row = s.get(RoundRow, rid)
            assert row is not None
            problem = replay_round(s, row)
            replayed += 1
            if problem is not None:
                mismatches.append({"round_id": rid, "problem": problem})
    return {
        "ok": report.balanced and not mismatches,
        "rounds": len(ids),
        "replayed": replayed,
        "mismatches": mismatches,
        "ledger_balanced": report.balanced,
        "ledger": report.to_dict(),
    }
