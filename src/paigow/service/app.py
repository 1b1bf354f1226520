"""The FastAPI application: routes under ``/api``, the live feed at ``/ws/tables/{id}``.

``create_app(database_url, ...)`` builds the app; its lifespan migrates the database, starts the
event bus and (unless told not to) the dealer supervisor, which takes the dealer lock of each open
table and resumes any round left in progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

import orjson
import sqlalchemy as sa
from fastapi import (
    Depends,
    FastAPI,
    Header,
    Path,
    Query,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paigow.service import audit, idempotency, ledger, rounds, seats, tables
from paigow.service.auth import Principal
from paigow.service.config import ServiceConfig
from paigow.service.credentials import password_problem, username_key
from paigow.service.db import Account, RoundWager, Seat, User, now
from paigow.service.errors import (
    BadRequest,
    Forbidden,
    NotFound,
    ServiceError,
    Unauthorized,
    Unprocessable,
)
from paigow.service.feeds import FeedHub, Presence, pump, watch_wallet
from paigow.service.runtime import Runtime
from paigow.service.schemas import (
    CloseOut,
    CreateTableIn,
    ErrorOut,
    HandOut,
    HealthOut,
    HintOut,
    LedgerOut,
    LoginIn,
    MeOut,
    MoneyIn,
    MoneyOut,
    RegisterIn,
    RoundOut,
    SeatOut,
    SetIn,
    SetOut,
    SitIn,
    TableOut,
    TokenOut,
    UserOut,
    WagerIn,
    WagerOut,
)
from paigow.service.views import view_log

log = logging.getLogger("paigow.service")
_PID = str(os.getpid())
T = TypeVar("T")

TableId = Annotated[int, Path(ge=1, le=2**31 - 1, description="The table's id")]
RoundId = Annotated[str, Path(pattern=r"^[0-9a-f]{1,32}$", description="The round's id")]
UsernamePath = Annotated[str, Path(pattern=r"^[A-Za-z0-9_.\-]{3,32}$")]
IdemHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[A-Za-z0-9_.:\-]{1,100}$",
        description="The request's idempotency key (or the body's idempotency_key)",
    ),
]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
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


# ----------------------------------------------------------------------------- body size limit
class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, whether or not they declare a length."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await self._refuse(send)
                    return
        seen = 0
        refused = False

        async def limited() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            if refused:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = b'{"detail":"request body too large","code":"too-large"}'
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class _RedactTokens(logging.Filter):
    """Keep tokens out of the logs (WebSocket URLs carry ``?token=``)."""

    pattern = re.compile(r"(token=)[^&\s\"']+")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                self.pattern.sub(r"\1<redacted>", a) if isinstance(a, str) else a
                for a in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        if isinstance(record.msg, str):
            record.msg = self.pattern.sub(r"\1<redacted>", record.msg)
        return True


def install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn", "paigow.service"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _RedactTokens) for f in logger.filters):
            logger.addFilter(_RedactTokens())


# ----------------------------------------------------------------------------- users
bearer = HTTPBearer(auto_error=False, description="The token from /api/auth/login")


def user_from_token(rt: Runtime, token: str) -> Principal:
    claims = rt.signer.verify(token)
    user = rt.principal(claims["sub"])
    if user is None:
        raise Unauthorized("the token's user no longer exists", code="invalid-token")
    return user


async def current_user(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    """The token's user: on the event loop (no hop to a worker thread) unless the user must be
    read from the database."""
    if creds is None or creds.scheme.lower() != "bearer":
        raise Unauthorized(
            "log in first: send Authorization: Bearer <token>",
            code="not-logged-in",
            headers={"WWW-Authenticate": "Bearer"},
        )
    rt: Runtime = request.app.state.rt
    claims = rt.signer.verify(creds.credentials)
    user = rt.cached_principal(claims["sub"])
    if user is None:
        user = await asyncio.to_thread(rt.principal, claims["sub"])
    if user is None:
        raise Unauthorized("the token's user no longer exists", code="invalid-token")
    return user


async def operator(user: Annotated[Principal, Depends(current_user)]) -> Principal:
    if user.role != "operator":
        raise Forbidden("operators only", code="operators-only")
    return user


Player = Annotated[Principal, Depends(current_user)]
Operator = Annotated[Principal, Depends(operator)]


# ----------------------------------------------------------------------------- the app
def create_app(
    database_url: str | None = None, *, config: ServiceConfig | None = None, **overrides: Any
) -> FastAPI:
    """The service as an ASGI app. Give a database URL (and optional settings), or a config."""
    if config is None:
        if database_url is None:
            raise ValueError("create_app needs a database URL or a config")
        config = ServiceConfig.from_env(database_url, **overrides)
    rt = Runtime(config)
    hub = FeedHub(rt)
    presence = Presence(rt)
    states = tables.PublicStates()
    install_log_redaction()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.worker_threads:
            import anyio.to_thread

            anyio.to_thread.current_default_thread_limiter().total_tokens = config.worker_threads
        await asyncio.to_thread(rt.db.migrate)
        await asyncio.to_thread(lambda: rt.signer)
        await rt.bus.start()
        presence.start()
        rt.bus.subscribe(0, states.on_notice)  # 0: every table's notices
        supervisor = None
        if config.run_dealers:
            from paigow.service.dealer import DealerSupervisor

            supervisor = DealerSupervisor(rt)
            await supervisor.start()
        app.state.supervisor = supervisor
        try:
            yield
        finally:
            hub.stop()
            presence.stop()
            rt.hash_pool.shutdown()
            if supervisor is not None:
                await supervisor.stop()
            await rt.bus.stop()
            rt.db.dispose()

    app = FastAPI(
        title="paigow table service",
        version="0.1.0",
        description=(
            "Live pai gow poker tables under Indiana's 68 IAC 10-9: accounts, wallets in cents "
            "with a double-entry ledger, a virtual dealer per table, game recall and audit. "
            "Authenticate with `Authorization: Bearer <token>` from `/api/auth/login`. Live "
            "table events: WebSocket `/ws/tables/{id}?token=...` (token optional: spectators)."
        ),
        lifespan=lifespan,
        openapi_tags=[
            {"name": "auth", "description": "Register and log in"},
            {"name": "tables", "description": "Tables, seats, wagers and hands"},
            {"name": "recall", "description": "Game recall: rounds with their event logs"},
            {"name": "admin", "description": "Operators only"},
            {"name": "health", "description": "Liveness"},
        ],
    )
    app.state.rt = rt
    app.state.hub = hub
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)

    # ------------------------------------------------------------------ errors
    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        return JSONResponse({"detail": detail, "code": "invalid"}, status_code=422)

    @app.exception_handler(OperationalError)
    async def _busy(request: Request, exc: OperationalError) -> JSONResponse:
        log.warning("database busy: %s", type(exc.orig).__name__)
        return JSONResponse(
            {"detail": "the database is busy; retry", "code": "busy"},
            status_code=503,
            headers={"Retry-After": "1"},
        )

    # ------------------------------------------------------------------ helpers
    def retrying(fn: Callable[[], T]) -> T:
        """Run a write (a function that opens its own transaction), retried on a deadlock, a
        serialization failure or a unique-key race (PostgreSQL under load)."""
        for attempt in range(4):
            try:
                return fn()
            except (IntegrityError, OperationalError, DBAPIError) as exc:
                if attempt == 3 or not _retryable(exc):
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def key_of(body_key: str | None, header_key: str | None, required: bool) -> str | None:
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

    def idempotent(
        user: Principal,
        key: str | None,
        route: str,
        body: dict[str, Any],
        lock: Callable[[Any], None],
        action: Callable[[Any], dict[str, Any]],
    ) -> dict[str, Any]:
        digest = idempotency.request_hash(route, body)

        def run() -> dict[str, Any]:
            with rt.write() as s:
                if key is not None:  # a concurrent retry waits here, then finds the response
                    idempotency.lock_key(s, user.id, key)
                lock(s)
                if key is not None:
                    stored = idempotency.lookup(s, user.id, key, digest)
                    if stored is not None:
                        return stored
                result = action(s)
                if key is not None:
                    idempotency.store(s, user.id, key, digest, result)
                return result

        return retrying(run)

    # ------------------------------------------------------------------ public table states
    def read_states(
        ids: list[int] | None, include_closed: bool
    ) -> tuple[list[int], dict[int, dict[str, Any]]]:
        with rt.db.read() as s:
            return tables.read_states(s, ids, include_closed)

    async def public_states(
        ids: list[int] | None, include_closed: bool = False
    ) -> list[dict[str, Any]]:
        """Public table states from this process's cache (kept until a table notice), the
        missing ones read in one go."""
        t = now()
        if ids is None:
            ids = states.ids(include_closed, t)
        if ids is None:
            list_version, versions = states.list_version(), states.versions()
            listed, got = await asyncio.to_thread(read_states, None, include_closed)
            states.keep_ids(include_closed, list_version, listed, t)
            for tid, state in got.items():
                states.keep(tid, versions.get(tid, 0), state, t)
            return [got[i] for i in listed if i in got]
        found = {i: st for i in ids if (st := states.get(i, t)) is not None}
        missing = [i for i in ids if i not in found]
        if missing:
            versions = states.versions()
            _, got = await asyncio.to_thread(read_states, missing, True)
            for tid, state in got.items():
                states.keep(tid, versions.get(tid, 0), state, t)
            found.update(got)
        t = now()
        return [tables.with_time_left(found[i], t) for i in ids if i in found]

    # ------------------------------------------------------------------ health
    @app.get("/api/health", tags=["health"], response_model=HealthOut)
    async def health(response: Response) -> dict[str, Any]:
        """Answers once the service serves (header ``X-Paigow-Worker``: the process that
        answered, when several serve one port)."""
        response.headers["X-Paigow-Worker"] = _PID
        return {"status": "ok"}

    # ------------------------------------------------------------------ auth
    @app.post(
        "/api/auth/register",
        tags=["auth"],
        status_code=201,
        response_model=UserOut,
        responses=_errors(409, 422, 429, 503),
    )
    async def register(
        body: RegisterIn,
        request: Request,
        creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> dict[str, Any]:
        """Register a player (operators are created with `paigow admin create`). Usernames are
        unique whatever their case; a password of only spaces or a commonly used one is refused
        (422, saying why). Registrations per client address are limited (429) unless an
        operator's token comes with the request."""
        if not await asyncio.to_thread(_is_operator, rt, creds):
            rt.registrations.hit(client_addr(request))
        problem = password_problem(body.password, body.username)
        if problem is not None:
            raise Unprocessable(problem, code="weak-password")
        password_hash = await rt.hash_pool.run(lambda: rt.passwords.hash(body.password))

        def run() -> dict[str, Any]:
            with rt.write() as s:
                return create_user(s, body.username, password_hash, "player")

        return await asyncio.to_thread(retrying, run)

    def check_login(username: str, password: str) -> User | None:
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
            with rt.write() as s:
                s.execute(sa.update(User).where(User.id == user.id).values(password_hash=fresh))
        return user

    @app.post(
        "/api/auth/login",
        tags=["auth"],
        response_model=TokenOut,
        responses=_errors(401, 422, 429, 503),
    )
    async def login(body: LoginIn, request: Request) -> dict[str, Any]:
        """Exchange a username (any case) and password for a signed token that expires. Failed
        attempts are limited per (username, client address) and per address (429): nobody locks
        another user out. The password is checked on a bounded pool of its own (503 when full)."""
        addr = client_addr(request)
        rt.limiter.check(body.username, addr)
        user = await rt.hash_pool.run(lambda: check_login(body.username, body.password))
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

    @app.get("/api/me", tags=["auth"], response_model=MeOut, responses=_errors(401))
    def me(user: Player) -> dict[str, Any]:
        """Who I am, my balance (cents) and where I sit."""
        with rt.db.read() as s:
            balance = ledger.balance(s, ledger.wallet(user.username))
            seats = s.execute(
                sa.select(Seat.table_id, Seat.spot).where(Seat.user_id == user.id)
            ).all()
        return {
            "id": user.id,
            "username": user.username,
            "role": user.role,
            "balance": balance,
            "seats": [{"table_id": t, "spot": p} for t, p in seats],
        }

    # ------------------------------------------------------------------ tables
    @app.get("/api/tables", tags=["tables"], response_model=list[TableOut])
    async def list_tables(
        include_closed: Annotated[bool, Query(description="Also list closed tables")] = False,
    ) -> Response:
        """Every table with its posted commission, limits, house way, spots and current round."""
        return _json(await public_states(None, include_closed))

    @app.get(
        "/api/tables/{table_id}",
        tags=["tables"],
        response_model=TableOut,
        responses=_errors(404, 422),
    )
    async def get_table(table_id: TableId) -> Response:
        """A table's public state: posted commission, limits, house way, start method, mode,
        spots, the current round's phase and time left."""
        found = await public_states([table_id])
        if not found:
            raise NotFound(f"no table {table_id}", code="no-table")
        return _json(found[0])

    @app.post(
        "/api/tables/{table_id}/sit",
        tags=["tables"],
        response_model=SeatOut,
        responses=_errors(401, 404, 409, 422),
    )
    def sit(table_id: TableId, body: SitIn, user: Player) -> dict[str, Any]:
        """Sit on a free spot (one spot per player per table, a bounded number in all), with
        at least the table's minimum wager in your wallet. A seat is freed when its player
        wagers in none of the last rounds or has no connection to the table for a while."""

        def run() -> dict[str, Any]:
            with rt.write() as s:
                return seats.sit(s, table_id, user, body.spot, rt.config)

        return retrying(run)

    @app.post(
        "/api/tables/{table_id}/leave",
        tags=["tables"],
        response_model=SeatOut,
        responses=_errors(401, 404, 409, 422),
    )
    def leave(table_id: TableId, user: Player) -> dict[str, Any]:
        """Leave your spot. A wager in play stays in play (its hand is set by the house way at
        the time limit unless you set it) and its result goes to your wallet."""

        def run() -> dict[str, Any]:
            with rt.write() as s:
                return tables.leave(s, table_id, user)

        return retrying(run)

    @app.post(
        "/api/tables/{table_id}/wager",
        tags=["tables"],
        response_model=WagerOut,
        responses=_errors(400, 401, 404, 409, 422),
    )
    def wager(
        table_id: TableId, body: WagerIn, user: Player, idempotency_key: IdemHeader = None
    ) -> dict[str, Any]:
        """Wager on your spot (cents, within the table's limits); the amount is reserved from
        your wallet at once. The first wager opens a round; betting closes when every seated
        player has wagered or the betting time has passed since the first wager."""
        key = key_of(body.idempotency_key, idempotency_key, required=True)
        return idempotent(
            user,
            key,
            f"wager/{table_id}",
            {"amount": body.amount},
            lambda s: None,
            lambda s: rounds.place_wager(s, table_id, user, body.amount),
        )

    @app.get(
        "/api/tables/{table_id}/hand",
        tags=["tables"],
        response_model=HandOut,
        responses=_errors(401, 404, 409, 422),
    )
    def hand(table_id: TableId, user: Player) -> dict[str, Any]:
        """Your seven cards in the current round (and your setting once made)."""
        with rt.db.read() as s:
            return rounds.my_hand(s, table_id, user)

    @app.post(
        "/api/tables/{table_id}/set",
        tags=["tables"],
        response_model=SetOut,
        responses=_errors(400, 401, 404, 409, 422),
    )
    def set_hand(
        table_id: TableId, body: SetIn, user: Player, idempotency_key: IdemHeader = None
    ) -> dict[str, Any]:
        """Set your hand by naming the two cards of the low hand. A foul (the low hand outranks
        the high hand) is refused with 409 unless `confirm_foul` is true; confirmed, it is
        accepted and loses (Indiana, 68 IAC 10-9-13(a))."""
        key = key_of(body.idempotency_key, idempotency_key, required=False)
        return idempotent(
            user,
            key,
            f"set/{table_id}",
            {"low": body.low, "confirm_foul": body.confirm_foul, "round_id": body.round_id},
            lambda s: None,
            lambda s: rounds.set_hand(
                s, table_id, user, body.low, body.confirm_foul, body.round_id
            ),
        )

    @app.get(
        "/api/tables/{table_id}/hint",
        tags=["tables"],
        response_model=HintOut,
        responses=_errors(401, 403, 404, 409, 422),
    )
    def hint(table_id: TableId, user: Player) -> dict[str, Any]:
        """Practice tables only: the house way's setting of your hand and the rule that made it
        (403 at casino tables, where players set without help)."""
        with rt.db.read() as s:
            return rounds.hint(s, table_id, user)

    @app.get(
        "/api/tables/{table_id}/rounds",
        tags=["recall"],
        response_model=list[RoundOut],
        responses=_errors(401, 404, 422),
    )
    def table_rounds(table_id: TableId, user: Player) -> list[dict[str, Any]]:
        """The table's last ten rounds with their logs (see GET /api/rounds/{round_id})."""
        with rt.db.read() as s:
            return rounds.last_rounds(s, table_id, user)

    @app.get(
        "/api/rounds/{round_id}",
        tags=["recall"],
        response_model=RoundOut,
        responses=_errors(401, 404, 422),
    )
    def get_round(round_id: RoundId, user: Player) -> dict[str, Any]:
        """A round with its event log. Operators get the complete log (deck order included,
        replayable by the rules engine) once the round is over; players see their own cards,
        the public events, and every setting from the showdown."""
        with rt.db.read() as s:
            return rounds.round_view(s, round_id, user)

    # ------------------------------------------------------------------ admin
    @app.post(
        "/api/admin/tables",
        tags=["admin"],
        status_code=201,
        response_model=TableOut,
        responses=_errors(401, 403, 422),
    )
    def create_table(body: CreateTableIn, user: Operator) -> dict[str, Any]:
        """Open a table with its ruleset (commission at most 5%, posted), house way, start
        method, limits, time limits and mode."""
        way = tables.house_way_from(
            body.house_way if isinstance(body.house_way, str) else body.house_way.model_dump()
        )
        ruleset = tables.build_ruleset(
            commission=body.commission,
            house_way=way,
            start=body.start,
            foul=body.foul,
            wheel=body.wheel,
            min_wager=body.min_wager,
            max_wager=body.max_wager,
            setting_time_ms=body.setting_time_ms,
        )

        def run() -> dict[str, Any]:
            with rt.write() as s:
                t = tables.create_table(
                    s,
                    operator=user.username,
                    name=body.name,
                    ruleset=ruleset,
                    house_way=way,
                    mode=body.mode,
                    betting_time_ms=body.betting_time_ms,
                    setting_time_ms=body.setting_time_ms,
                )
                return tables.public_state(s, t)

        return retrying(run)

    @app.post(
        "/api/admin/tables/{table_id}/close",
        tags=["admin"],
        response_model=CloseOut,
        responses=_errors(401, 403, 404, 422),
    )
    def close_table(table_id: TableId, user: Operator) -> dict[str, Any]:
        """Close a table: no new wagers; a round still in betting is voided with every wager
        returned; a dealt round is played out; then the seats are cleared."""

        def run() -> dict[str, Any]:
            with rt.write() as s:
                return rounds.close_table(s, table_id, user.username)

        return retrying(run)

    def move_money(
        kind: str, username: str, body: MoneyIn, user: Principal, header: str | None
    ) -> dict[str, Any]:
        key = key_of(body.idempotency_key, header, required=True)
        account = ledger.wallet(username)

        def lock(s: Any) -> None:
            found = s.execute(sa.select(User.id).where(User.username == username)).first()
            if found is None:
                raise NotFound(f"no user {username!r}", code="no-user")
            s.execute(sa.select(Account.name).where(Account.name == account).with_for_update())

        def action(s: Any) -> dict[str, Any]:
            if kind == "credit":
                move = ledger.Movement(ledger.CREDITS, account, body.amount, memo="credit")
            else:
                move = ledger.Movement(account, ledger.CREDITS, body.amount, memo="debit")
            txn = ledger.post(
                s, kind, [move], actor=user.username, amount=body.amount, reference=username
            )
            audit.record(
                s, user.username, kind, account, {"amount": body.amount, "transaction": txn}
            )
            return {
                "username": username,
                "amount": body.amount,
                "balance": ledger.balance(s, account),
                "transaction_id": txn,
            }

        return idempotent(user, key, f"{kind}/{username}", {"amount": body.amount}, lock, action)

    @app.post(
        "/api/admin/wallets/{username}/credit",
        tags=["admin"],
        response_model=MoneyOut,
        responses=_errors(400, 401, 403, 404, 409, 422),
    )
    def credit(
        username: UsernamePath, body: MoneyIn, user: Operator, idempotency_key: IdemHeader = None
    ) -> dict[str, Any]:
        """Credit a wallet (cents). Idempotent by key."""
        return move_money("credit", username, body, user, idempotency_key)

    @app.post(
        "/api/admin/wallets/{username}/debit",
        tags=["admin"],
        response_model=MoneyOut,
        responses=_errors(400, 401, 403, 404, 409, 422),
    )
    def debit(
        username: UsernamePath, body: MoneyIn, user: Operator, idempotency_key: IdemHeader = None
    ) -> dict[str, Any]:
        """Debit a wallet (cents; never below zero: 409). Idempotent by key."""
        return move_money("debit", username, body, user, idempotency_key)

    @app.get(
        "/api/admin/audit",
        tags=["admin"],
        responses={
            200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"},
            **_errors(401, 403, 422),
        },
    )
    def audit_export(
        user: Operator,
        after_id: Annotated[
            int, Query(ge=0, le=2**62, description="Only records after this id")
        ] = 0,
    ) -> StreamingResponse:
        """The audit log (operator actions and faults) as JSON lines, oldest first."""
        return StreamingResponse(
            audit.export(rt.db, after_id=after_id), media_type="application/x-ndjson"
        )

    @app.get(
        "/api/admin/ledger", tags=["admin"], response_model=LedgerOut, responses=_errors(401, 403)
    )
    def ledger_check(user: Operator) -> dict[str, Any]:
        """Check the ledger: every pair of entries balances, every balance is the sum of its
        entries, and the accounts hold exactly what operators credited."""
        with rt.db.read() as s:
            if rt.db.is_postgres:
                s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            return ledger.check(s).to_dict()

    # ------------------------------------------------------------------ WebSocket
    @app.websocket("/ws/tables/{table_id}")
    async def table_feed(websocket: WebSocket, table_id: int, token: str | None = None) -> None:
        """Live table events, filtered for the viewer (a player sees only their own cards).
        Closed with 4401 when the token expires, 4429 beyond the connections allowed per user
        or per address."""
        await websocket.accept()
        viewer: Principal | None = None
        expires: float | None = None
        if token:
            try:
                viewer, expires = await asyncio.to_thread(_ws_viewer, rt, token)
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
        try:
            snapshot = await asyncio.to_thread(_snapshot, rt, table_id, viewer)
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
            try:
                await pump(websocket, queue, receiver, expires, viewer_id, (seen_number, seen_seq))
            finally:
                receiver.cancel()
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            if unwatch is not None:
                unwatch()
            feed.unsubscribe(queue)
            snapshot = None
            rt.ws_caps.release(viewer_key, addr)
            if viewer is not None:
                presence.remove(table_id, viewer.id)

    from paigow.service.web import mount_web

    mount_web(app)  # the browser table: /, /static, /api/web/*
    from paigow.service.routes_floor import router as floor_router

    app.include_router(floor_router)  # the operator's floor, reports, players' limits
    return app


