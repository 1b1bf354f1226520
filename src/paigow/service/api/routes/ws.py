"""The live feed: WebSocket ``/ws/tables/{id}?token=...`` (token optional: spectators), a table's
snapshot then its events, filtered for the viewer."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from paigow.service.accounts.auth_tokens import Principal
from paigow.service.api.deps import (
    SESSION_COOKIE,
    HubDep,
    PresenceDep,
    RuntimeDep,
    same_origin,
    token_session,
)
from paigow.service.game import rounds, table_rows
from paigow.service.game.visibility import view_log
from paigow.service.http_errors import ServiceError
from paigow.service.live.feeds import pump
from paigow.service.live.wallets import watch_wallet
from paigow.service.ops import telemetry
from paigow.service.runtime import Runtime
from paigow.service.store.db import GameTable, RoundRow, RoundWager, User
from paigow.service.store.unit import Tx

router = APIRouter()


@router.websocket("/ws/tables/{table_id}")
async def table_feed(
    websocket: WebSocket,
    table_id: int,
    rt: RuntimeDep,
    hub: HubDep,
    presence: PresenceDep,
    token: str | None = None,
) -> None:
    """Live table events, filtered for the viewer (a player sees only their own cards). The
    viewer is the ``token``'s (a script's) or the session cookie's (a browser's, which must
    come from this service's own pages: 4403 ``bad-origin``); neither: a spectator. Closed
    with 4401 when the session expires or is revoked, 4429 beyond the connections allowed per
    user or per address."""
    await websocket.accept()
    viewer: Principal | None = None
    expires: float | None = None
    sid: str | None = None
    cookie = None if token else websocket.cookies.get(SESSION_COOKIE)
    if cookie and not same_origin(websocket):
        refusal = "this connection did not come from this service's own pages: refused"
        await websocket.send_json({"type": "error", "detail": refusal, "code": "bad-origin"})
        await websocket.close(code=4403, reason=refusal)
        return
    token = token or cookie
    if token:
        try:
            viewer, expires, sid = await token_session(rt, token)
        except ServiceError as exc:
            await websocket.send_json({"type": "error", **exc.body()})
            await websocket.close(code=4401, reason=exc.message[:120])
            return
    if not 1 <= table_id <= 2**31 - 1:
        await websocket.close(code=4404)
        return
    addr = websocket.client.host if websocket.client else "unknown"
    viewer_key = viewer.id if viewer else None
    if not rt.ws_caps.acquire(viewer_key, addr):
        refusal = "too many connections for this user or address; close one first"
        await websocket.send_json(
            {"type": "error", "detail": refusal, "code": "too-many-connections"}
        )
        await websocket.close(code=4429, reason=refusal)
        return
    if viewer is not None:
        presence.add(table_id, viewer.id)
    feed = await hub.feed(table_id)
    queue = feed.subscribe()
    unwatch = watch_wallet(rt, viewer.id, viewer.username, queue) if viewer else None
    telemetry.WEBSOCKETS.inc()  # down again in the finally below
    try:
        shared = await hub.hellos.get(table_id, functools.partial(_table_part, rt))
        snapshot = _snapshot(shared, viewer)
        if snapshot is None:
            await websocket.send_json(
                {"type": "error", "detail": f"no table {table_id}", "code": "no-table"}
            )
            await websocket.close(code=4404)
            return
        await websocket.send_text(orjson.dumps(snapshot).decode())
        seen_number = snapshot["round"]["number"] if snapshot["round"] else 0
        seen_seq = snapshot["round"]["log_length"] if snapshot["round"] else 0
        viewer_id = viewer.id if viewer else None
        receiver = asyncio.create_task(_drain(websocket))
        revoked: list[bool] = []

        def end_session() -> None:  # revoked in this process: stop the pump, then close
            revoked.append(True)
            receiver.cancel()

        unwatch_session = rt.sessions.watch(sid, viewer.id, end_session) if sid and viewer else None
        try:
            await pump(websocket, queue, receiver, expires, viewer_id, (seen_number, seen_seq))
        finally:
            receiver.cancel()
            if unwatch_session is not None:
                unwatch_session()
        if revoked:
            ended = "the session was ended; log in again"
            await websocket.send_json({"type": "error", "detail": ended, "code": "token-revoked"})
            await websocket.close(code=4401, reason=ended)
    except (WebSocketDisconnect, RuntimeError):
        return
    finally:
        if unwatch is not None:
            unwatch()
        telemetry.WEBSOCKETS.dec()
        feed.unsubscribe(queue)
        snapshot = None
        rt.ws_caps.release(viewer_key, addr)
        if viewer is not None:
            presence.remove(table_id, viewer.id)


async def _drain(websocket: WebSocket) -> None:
    """Read (and answer pings from) the client until it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            text = await websocket.receive_text()
            if text.strip().lower() == "ping":
                await websocket.send_json({"type": "pong"})


@dataclass(frozen=True)
class TablePart:
    """What every viewer's hello at a table shares: its public state and its latest round
    (the whole log, who wagers on each spot and their names), read once for the hellos that
    arrive together (:class:`~paigow.service.live.hellos.SharedReads`)."""

    state: dict[str, Any]
    round: tuple[str, int, str] | None
    """The latest round's id, number and phase."""
    events: list[dict[str, Any]]
    owners: dict[int, int]
    names: dict[int, str]


def _table_part(rt: Runtime, table_id: int) -> TablePart | None:
    """The table's shared part of a hello (None: no such table), on a worker thread."""
    with rt.db.read() as s:
        table = s.get(GameTable, table_id)
        if table is None:
            return None
        state = table_rows.public_state(s, table)
        row = s.execute(
            sa.select(RoundRow)
            .where(RoundRow.table_id == table_id)
            .order_by(RoundRow.number.desc())
            .limit(1)
        ).scalar_one_or_none()
        if row is None:
            return TablePart(state, None, [], {}, {})
        events = rounds.load_events(Tx(s.connection(), s), row.id)
        owners = {
            spot: uid
            for spot, uid in s.execute(
                sa.select(RoundWager.spot, RoundWager.user_id).where(RoundWager.round_id == row.id)
            ).all()
        }
        names = dict(
            s.execute(sa.select(User.id, User.username).where(User.id.in_(owners.values()))).all()
        )
        return TablePart(state, (row.id, row.number, row.phase), events, owners, names)


def _snapshot(part: TablePart | None, viewer: Principal | None) -> dict[str, Any] | None:
    """The ``hello`` message: the table's public state and its latest round's log, as the
    viewer may see it (None: no such table)."""
    if part is None:
        return None
    round_part = None
    if part.round is not None:
        round_id, number, phase = part.round
        mine = {sp for sp, uid in part.owners.items() if viewer is not None and uid == viewer.id}
        round_part = {
            "id": round_id,
            "number": number,
            "phase": phase,
            "log_length": len(part.events),
            "log": view_log(part.events, mine),
            "players": {str(sp): part.names.get(uid) for sp, uid in part.owners.items()},
        }
    return {
        "type": "hello",
        "table": part.state,
        "viewer": None if viewer is None else {"username": viewer.username, "role": viewer.role},
        "round": round_part,
    }
