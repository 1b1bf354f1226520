"""Accounts: ``POST /api/auth/register`` (a player), ``POST /api/auth/login`` (a session: a
bearer token, or for the browser an HttpOnly cookie), ``POST /api/auth/logout`` (the session
revoked), ``POST /api/auth/password`` (every other session revoked) and the operators' second
factor (``/api/auth/totp/...``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials

from paigow.service.accounts import sessions, totp
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.accounts.credentials import password_problem, username_key
from paigow.service.accounts.users import create_user
from paigow.service.api.auth_schemas import (
    CodeIn,
    EnrolOut,
    LoginIn,
    PasswordIn,
    RegisterIn,
    SessionOut,
    TokenOut,
    UserOut,
    VerifyIn,
)
from paigow.service.api.deps import (
    SESSION_COOKIE,
    RuntimeDep,
    bearer,
    check_origin,
    client_addr,
    error_responses,
    presented,
    token_session,
    token_user,
    wants_token,
)
from paigow.service.books import audit
from paigow.service.http_errors import Forbidden, ServiceError, Unauthorized, Unprocessable
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role
from paigow.service.store.db import User
from paigow.service.store.unit import Tx

router = APIRouter()
T = TypeVar("T")


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
    if not await _is_operator(rt, request, creds):
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
    responses=error_responses(401, 403, 422, 429, 503),
)
async def login(
    body: LoginIn, request: Request, response: Response, rt: RuntimeDep
) -> dict[str, Any]:
    """Exchange a username (any case) and password for a session: a signed token that expires
    (``token_ttl_s`` after, or sooner once unused for ``session_idle_s``). With ``cookie``
    (the browser's pages) the token goes in an ``HttpOnly``, ``SameSite=Strict`` cookie and
    not in the answer. Failed attempts are limited per (username, client address) and per
    address (429): nobody locks another user out. The password is checked on a bounded pool
    of its own (503 when full). An operator who has enrolled a second factor sends its
    ``code`` (or a ``recovery_code``) too, or gets a token limited to
    ``/api/auth/totp/verify`` (``second_factor: "verify"``); one who must enrol (setting
    ``operator_second_factor=required``, or ``paigow admin create --require-2fa``) gets a
    token limited to enrolling (``"enrol"``). A wrong or replayed code counts as a failed
    attempt and is audited."""
    if body.cookie and request.headers.get("origin") is not None:
        check_origin(request)  # no log-in into someone's account from another site's page
    addr = client_addr(request)
    rt.limiter.check(body.username, addr)
    user = await rt.hash_pool.run(lambda: check_login(rt, body.username, body.password))
    if user is None:
        rt.limiter.failed(body.username, addr)
        raise Unauthorized("wrong username or password", code="bad-credentials")
    principal = Principal(user.id, user.username, user.role)
    if rt.second_factor == "off" or user.role != Role.OPERATOR:
        rt.limiter.succeeded(body.username, addr)
        return await issue_token(
            rt, principal, None, answer=_Answer(request, response, body.cookie)
        )
    key = rt.signer.derive(totp.KEY_LABEL)
    code, recovery = body.code, body.recovery_code

    def second_factor(tx: Tx) -> tuple[bool | None, str | None]:
        if not totp.is_enrolled(tx.session, principal.id):
            must = rt.second_factor == "required" or totp.must_enrol(tx.session, principal.id)
            return (False, "enrol") if must else (None, None)
        if code is None and recovery is None:
            return False, "verify"
        _check_second_factor(tx, key, principal.id, code, recovery)
        return True, None

    try:
        passed, pending = await rt.step(second_factor)
    except Unauthorized as exc:
        rt.limiter.failed(body.username, addr)
        await _audit_refusal(rt, principal.username, "login", exc, addr)
        raise
    rt.limiter.succeeded(body.username, addr)
    return await issue_token(
        rt, principal, passed, pending, answer=_Answer(request, response, body.cookie)
    )


def _check_second_factor(
    tx: Tx, key: bytes, user_id: int, code: str | None, recovery: str | None
) -> None:
    if code is not None:
        totp.check_code(tx.session, key, user_id, code, time.time())
    elif recovery is not None:
        totp.use_recovery_code(tx.session, user_id, recovery, time.time())
    else:
        raise Unauthorized("send the code (or a recovery code)", code="bad-code")


async def _audit_refusal(
    rt: Runtime, username: str, what: str, exc: ServiceError, addr: str
) -> None:
    """An operator's refused second factor, in the audit log (in a step of its own: the
    refused step's own transaction was rolled back)."""
    details = {"code": exc.code, "what": what, "address": addr}
    await rt.step(
        lambda tx: audit.record(tx.session, username, "refused", f"user:{username}", details)
    )


@router.post(
    "/api/auth/totp/enrol",
    tags=["auth"],
    response_model=EnrolOut,
    responses=error_responses(401, 403, 409),
)
async def totp_enrol(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """An operator's new TOTP secret: its otpauth URI and QR code (an SVG data URI). It is on
    once ``/api/auth/totp/confirm`` gets a first code (409 when one is on already)."""
    user, _, _ = await _operator_session(rt, request, creds)
    key = rt.signer.derive(totp.KEY_LABEL)
    return await rt.step(lambda tx: totp.enrol(tx.session, key, user.id, user.username))


@router.post(
    "/api/auth/totp/confirm",
    tags=["auth"],
    response_model=TokenOut,
    responses=error_responses(401, 403, 422, 429),
)
async def totp_confirm(
    body: CodeIn,
    request: Request,
    response: Response,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Turn the enrolled second factor on with a first code; the answer is a new session with
    the second factor passed (the old one is revoked) and the ten recovery codes, shown this
    once."""
    user, sid, cookie = await _operator_session(rt, request, creds)
    key = rt.signer.derive(totp.KEY_LABEL)
    codes = await _code_step(
        rt,
        request,
        user.username,
        "confirm",
        lambda tx: totp.confirm(tx.session, key, user.id, body.code, time.time()),
    )
    answer = await issue_token(
        rt, user, True, ending=sid, answer=_Answer(request, response, cookie)
    )
    return {**answer, "recovery_codes": codes}


@router.post(
    "/api/auth/totp/verify",
    tags=["auth"],
    response_model=TokenOut,
    responses=error_responses(401, 403, 422, 429),
)
async def totp_verify(
    body: VerifyIn,
    request: Request,
    response: Response,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Pass the second factor after a log-in without its code: a new session with it passed
    (the limited one is revoked). A code is accepted once (``code-used``), a recovery code
    once; a wrong one counts as a failed log-in attempt (429 after too many) and is audited."""
    user, sid, cookie = await _operator_session(rt, request, creds)
    key = rt.signer.derive(totp.KEY_LABEL)

    def step(tx: Tx) -> None:
        if not totp.is_enrolled(tx.session, user.id):
            raise Unauthorized(
                "no second factor is on: enrol one first", code="second-factor-not-enrolled"
            )
        _check_second_factor(tx, key, user.id, body.code, body.recovery_code)

    await _code_step(rt, request, user.username, "verify", step)
    rt.limiter.succeeded(user.username, client_addr(request))
    return await issue_token(rt, user, True, ending=sid, answer=_Answer(request, response, cookie))


async def _code_step(
    rt: Runtime, request: Request, username: str, what: str, fn: Callable[[Tx], T]
) -> T:
    """A step that checks an operator's code, throttled as a log-in (429 after too many
    failures) and each refusal audited."""
    addr = client_addr(request)
    rt.limiter.check(username, addr)
    try:
        return await rt.step(fn)
    except Unauthorized as exc:
        rt.limiter.failed(username, addr)
        await _audit_refusal(rt, username, what, exc, addr)
        raise


async def _operator_session(
    rt: Runtime, request: Request, creds: HTTPAuthorizationCredentials | None
) -> tuple[Principal, str, bool]:
    """The operator, their session and whether it came in the cookie."""
    token = wants_token(request, creds, request.method)
    user, _, sid = await token_session(rt, token.token)
    if user.role != Role.OPERATOR:
        raise Forbidden("operators only", code="operators-only")
    return user, sid, token.cookie


@dataclass(frozen=True)
class _Answer:
    """Where a new session goes: the answer's body, or (a browser's) the session cookie."""

    request: Request
    response: Response
    cookie: bool


async def issue_token(
    rt: Runtime,
    user: Principal,
    second_factor: bool | None,
    pending: str | None = None,
    ending: str | None = None,
    answer: _Answer | None = None,
) -> dict[str, Any]:
    """Open a session for ``user`` (ending the session ``ending``) and its token's answer;
    ``pending``: what a limited token is for (``enrol`` or ``verify``); with a cookie
    ``answer``, the token is set in the session cookie and left out of the body."""
    issued = int(time.time())
    ttl_s = rt.config.token_ttl_s

    def step(tx: Tx) -> str:
        if ending is not None:
            sessions.revoke(tx, ending, user.id, issued)
        return sessions.open_session(tx.session, user.id, ttl_s, issued)

    sid = await rt.step(step)
    if ending is not None:
        rt.sessions.revoked([ending], user.id)
    # what this process's next requests of the session would read (at a room's opening,
    # hundreds of them on worker threads): known here
    rt.sessions.remember(sid, sessions.SessionState(user.id, False, float(issued)))
    rt.keep_principal(user)
    token = rt.signer.issue(
        user.id, user.role, ttl_s, at=issued, sid=sid, second_factor=second_factor
    )
    if answer is not None and answer.cookie:
        set_session_cookie(answer.request, answer.response, rt, token)
    return {
        "token": None if answer is not None and answer.cookie else token,
        "token_type": "bearer",  # nosec B105  # the OAuth2 token type, not a secret
        "expires_at": issued + ttl_s,
        "user": {"id": user.id, "username": user.username, "role": user.role},
        "second_factor": pending,
    }


def set_session_cookie(request: Request, response: Response, rt: Runtime, token: str) -> None:
    """The session cookie: ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other
    site's page sends it), ``Secure`` when the request came over TLS or ``behind_tls``. It has
    no ``Max-Age``: the browser drops it when it closes, and until then sends it even once
    its token has expired, so that the server can say the session expired (401
    ``token-expired``) rather than that nobody is logged in."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme in ("https", "wss") or rt.config.behind_tls,
    )


def clear_session_cookie(request: Request, response: Response, rt: Runtime) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme in ("https", "wss") or rt.config.behind_tls,
    )


@router.get("/api/auth/session", tags=["auth"], response_model=SessionOut)
async def current_session(
    request: Request,
    response: Response,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> dict[str, Any]:
    """Who this session is, for a page starting up: the user, or none and, when a session
    was sent but has ended, why (``token-expired``, ``session-idle``, ``token-revoked``,
    ``invalid-token``; the ended cookie is cleared). Always 200: a visitor who never logged
    in is not an error."""
    token = presented(request, creds)
    if token is None:
        return {"user": None, "ended": None}
    try:
        user, _, _ = await token_session(rt, token.token)
    except Unauthorized as exc:
        if token.cookie:
            clear_session_cookie(request, response, rt)
        return {"user": None, "ended": exc.code}
    return {"user": {"id": user.id, "username": user.username, "role": user.role}, "ended": None}


@router.post(
    "/api/auth/logout",
    tags=["auth"],
    status_code=204,
    responses=error_responses(401, 403),
)
async def logout(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> Response:
    """End the session on the server: its token (or cookie) is refused afterwards (401,
    ``token-revoked``) on HTTP and on the live feed, whose open sockets close (4401); the
    browser's cookie is cleared."""
    token = wants_token(request, creds, request.method)
    user, _, sid = await token_session(rt, token.token)
    at = time.time()
    await rt.step(lambda tx: sessions.revoke(tx, sid, user.id, at))
    rt.sessions.revoked([sid], user.id)
    answer = Response(status_code=204)
    clear_session_cookie(request, answer, rt)
    return answer


@router.post(
    "/api/auth/password",
    tags=["auth"],
    status_code=204,
    responses=error_responses(401, 403, 422, 429, 503),
)
async def change_password(
    body: PasswordIn,
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    rt: RuntimeDep,
) -> Response:
    """Change my password (the current one checked as a log-in is, and limited likewise):
    every other session of mine ends (their tokens are refused, their live feeds close);
    this one goes on."""
    token = wants_token(request, creds, request.method)
    user, _, sid = await token_session(rt, token.token)
    addr = client_addr(request)
    rt.limiter.check(user.username, addr)
    checked = await rt.hash_pool.run(lambda: check_login(rt, user.username, body.current_password))
    if checked is None or checked.id != user.id:
        rt.limiter.failed(user.username, addr)
        raise Unauthorized("the current password is not right", code="bad-credentials")
    rt.limiter.succeeded(user.username, addr)
    problem = password_problem(body.new_password, user.username)
    if problem is not None:
        raise Unprocessable(problem, code="weak-password")
    fresh = await rt.hash_pool.run(lambda: rt.passwords.hash(body.new_password))
    at = time.time()

    def step(tx: Tx) -> list[str]:
        tx.session.execute(sa.update(User).where(User.id == user.id).values(password_hash=fresh))
        return sessions.revoke_others(tx, user.id, sid, at)

    ended = await rt.step(step)
    rt.sessions.revoked(ended, user.id)
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


async def _is_operator(
    rt: Runtime, request: Request, creds: HTTPAuthorizationCredentials | None
) -> bool:
    token = presented(request, creds)
    if token is None:
        return False
    try:
        return (await token_user(rt, token.token))[0].role == Role.OPERATOR
    except ServiceError:
        return False
