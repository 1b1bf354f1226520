"""The caller's own account: ``GET /api/me`` (who I am, my balance, my seats) and
``GET /api/me/statement`` (every movement of my wallet in a range of gaming days, with the running
balance, grouped by round; JSON in pages, or CSV). My limits are in
:mod:`paigow.service.api.routes.floor`, my ledger in :mod:`paigow.service.api.routes.web`."""

from __future__ import annotations

from typing import Annotated, Any, Final, cast

import sqlalchemy as sa
from fastapi import APIRouter, Query, Response
from pydantic import Field

from paigow.service.accounts.auth_tokens import Principal
from paigow.service.api.auth_schemas import MeOut
from paigow.service.api.deps import (
    FirstDay,
    Format,
    IdemHeader,
    LastDay,
    PageNo,
    Player,
    RoundId,
    RuntimeDep,
    error_responses,
    idempotent,
    json_response,
    key_of,
)
from paigow.service.api.schemas import IdemKey, Strict
from paigow.service.books import ledger, play_money
from paigow.service.books import statement as statements
from paigow.service.floor import review as reviews
from paigow.service.store.db import Account, Seat
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

router = APIRouter()
_SEATS: Final = cast(sa.Table, Seat.__table__)
_MY_SEATS: Final = Sql(
    sa.select(_SEATS.c.table_id, _SEATS.c.spot)
    .where(_SEATS.c.user_id == sa.bindparam("uid"))
    .order_by(_SEATS.c.table_id)
)


_ACCOUNTS: Final = cast(sa.Table, Account.__table__)
_MY_BALANCES: Final = Sql(
    sa.select(_ACCOUNTS.c.name, _ACCOUNTS.c.balance).where(
        _ACCOUNTS.c.name.in_([sa.bindparam("wallet"), sa.bindparam("play")])
    )
)
"""The wallet's balance and the play money's (when the player has any), in one statement."""


def about(tx: Tx, user: Principal) -> dict[str, Any]:
    """The user, their wallet's balance (and play money's) and their seats (two statements)."""
    wallet, play = ledger.wallet(user.username), ledger.play_wallet(user.username)
    balances: dict[str, int] = {
        str(n): int(b) for n, b in tx.run(_MY_BALANCES, {"wallet": wallet, "play": play})
    }
    seats = tx.run(_MY_SEATS, {"uid": user.id})
    return {
        "id": user.id,
        "username": user.username,
        "role": user.role,
        "balance": int(balances.get(wallet, 0)),
        "play_balance": None if play not in balances else int(balances[play]),
        "seats": [{"table_id": t, "spot": p} for t, p in seats],
    }


@router.get("/api/me", tags=["auth"], response_model=MeOut, responses=error_responses(401))
async def me(user: Player, rt: RuntimeDep) -> Response:
    """Who I am, my balance (cents) and where I sit."""
    return json_response(await rt.reading(lambda tx: about(tx, user)))


JSON_OR_CSV: dict[int | str, dict[str, Any]] = {
    **error_responses(401, 422),
    200: {"content": {"application/json": {}, "text/csv": {}}},
}


def _csv(text: str, name: str) -> Response:
    """``text`` as a CSV file to save under ``name``."""
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get(
    "/api/me/statement",
    tags=["auth"],
    responses=JSON_OR_CSV,
)
def my_statement(
    user: Player,
    rt: RuntimeDep,
    first: FirstDay = None,
    last: LastDay = None,
    page: PageNo = 1,
    size: Annotated[int, Query(ge=1, le=statements.MAX_PAGE, description="Movements a page")] = 50,
    fmt: Format = "json",
    which: Annotated[
        str, Query(alias="wallet", pattern="^(real|play)$", description="real, or play money")
    ] = "real",
) -> Response:
    """Every movement of my wallet (``wallet=play``: my play money, apart) in gaming days
    ``from`` .. ``to`` (both required, at most
    93 days; 422 ``unbounded-range``, ``reversed-range``, ``range-too-long``), in cents, with
    the balance after each: grouped by round (with the table and round for its recall), the
    operators' credits and debits on their own; ``size`` movements a page (at most 200), or
    ``format=csv`` for the whole range in dollars."""
    account = (ledger.play_wallet if which == "play" else ledger.wallet)(user.username)
    with rt.db.read() as s:
        if fmt == "csv":
            name = f"paigow-statement-{user.username}-{first}-{last}.csv"
            return _csv(statements.statement_csv(s, account, first, last, day=rt.gaming_day), name)
        return json_response(
            statements.statement(s, account, first, last, page, size, day=rt.gaming_day)
        )


class PlayMoneyIn(Strict):
    amount: int = Field(
        gt=0, le=play_money.PLAY_CAP, strict=True, description="Play money to add, in cents"
    )
    idempotency_key: IdemKey | None = Field(default=None, description="Or the header")


@router.post(
    "/api/me/play-money",
    tags=["auth"],
    responses=error_responses(401, 409, 422),
)
async def top_up_play_money(
    body: PlayMoneyIn, user: Player, rt: RuntimeDep, idempotency_key: IdemHeader = None
) -> Response:
    """Top up my play money (what practice tables play for; never the wallet) by ``amount``
    cents, to at most $10,000.00 in all (409 ``play-money-cap`` above it, saying how much may
    still be added). My play money opens with $1,000.00 at my first practice."""
    key = key_of(body.idempotency_key, idempotency_key, required=False)
    done = await idempotent(
        rt,
        user,
        key,
        "play-money",
        {"amount": body.amount},
        lambda tx: play_money.top_up(tx, user.username, body.amount),
    )
    return json_response(done)


@router.get(
    "/api/me/review",
    tags=["auth"],
    responses=JSON_OR_CSV,
)
def my_review(
    user: Player,
    rt: RuntimeDep,
    first: FirstDay = None,
    last: LastDay = None,
    fmt: Format = "json",
) -> Response:
    """My play: every hand I played at a table that prices settings in gaming days ``from`` ..
    ``to`` (both required, at most 93 days; the 422s of the statement), by gaming day and by
    session, each with the setting I played, the best and the house way's (exact EV for my
    wager) and what my choice gave up; each day's totals against the best and the house way;
    my ten costliest decisions with their hands. ``format=csv``: one line a hand."""
    with rt.db.read() as s:
        if fmt == "csv":
            name = f"paigow-my-play-{user.username}-{first}-{last}.csv"
            return _csv(reviews.review_csv(s, user.id, first, last, day=rt.gaming_day), name)
        return json_response(reviews.review(s, user.id, first, last, day=rt.gaming_day))


@router.get("/api/me/review/{round_id}", tags=["auth"], responses=error_responses(401, 404, 422))
def my_round_review(round_id: RoundId, user: Player, rt: RuntimeDep) -> Response:
    """The price of each of my hands in one round (``status``: ``priced``, ``pending`` just
    after the showdown, or ``not-offered`` at a casino table that does not offer it); 404 for a
    round I had no hand in."""
    with rt.db.read() as s:
        return json_response(reviews.round_review(s, user.id, round_id, day=rt.gaming_day))
