"""Accounts: ``POST /api/auth/register`` (a player), ``POST /api/auth/login`` (a token and its
session) and ``POST /api/auth/logout`` (the session revoked)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials

from paigow.service.accounts import sessions, totp
from paigow.service.accounts.auth import Principal
from paigow.service.accounts.credentials import password_problem, username_key
from paigow.service.accounts.users import create_user
from paigow.service.api.deps import (
    RuntimeDep,
    bearer,
    client_addr,
    error_responses,
    token_session,
    token_user,
)
from paigow.service.api.schemas import CodeIn, EnrolOut, LoginIn, RegisterIn, TokenOut, UserOut
from paigow.service.errors import Forbidden, ServiceError, Unauthorized, Unprocessable
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role
from paigow.service.store.db import User
from paigow.service.store.unit import Tx

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
    another user out. The password is checked on a bounded pool of its own (503 when full).
    An operator who has enrolled a second factor sends its ``code`` too, or gets a token
    limited to ``/api/auth/totp/verify`` (``second_factor: "verify"``); with
    ``operator_second_factor=required`` one without gets a token limited to enrolling
    (``"enrol"``). A wrong or replayed code counts as a failed attempt."""
    addr = client_addr(request)
    rt.limiter.check(body.username, addr)
    user = await rt.hash_pool.run(lambda: check_login(rt, body.username, body.password))
    if user is None:
        rt.limiter.failed(body.username, addr)
        raise Unauthorized("wrong username or password", code="bad-credentials")
    principal = Principal(user.id, user.username, user.role)
    if rt.second_factor == "off" or user.role != Role.OPERATOR:
        rt.limiter.succeeded(body.username, addr)
        return await issue_token(rt, principal, None)
    key = rt.signer.derive(totp.KEY_LABEL)
    code = body.code

    def second_factor(tx: Tx) -> tuple[bool | None, str | None]:
        if not totp.is_enrolled(tx.session, principal.id):
            required = rt.second_factor == "required"
            return (False, "enrol") if required else (None, None)
        if code is None:
            return False, "verify"
        totp.check_code(tx.session, key, principal.id, code, time.time())
        return True, None

    try:
        passed, pending = await rt.step(second_factor)
    except Unauthorized:
        rt.limiter.failed(body.username, addr)
        raise
    rt.limiter.succeeded(body.username, addr)
    return await issue_token(rt, principal, passed, pending)


@router.post(
    "/api/auth/totp/enrol",
    tags=["auth"],
    response_model=EnrolOut,
    responses=error_responses(401, 403, 409),
)
async def totp_enrol(
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)], rt: RuntimeDep
) -> dict[str, Any]:
    """An operator's new TOTP secret: its otpauth URI and QR code (an SVG data URI). It is on
    once ``/api/auth/totp/confirm`` gets a first code (409 when one is on already)."""
    user, _ = await _operator_session(rt, creds)
    key = rt.signer.derive(totp.KEY_LABEL)
    return await rt.step(lambda tx: totp.enrol(tx.session, key, user.id, user.username))


@router.post(
    "/api/auth/totp/confirm",
    tags=["auth"],
    response_model=TokenOut,
    responses=error_responses(401, 403, 422),
)
async def totp_confirm(
    body: CodeIn,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Turn the enrolled second factor on with a first code; the answer is a new token with
    the second factor passed (the old one is revoked)."""
    user, sid = await _operator_session(rt, creds)
    key = rt.signer.derive(totp.KEY_LABEL)
    await rt.step(lambda tx: totp.confirm(tx.session, key, user.id, body.code, time.time()))
    return await issue_token(rt, user, True, ending=sid)


@router.post(
    "/api/auth/totp/verify",
    tags=["auth"],
    response_model=TokenOut,
    responses=error_responses(401, 403, 422),
)
async def totp_verify(
    body: CodeIn,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Pass the second factor after a log-in without its code: a new token with it passed
    (the limited one is revoked). A code is accepted once (``code-used``)."""
    user, sid = await _operator_session(rt, creds)
    key = rt.signer.derive(totp.KEY_LABEL)

    def step(tx: Tx) -> None:
        if not totp.is_enrolled(tx.session, user.id):
            raise Unauthorized(
                "no second factor is on: enrol one first", code="second-factor-not-enrolled"
            )
        totp.check_code(tx.session, key, user.id, body.code, time.time())

    await rt.step(step)
    return await issue_token(rt, user, True, ending=sid)


async def _operator_session(
    rt: Runtime, creds: HTTPAuthorizationCredentials | None
) -> tuple[Principal, str]:
    if creds is None or creds.scheme.lower() != "bearer":
        raise Unauthorized("log in first: send Authorization: Bearer <token>", code="not-logged-in")
    user, _, sid = await token_session(rt, creds.credentials)
    if user.role != Role.OPERATOR:
        raise Forbidden("operators only", code="operators-only")
    return user, sid


async def issue_token(
    rt: Runtime,
    user: Principal,
    second_factor: bool | None,
    pending: str | None = None,
    ending: str | None = None,
) -> dict[str, Any]:
    """Open a session for ``user`` (ending the session ``ending``) and its token's answer;
    ``pending``: what a limited token is for (``enrol`` or ``verify``)."""
    issued = int(time.time())
    ttl_s = rt.config.token_ttl_s

    def step(tx: Tx) -> str:
        if ending is not None:
            sessions.revoke(tx, ending, user.id, issued)
        return sessions.open_session(tx.session, user.id, ttl_s, issued)

    sid = await rt.step(step)
    if ending is not None:
        rt.sessions.revoked([ending], user.id)
    token = rt.signer.issue(
        user.id, user.role, ttl_s, at=issued, sid=sid, second_factor=second_factor
    )
    return {
        "token": token,
        "token_type": "bearer",  # nosec B105  # the OAuth2 token type, not a secret
        "expires_at": issued + ttl_s,
        "user": {"id": user.id, "username": user.username, "role": user.role},
        "second_factor": pending,
    }


@router.post(
    "/api/auth/logout",
    tags=["auth"],
    status_code=204,
    responses=error_responses(401),
)
async def logout(
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)], rt: RuntimeDep
) -> Response:
    """End the token's session on the server: the same token is refused afterwards (401,
    ``token-revoked``) on HTTP and on the live feed, whose open sockets close (4401)."""
    if creds is None or creds.scheme.lower() != "bearer":
        raise Unauthorized("log in first: send Authorization: Bearer <token>", code="not-logged-in")
    user, _, sid = await token_session(rt, creds.credentials)
    at = time.time()
    await rt.step(lambda tx: sessions.revoke(tx, sid, user.id, at))
    rt.sessions.revoked([sid], user.id)
    return Response(status_code=204)


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