async def _drain(websocket: WebSocket) -> None:
    """Read (and answer pings from) the client until it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            text = await websocket.receive_text()
            if text.strip().lower() == "ping":
                await websocket.send_json({"type": "pong"})


def _snapshot(rt: Runtime, table_id: int, viewer: Principal | None) -> dict[str, Any] | None:
    from paigow.service.db import GameTable, RoundRow

    with rt.db.read() as s:
        table = s.get(GameTable, table_id)
        if table is None:
            return None
        state = tables.public_state(s, table)
        row = s.execute(
            sa.select(RoundRow)
            .where(RoundRow.table_id == table_id)
            .order_by(RoundRow.number.desc())
            .limit(1)
        ).scalar_one_or_none()
        round_part = None
        if row is not None:
            events = rounds.load_events(s, row.id)
            owners = {
                spot: uid
                for spot, uid in s.execute(
                    sa.select(RoundWager.spot, RoundWager.user_id).where(
                        RoundWager.round_id == row.id
                    )
                ).all()
            }
            mine = {sp for sp, uid in owners.items() if viewer is not None and uid == viewer.id}
            names = dict(
                s.execute(
                    sa.select(User.id, User.username).where(User.id.in_(owners.values()))
                ).all()
            )
            round_part = {
                "id": row.id,
                "number": row.number,
                "phase": row.phase,
                "log_length": len(events),
                "log": view_log(events, mine),
                "players": {str(sp): names.get(uid) for sp, uid in owners.items()},
            }
    return {
        "type": "hello",
        "table": state,
        "viewer": None if viewer is None else {"username": viewer.username, "role": viewer.role},
        "round": round_part,
    }


def client_addr(request: Request) -> str:
    """The client's address: the TCP peer, or what a trusted proxy forwarded (uvicorn believes
    ``X-Forwarded-For`` only from the proxies ``paigow serve --forwarded-allow-ips`` names)."""
    return request.client.host if request.client else "unknown"


def _is_operator(rt: Runtime, creds: HTTPAuthorizationCredentials | None) -> bool:
    if creds is None or creds.scheme.lower() != "bearer":
        return False
    try:
        return user_from_token(rt, creds.credentials).role == "operator"
    except ServiceError:
        return False


def _ws_viewer(rt: Runtime, token: str) -> tuple[Principal, float]:
    """The token's user and when the token expires."""
    claims = rt.signer.verify(token)
    user = rt.principal(claims["sub"])
    if user is None:
        raise Unauthorized("the token's user no longer exists", code="invalid-token")
    return user, float(claims["exp"])


def create_user(session: Any, username: str, password_hash: str, role: str) -> dict[str, Any]:
    """A new user with a wallet; 409 when the name is taken in any case or Unicode form."""
    from paigow.service.errors import Conflict

    key = username_key(username)
    exists = session.execute(
        sa.select(User.id).where(sa.or_(User.username == username, User.username_key == key))
    ).first()
    if exists is not None:
        raise Conflict(f"username {username!r} is taken", code="username-taken")
    user = User(
        username=username,
        username_key=key,
        password_hash=password_hash,
        role=role,
        created_at=now(),
    )
    session.add(user)
    session.flush()
    ledger.open_wallet(session, username, user.id)
    return {"id": user.id, "username": username, "role": role}


def _json(body: Any) -> Response:
    """A JSON response rendered by orjson (for bodies already in their response model's shape)."""
    return Response(orjson.dumps(body), media_type="application/json")


def _retryable(exc: Exception) -> bool:
    """Deadlocks, serialization failures and unique-key races (PostgreSQL); a locked SQLite."""
    orig = getattr(exc, "orig", None)
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in ("40001", "40P01", "23505"):
        return True
    return isinstance(exc, OperationalError) and "locked" in str(orig)
