"""What the routers share: the service's state from the app (``Depends``), the caller
(:data:`Player`, :data:`Operator`), the path and header parameter types, the documented error
responses, and the helpers for writes (idempotency keys) and orjson responses. A write runs as a
step on the writer, which retries what may be retried (:mod:`paigow.service.store.writer`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

import orjson
from fastapi import Depends, Header, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from paigow.service.accounts import sessions
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.accounts.credentials import USERNAME_PATTERN
from paigow.service.api import idempotency
from paigow.service.api.schemas import ErrorOut
from paigow.service.books import audit
from paigow.service.game import table_rows
from paigow.service.http_errors import BadRequest, Forbidden, Unauthorized
from paigow.service.live.feeds import FeedHub
from paigow.service.live.presence import Presence
from paigow.service.ops import telemetry
from paigow.service.ops.logs import USER
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role
from paigow.service.store.unit import Tx

# ----------------------------------------------------------------------------- the app's state
# ``create_app`` keeps them in ``app.state``; async so that FastAPI calls them on the event loop.


async def get_runtime(conn: HTTPConnection) -> Runtime:
    """The service's runtime (database, settings, limiters, event bus)."""
    rt: Runtime = conn.app.state.rt
    return rt


async def get_hub(conn: HTTPConnection) -> FeedHub:
    """The live feeds of this process's tables."""
    hub: FeedHub = conn.app.state.hub
    return hub


async def get_presence(conn: HTTPConnection) -> Presence:
    """Who is connected to which table."""
    presence: Presence = conn.app.state.presence
    return presence


async def get_states(conn: HTTPConnection) -> table_rows.PublicStates:
    """This process's cache of the tables' public states."""
    states: table_rows.PublicStates = conn.app.state.states
    return states


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
HubDep = Annotated[FeedHub, Depends(get_hub)]
PresenceDep = Annotated[Presence, Depends(get_presence)]
StatesDep = Annotated[table_rows.PublicStates, Depends(get_states)]

# The query parameters of the statements, reviews and reports (one spelling for every route).
FirstDay = Annotated[
    dt.date | None, Query(alias="from", description="First gaming day (YYYY-MM-DD)")
]
LastDay = Annotated[dt.date | None, Query(alias="to", description="Last gaming day (YYYY-MM-DD)")]
Format = Annotated[str, Query(alias="format", pattern="^(json|csv)$")]
PageNo = Annotated[int, Query(ge=1, le=10**6, description="Page, from 1")]

# ----------------------------------------------------------------------------- parameters
TableId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The table's id")]
RoundId = Annotated[str, Path(pattern=r"^[0-9a-f]{1,32}$", description="The round's id")]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
IdemHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[A-Za-z0-9_.:\-]{1,100}$",
        description="The request's idempotency key (or the body's idempotency_key)",
    ),
]


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The documented error responses of a route (``responses=``), by status code."""
    text = {
        400: "Bad request",
        401: "Not logged in, or the token is invalid or expired",
        403: "Not allowed for this user",
        404: "Not found",
        409: "Not possible in the current state (or an idempotency key reused)",
        413: "Request body too large",
        422: "Invalid input",
        429: "Too many attempts (log-ins, registrations)",
        503: "Too busy: retry after Retry-After seconds",
    }
    return {c: {"model": ErrorOut, "description": text[c]} for c in codes}


# ----------------------------------------------------------------------------- users
bearer = HTTPBearer(auto_error=False, description="The token from /api/auth/login")


async def token_user(rt: Runtime, token: str) -> tuple[Principal, float]:
    """The token's user and when the token expires (see :func:`token_session`)."""
    user, expires, _ = await token_session(rt, token)
    return user, expires


async def token_session(rt: Runtime, token: str) -> tuple[Principal, float, str]:
    """The token's user, when the token expires and its session id: the user and the session
    from this process's caches, read by :meth:`Runtime.request_read` when not.
    401 for a bad, expired or revoked token, or a user who no longer exists."""
    claims = rt.signer.verify(token)
    sid = claims.get("sid")
    if not isinstance(sid, str):
        raise Unauthorized("the token is not valid", code="invalid-token")
    state = rt.sessions.cached(sid)
    if state is None:
        state = await rt.session_state(sid)
    sessions.check(state, claims["sub"], rt.config.session_idle_s, time.time())
    user = rt.cached_principal(claims["sub"])
    if user is None:
        user = await rt.user_principal(claims["sub"])
    if user is None:
        raise Unauthorized("the token's user no longer exists", code="invalid-token")
    second_factor = claims.get("sf")
    if isinstance(second_factor, bool):
        user = dataclasses.replace(user, second_factor=second_factor)
    USER.set(user.username)  # the request's log lines carry it from here
    return user, float(claims["exp"]), sid


SESSION_COOKIE: Final = "paigow_session"
"""The browser's session cookie (``HttpOnly``, ``SameSite=Strict``): it holds the session's
token, which the page's scripts never see."""
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Presented:
    """The token a request presents, and whether it came in the session cookie (a browser's)
    rather than in ``Authorization: Bearer`` (a script's)."""

    token: str
    cookie: bool


def presented(conn: HTTPConnection, creds: HTTPAuthorizationCredentials | None) -> Presented | None:
    """The request's token: a bearer token if one is sent, else the session cookie's."""
    if creds is not None and creds.scheme.lower() == "bearer":
        return Presented(creds.credentials, cookie=False)
    cookie = conn.cookies.get(SESSION_COOKIE)
    return Presented(cookie, cookie=True) if cookie else None


