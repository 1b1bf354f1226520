"""Tables, seats, wagers and hands: ``GET /api/tables``, ``GET /api/tables/{id}``, and a player's
``sit``, ``leave``, ``wager``, ``hand``, ``set``, ``set-house-way``, ``dragon`` and ``hint`` at a
table."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from paigow.house_way import HouseWay
from paigow.service.api.deps import (
    IdemHeader,
    Player,
    RuntimeDep,
    StatesDep,
    TableId,
    error_responses,
    idempotent,
    json_response,
    key_of,
)
from paigow.service.api.schemas import (
    DragonIn,
    DragonOut,
    HandOut,
    HintOut,
    HouseWaySetIn,
    SeatOut,
    SetIn,
    SetOut,
    SideWagersIn,
    SideWagersOut,
    SitIn,
    TableOut,
    WagerIn,
    WagerOut,
)
from paigow.service.game import house_way_checks, rounds, seats, table_rows
from paigow.service.http_errors import NotFound
from paigow.service.ops import telemetry
from paigow.service.runtime import Runtime
from paigow.service.store.db import now

router = APIRouter()


@router.get("/api/tables", tags=["tables"], response_model=list[TableOut])
async def list_tables(
    rt: RuntimeDep,
    states: StatesDep,
    include_closed: Annotated[bool, Query(description="Also list closed tables")] = False,
) -> Response:
    """Every table with its posted commission, limits, house way, spots and current round."""
    return json_response(await public_states(rt, states, None, include_closed))


@router.get(
    "/api/tables/{table_id}",
    tags=["tables"],
    response_model=TableOut,
    responses=error_responses(404, 422),
)
async def get_table(table_id: TableId, rt: RuntimeDep, states: StatesDep) -> Response:
    """A table's public state: posted commission, limits, house way, start method, mode,
    spots, the current round's phase and time left."""
    found = await public_states(rt, states, [table_id])
    if not found:
        raise NotFound(f"no table {table_id}", code="no-table")
    return json_response(found[0])


@router.get(
    "/api/tables/{table_id}/house-way",
    tags=["tables"],
    responses=error_responses(404, 422),
)
async def get_house_way(table_id: TableId, rt: RuntimeDep) -> Response:
    """The table's own house way in plain words (docs/house-way.md#in-plain-english): each
    rule numbered, generated from the rules, with an example hand it sets."""
    data = await rt.reading(lambda tx: dict(table_rows.get_table(tx.session, table_id).house_way))
    way = HouseWay.from_dict(data)
    return json_response(await asyncio.to_thread(house_way_checks.plain_house_way, way))


@router.post(
    "/api/tables/{table_id}/sit",
    tags=["tables"],
    response_model=SeatOut,
    responses=error_responses(401, 404, 409, 422),
)
async def sit(table_id: TableId, body: SitIn, user: Player, rt: RuntimeDep) -> Response:
    """Sit on a free spot (one spot per player per table, a bounded number in all), with
    at least the table's minimum wager in your wallet. A seat is freed when its player
    wagers in none of the last rounds or has no connection to the table for a while."""
    return json_response(await rt.step(lambda tx: seats.sit(tx, table_id, user, body.spot)))


@router.post(
    "/api/tables/{table_id}/leave",
    tags=["tables"],
    response_model=SeatOut,
    responses=error_responses(401, 404, 409, 422),
)
async def leave(table_id: TableId, user: Player, rt: RuntimeDep) -> Response:
    """Leave your spot. A wager in play stays in play and its result goes to your wallet; a
    hand you have not set is set by the house way at once (or as soon as it is dealt)."""
    started = time.perf_counter()
    try:
        return json_response(await rt.step(lambda tx: rounds.leave(tx, table_id, user)))
    finally:
        telemetry.step_done("leave", time.perf_counter() - started)


