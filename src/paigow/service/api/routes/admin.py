"""Operators only: open, close and reopen tables (``/api/admin/tables``), credit and debit wallets
(``/api/admin/wallets/{username}/credit|debit``, idempotent by key), export the audit log and
check the ledger. The floor, its report and players' limits are in
:mod:`paigow.service.api.routes.floor`."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Path, Query
from fastapi.responses import StreamingResponse

from paigow.bonus.paytable import BONUS_PRESETS, PayTable
from paigow.commission import MAX_RATE, Commission
from paigow.house_way import BUILTIN_PRESETS
from paigow.ruleset import VARIANTS, PushRule, Ruleset
from paigow.service.accounts import sessions
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.api.deps import (
    IdemHeader,
    Operator,
    RuntimeDep,
    TableId,
    UsernamePath,
    error_responses,
    idempotent,
    key_of,
)
from paigow.service.api.schemas import (
    BankIn,
    BankOut,
    BankView,
    CloseOut,
    CreateTableIn,
    LedgerOut,
    MoneyIn,
    MoneyOut,
    TableOut,
)
from paigow.service.books import audit, ledger
from paigow.service.game import house_way_checks, rounds, side_offers, table_rows
from paigow.service.game.variants import variant_settings
from paigow.service.http_errors import NotFound
from paigow.service.runtime import Runtime
from paigow.service.store.db import User
from paigow.service.store.unit import Tx

router = APIRouter()
BankPath = Annotated[str, Path(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$", description="A bank's name")]


@router.post(
    "/api/admin/tables",
    tags=["admin"],
    status_code=201,
    response_model=TableOut,
    responses=error_responses(401, 403, 422),
)
async def create_table(body: CreateTableIn, user: Operator, rt: RuntimeDep) -> dict[str, Any]:
    """Open a table with its ruleset (commission at most 5%, posted), house way (a preset, an
    operator's rules or file, run over every hand and refused with an example hand where it
    leaves one without a rule or sets one into a foul), start method, limits, time limits and
    mode; a ``variant`` (ez, commission-free, face-up) sets
    the commission, push rule and face up that the body does not give; ``dragon`` offers the
    dragon hand (off by default); ``price_settings`` offers the players of a casino table the
    price of each setting after each round (off by default; a practice table always shows it)."""
    way = house_way_checks.house_way_from(
        body.house_way
        if isinstance(body.house_way, str)
        else body.house_way.model_dump(exclude_none=True),
        body.house_way_toml,
        body.house_way_file,
    )
    await asyncio.to_thread(
        house_way_checks.validate_house_way, way, body.wheel
    )  # every hand, once
    offers = side_offers.build_offers(
        [
            side_offers.OfferSpec(
                o.name, o.paytable, o.paytable_toml, o.min_wager, o.max_wager, o.bank
            )
            for o in body.side_wagers
        ]
    )
    variant = variant_settings(body.variant)
    given = body.model_fields_set
    ruleset = table_rows.build_ruleset(
        commission=body.commission if "commission" in given else variant["commission"],
        push=body.push if body.push is not None else variant["push"],
        face_up=body.face_up if body.face_up is not None else variant["face_up"],
        dragon=body.dragon,
        price_settings=body.price_settings,
        house_way=way,
        start=body.start,
        foul=body.foul,
        wheel=body.wheel,
        min_wager=body.min_wager,
        max_wager=body.max_wager,
        setting_time_ms=body.setting_time_ms,
        side_wagers=offers,
    )

    def step(tx: Tx) -> dict[str, Any]:
        t = table_rows.create_table(
            tx,
            operator=user.username,
            name=body.name,
            ruleset=ruleset,
            house_way=way,
            mode=body.mode,
            betting_time_ms=body.betting_time_ms,
            setting_time_ms=body.setting_time_ms,
        )
        return table_rows.public_state(tx.session, t)

    return await rt.step(step)


@router.get(
    "/api/admin/progressives",
    tags=["admin"],
    response_model=list[BankView],
    responses=error_responses(401, 403),
)
async def progressives(user: Operator, rt: RuntimeDep) -> list[dict[str, Any]]:
    """Every progressive bank: its pay table, share, seed, meter and tables."""
    return await rt.reading(side_offers.banks)


@router.post(
    "/api/admin/progressives/{bank}/seed",
    tags=["admin"],
    response_model=BankOut,
    responses=error_responses(401, 403, 404, 422),
)
async def seed_bank(bank: BankPath, body: BankIn, user: Operator, rt: RuntimeDep) -> Any:
    """Add ``amount`` cents of the house's money to a bank's meter (audited)."""
    return await rt.step(
        lambda tx: side_offers.set_bank(tx, bank, body.amount, user.username, "seed")
    )


@router.post(
    "/api/admin/progressives/{bank}/reset",
    tags=["admin"],
    response_model=BankOut,
    responses=error_responses(401, 403, 404, 422),
)
async def reset_bank(bank: BankPath, body: BankIn, user: Operator, rt: RuntimeDep) -> Any:
    """Set a bank's meter to ``amount`` cents (the difference to or from the house's seed
    account; audited)."""
    return await rt.step(
        lambda tx: side_offers.set_bank(tx, bank, body.amount, user.username, "reset")
    )


@router.post(
    "/api/admin/tables/{table_id}/close",
    tags=["admin"],
    response_model=CloseOut,
    responses=error_responses(401, 403, 404, 422),
)
async def close_table(table_id: TableId, user: Operator, rt: RuntimeDep) -> dict[str, Any]:
    """Close a table: no new wagers; a round still in betting is voided with every wager
    returned; a dealt round is played out; then the seats are cleared."""
    return await rt.step(lambda tx: rounds.close_table(tx, table_id, user.username))


@router.post(
    "/api/admin/tables/{table_id}/reopen",
    tags=["admin"],
    response_model=CloseOut,
    responses=error_responses(401, 403, 404, 422),
)
async def reopen_table(table_id: TableId, user: Operator, rt: RuntimeDep) -> dict[str, Any]:
    """Reopen a closed (or closing) table: open for wagers again, its dealer back (audited)."""
    return await rt.step(lambda tx: rounds.reopen_table(tx, table_id, user.username))


@router.post(
    "/api/admin/wallets/{username}/credit",
    tags=["admin"],
    response_model=MoneyOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def credit(
    username: UsernamePath,
    body: MoneyIn,
    user: Operator,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> dict[str, Any]:
    """Credit a wallet (cents). Idempotent by key."""
    return await move_money(rt, "credit", username, body, user, idempotency_key)


@router.post(
    "/api/admin/wallets/{username}/debit",
    tags=["admin"],
    response_model=MoneyOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def debit(
    username: UsernamePath,
    body: MoneyIn,
    user: Operator,
    rt: RuntimeDep,
    idempotency_key: IdemHeader = None,
) -> dict[str, Any]:
    """Debit a wallet (cents; never below zero: 409). Idempotent by key."""
    return await move_money(rt, "debit", username, body, user, idempotency_key)


@router.post(
    "/api/admin/users/{username}/sessions/revoke",
    tags=["admin"],
    responses=error_responses(401, 403, 404, 422),
)
async def revoke_sessions(username: UsernamePath, user: Operator, rt: RuntimeDep) -> dict[str, Any]:
    """Revoke every live session of a user (audited): their tokens are refused from then on
    (401, ``token-revoked``) and their open live feeds close. ``{"revoked": how many}``."""
    at = time.time()

    def step(tx: Tx) -> tuple[int, list[str]]:
        uid = tx.session.execute(
            sa.select(User.id).where(User.username == username)
        ).scalar_one_or_none()
        if uid is None:
            raise NotFound(f"no user {username}", code="no-user")
        sids = sessions.revoke_user(tx, uid, at)
        audit.record(
            tx.session,
            user.username,
            "revoke-sessions",
            f"user:{username}",
            {"sessions": len(sids)},
        )
        return uid, sids

    uid, sids = await rt.step(step)
    rt.sessions.revoked(sids, uid)
    return {"revoked": len(sids)}


@router.get(
    "/api/admin/audit",
    tags=["admin"],
    responses={
        200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"},
        **error_responses(401, 403, 422),
    },
)
def audit_export(
    user: Operator,
    rt: RuntimeDep,
    after_id: Annotated[int, Query(ge=0, le=2**62, description="Only records after this id")] = 0,
) -> StreamingResponse:
    """The audit log (operator actions and faults) as JSON lines, oldest first."""
    return StreamingResponse(
        audit.export(rt.db, after_id=after_id), media_type="application/x-ndjson"
    )


@router.get(
    "/api/admin/ledger",
    tags=["admin"],
    response_model=LedgerOut,
    responses=error_responses(401, 403),
)
def ledger_check(user: Operator, rt: RuntimeDep) -> dict[str, Any]:
    """Check the ledger: every pair of entries balances, every balance is the sum of its
    entries, and the accounts hold exactly what operators credited."""
    with rt.db.read() as s:
        if rt.db.is_postgres:
            s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        return ledger.check(s).to_dict()


async def move_money(
    rt: Runtime, kind: str, username: str, body: MoneyIn, user: Principal, header: str | None
) -> dict[str, Any]:
    """Credit or debit (``kind``) a player's wallet from the operators' credits account, with
    its ledger transaction and audit record, once per idempotency key."""
    key = key_of(body.idempotency_key, header, required=True)
    account = ledger.wallet(username)

    def action(tx: Tx) -> dict[str, Any]:
        s = tx.session
        found = s.execute(sa.select(User.id).where(User.username == username)).first()
        if found is None:
            raise NotFound(f"no user {username!r}", code="no-user")
        if kind == "credit":
            move = ledger.Movement(ledger.CREDITS, account, body.amount, memo="credit")
        else:
            move = ledger.Movement(account, ledger.CREDITS, body.amount, memo="debit")
        txn = ledger.post(
            tx, kind, [move], actor=user.username, amount=body.amount, reference=username
        )
        audit.record(s, user.username, kind, account, {"amount": body.amount, "transaction": txn})
        return {
            "username": username,
            "amount": body.amount,
            "balance": ledger.balance(tx, account),
            "transaction_id": txn,
        }

    return await idempotent(rt, user, key, f"{kind}/{username}", {"amount": body.amount}, action)


@router.get("/api/admin/table-defaults", tags=["admin"], responses=error_responses(401, 403))
async def table_defaults(user: Operator) -> dict[str, Any]:
    """What a new table gets when the form leaves a field as it is (the same defaults as the
    demo tables' and ``POST /api/admin/tables``'s): commission posted as a percentage, limits in
    cents, time limits in milliseconds, the house ways, the named variants and the push rules."""
    fields = CreateTableIn.model_fields
    return {
        "commission": str(Commission(str(fields["commission"].default))),
        "max_commission": str(Commission(MAX_RATE)),
        "min_wager": fields["min_wager"].default,
        "max_wager": fields["max_wager"].default,
        "betting_time_ms": fields["betting_time_ms"].default,
        "setting_time_ms": fields["setting_time_ms"].default,
        "house_ways": list(BUILTIN_PRESETS),
        "side_wager_presets": [_preset(name) for name in BONUS_PRESETS],
        "variants": [_variant(name) for name in VARIANTS],
        "push_rules": [{"value": p.value, "words": p.words} for p in PushRule],
    }


def _variant(name: str) -> dict[str, Any]:
    """A named variant as the form offers it: the commission, push rule and face up it sets."""
    rs = Ruleset.preset(name)
    return {
        "name": name,
        "commission": str(rs.commission),
        "push": rs.push.value,
        "face_up": rs.face_up,
        "posted": rs.posted_push(),
    }


def _preset(name: str) -> dict[str, Any]:
    """A side wager's preset pay table as the form offers it."""
    t = PayTable.preset(name)
    prog = t.progressive
    return {
        "name": t.name,
        "title": t.title,
        "target": t.target.value,
        "envy": t.envy is not None,
        "progressive": None
        if prog is None
        else {"share": str(prog.share), "seed": prog.seed, "wager": prog.wager},
    }