def same_origin(conn: HTTPConnection) -> bool:
    """Whether the request's ``Origin`` is this service itself (its host and port as the
    request addressed them). A browser sends ``Origin`` with every request that changes
    something and with every WebSocket; a request without one is not same-origin.

    >>> from starlette.requests import Request
    >>> def req(**h: str) -> Request:
    ...     raw = [(k.encode(), v.encode()) for k, v in h.items()]
    ...     return Request({"type": "http", "method": "POST", "headers": raw})
    >>> same_origin(req(host="t.example:8000", origin="http://t.example:8000"))
    True
    >>> same_origin(req(host="t.example:8000", origin="https://evil.example"))
    False
    >>> same_origin(req(host="t.example:8000"))
    False
    """
    origin, host = conn.headers.get("origin"), conn.headers.get("host")
    if not origin or not host or origin == "null":
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


def check_origin(conn: HTTPConnection) -> None:
    """403 ``bad-origin`` unless the request comes from this service's own pages."""
    if not same_origin(conn):
        raise Forbidden(
            "this request did not come from this service's own pages (its Origin header is "
            "another site's, or missing): refused",
            code="bad-origin",
        )


def wants_token(
    conn: HTTPConnection, creds: HTTPAuthorizationCredentials | None, method: str
) -> Presented:
    """The request's token (401 ``not-logged-in`` without one); a browser's cookie on a request
    that changes something must come from this service's own pages (403 ``bad-origin``)."""
    token = presented(conn, creds)
    if token is None:
        raise Unauthorized(
            "log in first (or send Authorization: Bearer <token>)",
            code="not-logged-in",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if token.cookie and method not in SAFE_METHODS:
        check_origin(conn)
    return token


async def current_user(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    """The user of the request's token or session cookie (see :func:`token_user`)."""
    token = wants_token(request, creds, request.method)
    rt: Runtime = request.app.state.rt
    user, _ = await token_user(rt, token.token)
    return user


async def operator(
    request: Request, user: Annotated[Principal, Depends(current_user)], rt: RuntimeDep
) -> Principal:
    """An operator's token, with their second factor passed when the settings ask it (403
    ``second-factor-required``, audited; see ``operator_second_factor``)."""
    if user.role != Role.OPERATOR:
        raise Forbidden("operators only", code="operators-only")
    mode = rt.second_factor
    if mode != "off" and (
        user.second_factor is False or (mode == "required" and user.second_factor is not True)
    ):
        details = {
            "code": "second-factor-required",
            "route": f"{request.method} {request.url.path}",
        }
        await rt.step(
            lambda tx: audit.record(
                tx.session, user.username, "refused", f"user:{user.username}", details
            )
        )
        raise Forbidden(
            "this needs your second factor: enrol one (POST /api/auth/totp/enrol, then "
            "/api/auth/totp/confirm) or verify your code (POST /api/auth/totp/verify)",
            code="second-factor-required",
        )
    return user


Player = Annotated[Principal, Depends(current_user)]
Operator = Annotated[Principal, Depends(operator)]


def client_addr(request: Request) -> str:
    """The client's address: the TCP peer, or what a trusted proxy forwarded (uvicorn believes
    ``X-Forwarded-For`` only from the proxies ``paigow serve --forwarded-allow-ips`` names)."""
    return request.client.host if request.client else "unknown"


# ----------------------------------------------------------------------------- writes
def key_of(body_key: str | None, header_key: str | None, required: bool) -> str | None:
    """The request's idempotency key, from the body or the header (400 if they differ, or if
    none comes and one is ``required``)."""
    if body_key and header_key and body_key != header_key:
        raise BadRequest(
            "the Idempotency-Key header and the body's idempotency_key differ",
            code="idempotency-key-mismatch",
        )
    key = body_key or header_key
    if key is None and required:
        raise BadRequest(
            "this request moves money: send an Idempotency-Key header or idempotency_key",
            code="idempotency-key-required",
        )
    return key


def once(
    user: Principal,
    key: str | None,
    route: str,
    body: dict[str, Any],
    action: Callable[[Tx], dict[str, Any]],
    ahead: Callable[[Tx], None] | None = None,
    *,
    ttl_s: float = idempotency.TTL_S,
) -> Callable[[Tx], dict[str, Any]]:
    """``action`` as a step that runs once per idempotency key: a retry with the same key and
    request gets the stored response (a concurrent retry waits for the first, then finds it).
    ``ahead``: sends the reads ``action`` will make with the key's look-up (:meth:`Tx.ahead`),
    after the key's lock, so that both take one round trip; ``ttl_s``: how long a stored key
    holds."""
    if key is None:
        return action
    digest = idempotency.request_hash(route, body)

    def step(tx: Tx) -> dict[str, Any]:
        idempotency.lock_key(tx, user.id, key)
        if ahead is not None:
            ahead(tx)
        stored = idempotency.lookup(tx, user.id, key, digest, ttl_s=ttl_s)
        if stored is not None:
            return stored
        result = action(tx)
        idempotency.store(tx, user.id, key, digest, result, ttl_s=ttl_s)
        return result

    return step


async def idempotent(
    rt: Runtime,
    user: Principal,
    key: str | None,
    route: str,
    body: dict[str, Any],
    action: Callable[[Tx], dict[str, Any]],
    ahead: Callable[[Tx], None] | None = None,
) -> dict[str, Any]:
    """Run ``action`` as a step on the writer; with a key, once (see :func:`once`)."""
    ttl_s = float(rt.config.idempotency_ttl_s)
    started = time.perf_counter()
    try:
        return await rt.step(once(user, key, route, body, action, ahead, ttl_s=ttl_s))
    finally:  # the step's time, refused or not (in memory: no I/O)
        telemetry.step_done(route.split("/", 1)[0], time.perf_counter() - started)


def json_response(body: Any) -> Response:
    """A JSON response rendered by orjson (for bodies already in their response model's shape)."""
    return Response(orjson.dumps(body), media_type="application/json")