@router.post(
    "/api/tables/{table_id}/wager",
    tags=["tables"],
    response_model=WagerOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def wager(
    table_id: TableId,
    body: WagerIn,
    user: Player,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> Response:
    """Wager on your spot (cents, within the table's limits); the amount is reserved from
    your wallet at once (at a practice table from your play money, never the wallet). The first wager opens a round; betting closes when every seated
    player has wagered or the betting time has passed since the first wager."""
    key = key_of(body.idempotency_key, idempotency_key, required=True)
    request: dict[str, Any] = {"amount": body.amount}
    if body.side:
        request["side"] = body.side
    if body.play_money is not None:
        request["play_money"] = body.play_money
    placed = await idempotent(
        rt,
        user,
        key,
        f"wager/{table_id}",
        request,
        lambda tx: rounds.place_wager(tx, table_id, user, body.amount, body.side, body.play_money),
        lambda tx: rounds.wager_ahead(tx, table_id, user),
    )
    return json_response(placed)


@router.post(
    "/api/tables/{table_id}/side-wagers",
    tags=["tables"],
    response_model=SideWagersOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def side_wagers(
    table_id: TableId,
    body: SideWagersIn,
    user: Player,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> Response:
    """Side wagers (cents, by the offer's name) on the spot of your main wager while betting
    is open: never without a main wager, each within its limits, all placed or none."""
    key = key_of(body.idempotency_key, idempotency_key, required=True)
    placed = await idempotent(
        rt,
        user,
        key,
        f"side/{table_id}",
        {"side": body.side},
        lambda tx: rounds.place_side_wagers(tx, table_id, user, body.side),
        lambda tx: rounds.set_ahead(tx, table_id, user),
    )
    return json_response(placed)


@router.get(
    "/api/tables/{table_id}/hand",
    tags=["tables"],
    response_model=HandOut,
    responses=error_responses(401, 404, 409, 422),
)
async def hand(table_id: TableId, user: Player, rt: RuntimeDep) -> Response:
    """Your seven cards in the current round (and your setting once made)."""
    # on SQLite read for the event loop: no worker thread, no fresh session (a sync route took
    # one of each, and at a room's opening hundreds of them fought the loop for the GIL)
    return json_response(await rt.request_read(lambda tx: rounds.my_hand(tx, table_id, user)))


@router.post(
    "/api/tables/{table_id}/set",
    tags=["tables"],
    response_model=SetOut,
    responses=error_responses(400, 401, 404, 409, 422),
)
async def set_hand(
    table_id: TableId,
    body: SetIn,
    user: Player,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> Response:
    """Set your hand by naming the two cards of the low hand. A foul (the low hand outranks
    the high hand) is refused with 409 unless `confirm_foul` is true; confirmed, it is
    accepted and loses (Indiana, 68 IAC 10-9-13(a))."""
    key = key_of(body.idempotency_key, idempotency_key, required=False)
    done = await idempotent(
        rt,
        user,
        key,
        f"set/{table_id}",
        {"low": body.low, "confirm_foul": body.confirm_foul, "round_id": body.round_id},
        lambda tx: rounds.set_hand(tx, table_id, user, body.low, body.confirm_foul, body.round_id),
        lambda tx: rounds.set_ahead(tx, table_id, user),
    )
    return json_response(done)


@router.post(
    "/api/tables/{table_id}/set-house-way",
    tags=["tables"],
    response_model=SetOut,
    responses=error_responses(400, 401, 404, 409, 422),
)
async def set_house_way(
    table_id: TableId,
    body: HouseWaySetIn,
    user: Player,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> Response:
    """Ask the house to set your hand by the table's house way, as casinos allow (at every
    table): recorded in the round's log as set by the house way at your request (`by`
    `house-way`, `reason` `asked`). Refused with 409 `already-set` once your hand is set."""
    key = key_of(body.idempotency_key, idempotency_key, required=False)
    done = await idempotent(
        rt,
        user,
        key,
        f"set-house-way/{table_id}",
        {"round_id": body.round_id},
        lambda tx: rounds.set_by_house_way(tx, table_id, user, body.round_id),
        lambda tx: rounds.set_ahead(tx, table_id, user),
    )
    return json_response(done)


@router.post(
    "/api/tables/{table_id}/dragon",
    tags=["tables"],
    response_model=DragonOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def dragon(
    table_id: TableId,
    body: DragonIn,
    user: Player,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> Response:
    """Answer the dragon hand's offer when it is your turn: ``accept`` with an ``amount``
    (cents, between the table minimum and your own wager; taken from your wallet at once,
    within your limits) or decline. The offer goes, in order from the starting position, to
    each player with a wager; a turn not answered in time is declined for you."""
    key = key_of(body.idempotency_key, idempotency_key, required=True)
    amount = body.amount if body.accept else None
    done = await idempotent(
        rt,
        user,
        key,
        f"dragon/{table_id}",
        {"accept": body.accept, "amount": amount, "round_id": body.round_id},
        lambda tx: rounds.answer_dragon(tx, table_id, user, amount, body.round_id),
        lambda tx: rounds.dragon_ahead(tx, table_id, user),
    )
    return json_response(done)


@router.get(
    "/api/tables/{table_id}/hint",
    tags=["tables"],
    response_model=HintOut,
    responses=error_responses(401, 403, 404, 409, 422),
)
def hint(table_id: TableId, user: Player, rt: RuntimeDep) -> dict[str, Any]:
    """Practice tables only: the house way's setting of your hand and the rule that made it
    (403 at casino tables, where players set without help)."""
    with rt.read() as tx:  # a worker thread: the house way (and face up, every setting) is work
        return rounds.hint(tx, table_id, user)


# ----------------------------------------------------------------------------- public states
def _read_states(
    rt: Runtime, ids: list[int] | None, include_closed: bool
) -> tuple[list[int], dict[int, dict[str, Any]]]:
    with rt.db.read() as s:
        return table_rows.read_states(s, ids, include_closed)


async def public_states(
    rt: Runtime,
    states: table_rows.PublicStates,
    ids: list[int] | None,
    include_closed: bool = False,
) -> list[dict[str, Any]]:
    """Public table states from this process's cache (kept until a table notice), the
    missing ones read in one go."""
    t = now()
    if ids is None:
        ids = states.ids(include_closed, t)
    if ids is None:
        list_version, versions = states.list_version(), states.versions()
        listed, got = await asyncio.to_thread(_read_states, rt, None, include_closed)
        states.keep_ids(include_closed, list_version, listed, t)
        for tid, state in got.items():
            states.keep(tid, versions.get(tid, 0), state, t)
        return [got[i] for i in listed if i in got]
    found = {i: st for i in ids if (st := states.get(i, t)) is not None}
    missing = [i for i in ids if i not in found]
    if len(missing) == 1:  # one table (GET /api/tables/{id}): three statements, no thread
        (tid,) = missing
        version = states.version(tid)
        one = await rt.reading(lambda tx: table_rows.read_state(tx, tid))
        if one is not None:
            states.keep(tid, version, one, t)
            found[tid] = one
    elif missing:
        versions = states.versions()
        _, got = await asyncio.to_thread(_read_states, rt, missing, True)
        for tid, state in got.items():
            states.keep(tid, versions.get(tid, 0), state, t)
        found.update(got)
    t = now()
    return [table_rows.with_time_left(found[i], t) for i in ids if i in found]
