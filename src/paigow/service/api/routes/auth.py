"""Accounts: ``POST /api/auth/register`` (a player) and ``POST /api/auth/login`` (a token)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials

from paigow.service.accounts.credentials import password_problem, username_key
from paigow.service.accounts.users import create_user
from paigow.service.api.deps import (
    RuntimeDep,
    bearer,
    client_addr,
    error_responses,
    token_user,
)
from paigow.service.api.schemas import LoginIn, RegisterIn, TokenOut, UserOut
from paigow.service.errors import ServiceError, Unauthorized, Unprocessable
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role
from paigow.service.store.db import User

router = APIRouter()


@router.post(
    "/api/auth/register",
    tags=["auth"],
    status_code=201,
    response_model=UserOut,
    responses=error_responses(409, 422, 429, 503),
)
async def register(
    body: RegisterIn,
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Register a player (operators are created with `paigow admin create`). Usernames are
    unique whatever their case; a password of only spaces or a commonly used one is refused
    (422, saying why). Registrations per client address are limited (429) unless an
    operator's token comes with the request."""
    if not await _is_operator(rt, creds):
        rt.registrations.hit(client_addr(request))
    problem = password_problem(body.password, body.username)
    if problem is not None:
        raise Unprocessable(problem, code="weak-password")
    password_hash = await rt.hash_pool.run(lambda: rt.passwords.hash(body.password))

    return await rt.step(
        lambda tx: create_user(tx.session, body.username, password_hash, Role.PLAYER)
    )


@router.post(
    "/api/auth/login",
    tags=["auth"],
    response_model=TokenOut,
    responses=error_responses(401, 422, 429, 503),
)
async def login(body: LoginIn, request: Request, rt: RuntimeDep) -> dict[str, Any]:
    """Exchange a username (any case) and password for a signed token that expires. Failed
    attempts are limited per (username, client address) and per address (429): nobody locks
    another user out. The password is checked on a bounded pool of its own (503 when full)."""
    addr = client_addr(request)
    rt.limiter.check(body.username, addr)
    user = await rt.hash_pool.run(lambda: check_login(rt, body.username, body.password))
    if user is None:
        rt.limiter.failed(body.username, addr)
        raise Unauthorized("wrong username or password", code="bad-credentials")
    rt.limiter.succeeded(body.username, addr)
    issued = int(time.time())
    token = rt.signer.issue(user.id, user.role, rt.config.token_ttl_s, at=issued)
    return {
        "token": token,
        "token_type": "bearer",
        "expires_at": issued + rt.config.token_ttl_s,
        "user": {"id": user.id, "username": user.username, "role": user.role},
    }


def check_login(rt: Runtime, username: str, password: str) -> User | None:
    """The user if the password is theirs (its hash upgraded if the parameters were raised)."""
    with rt.db.read() as s:
        user = s.execute(sa.select(User).where(User.username == username)).scalar_one_or_none()
        if user is None:
            user = s.execute(
                sa.select(User).where(User.username_key == username_key(username))
            ).scalar_one_or_none()
    ok = rt.passwords.verify(user.password_hash if user else None, password)
    if not ok or user is None:
        return None
    if rt.passwords.needs_rehash(user.password_hash):  # parameters raised since: upgrade
        fresh = rt.passwords.hash(password)
        with rt.write() as tx:
            tx.session.execute(
                sa.update(User).where(User.id == user.id).values(password_hash=fresh)
            )
    return user


async def _is_operator(rt: Runtime, creds: HTTPAuthorizationCredentials | None) -> bool:
    if creds is None or creds.scheme.lower() != "bearer":
        return False
    try:
        return (await token_user(rt, creds.credentials))[0].role == Role.OPERATOR
    except ServiceError:
        return False
