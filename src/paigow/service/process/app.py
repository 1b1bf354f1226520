"""The FastAPI application: routes under ``/api``, the live feed at ``/ws/tables/{id}``.

``create_app(database_url, ...)`` builds the app: the runtime, the middleware, the error handlers
and one router per resource (``routes_health``, ``routes_auth``, ``routes_me``, ``routes_tables``,
``routes_recall``, ``routes_admin``, ``routes_ws``, ``routes_floor``, and ``routes_web``: the
browser table, whose files it mounts at ``/static``), which share :mod:`paigow.service.api.deps`.
Its lifespan migrates the database, starts the event bus and (unless told not to) the dealer
supervisor, which takes the dealer lock of each open table and resumes any round left in progress.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import InternalError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paigow.errors import PaigowError
from paigow.service.api.deps import current_user, operator
from paigow.service.api.routes import admin as routes_admin
from paigow.service.api.routes import auth as routes_auth
from paigow.service.api.routes import floor as routes_floor
from paigow.service.api.routes import health as routes_health
from paigow.service.api.routes import me as routes_me
from paigow.service.api.routes import metrics as routes_metrics
from paigow.service.api.routes import recall as routes_recall
from paigow.service.api.routes import tables as routes_tables
from paigow.service.api.routes import web as routes_web
from paigow.service.api.routes import ws as routes_ws
from paigow.service.config import ServiceConfig
from paigow.service.floor.edges import shutdown_edge_worker
from paigow.service.floor.prices import shutdown_price_worker
from paigow.service.game import table_rows
from paigow.service.http_errors import ServiceError, core_error
from paigow.service.live.feeds import FeedHub
from paigow.service.live.presence import Presence
from paigow.service.ops import telemetry
from paigow.service.ops.headers import SecurityHeaders
from paigow.service.ops.logs import RequestIds
from paigow.service.runtime import Runtime, settle_memory
from paigow.service.store import faults
from paigow.service.store.bus import ALL

__all__ = [
    "BodyLimit",
    "create_app",
    "current_user",
    "install_log_redaction",
    "operator",
]

log = logging.getLogger("paigow.service")
ROUTERS = (
    routes_health.router,
    routes_auth.router,
    routes_me.router,
    routes_tables.router,
    routes_recall.router,
    routes_admin.router,
    routes_ws.router,
)
"""The API's routers, in the order their routes are matched (the floor's after the browser's)."""


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


class ServerTiming:
    """Add ``Server-Timing: app;dur=MS`` to every HTTP response: the milliseconds from the request
    reaching the app to its response starting, so that a client can tell the server's time from
    its own queueing and the network's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                headers = list(message.get("headers", []))
                headers.append((b"server-timing", f"app;dur={ms:.1f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, timed)


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


# ----------------------------------------------------------------------------- the app
class StorageWatch:
    """ASGI middleware: while play is paused for the database's refusals
    (:class:`~paigow.service.store.faults.StoragePause`), an HTTP write (not GET or HEAD)
    answered 2xx clears it. Costs an attribute read otherwise."""

    def __init__(self, app: ASGIApp, pause: faults.StoragePause) -> None:
        self.app = app
        self.pause = pause

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") in ("GET", "HEAD")
            or self.pause.code is None
        ):
            await self.app(scope, receive, send)
            return

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                self.pause.wrote()
            await send(message)

        await self.app(scope, receive, watched)


async def core_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """The one handler of the core's errors (:class:`paigow.errors.PaigowError`): its code
    -> the HTTP status and the body ``{"detail", "code"}``
    (:data:`paigow.service.http_errors.CORE_STATUS`)."""
    if not isinstance(exc, PaigowError):  # never: registered for PaigowError only
        raise exc
    status, body = core_error(exc)
    telemetry.refused(exc.code)
    return JSONResponse(body, status_code=status)


def create_app(
    database_url: str | None = None, *, config: ServiceConfig | None = None, **overrides: Any
) -> FastAPI:
    """The service as an ASGI app. Give a database URL (and optional settings), or a config."""
    if config is None:
        if database_url is None:
            raise ValueError("create_app needs a database URL or a config")
        config = ServiceConfig.from_env(database_url, **overrides)
    rt = Runtime(config)
    telemetry.enable(config.metrics)  # process-wide: the step path checks one flag
    hub = FeedHub(rt)
    presence = Presence(rt)
    states = table_rows.PublicStates()
    install_log_redaction()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.worker_threads:
            import anyio.to_thread

            anyio.to_thread.current_default_thread_limiter().total_tokens = config.worker_threads
        await asyncio.to_thread(rt.db.migrate)
        await asyncio.to_thread(lambda: rt.signer)
        await rt.bus.start()
        rt.writer.start(asyncio.get_running_loop())
        presence.start()
        rt.bus.subscribe(ALL, states.on_notice)
        supervisor = None
        if config.run_dealers:
            from paigow.service.process.dealer import DealerSupervisor

            supervisor = DealerSupervisor(rt)
            await supervisor.start()
        app.state.supervisor = supervisor
        if config.freeze_gc:
            settle_memory()
        try:
            yield
        finally:
            hub.stop()
            presence.stop()
            rt.hash_pool.shutdown()
            try:
                await asyncio.to_thread(shutdown_edge_worker)
            except RuntimeError:  # the loop's threads are gone already: stop it from here
                shutdown_edge_worker()
            if supervisor is not None:
                await supervisor.stop()
            try:  # after the dealers, which ask for prices
                await asyncio.to_thread(shutdown_price_worker)
            except RuntimeError:
                shutdown_price_worker()
            await rt.writer.aclose()
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
        docs_url=None,  # /docs and /redoc load a CDN's scripts: /openapi.json only
        redoc_url=None,
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
    app.state.presence = presence
    app.state.states = states
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    app.add_middleware(StorageWatch, pause=rt.storage)  # a write answered 2xx: writes work
    app.add_middleware(SecurityHeaders)  # CSP and companions on every response, 413s too
    app.add_middleware(ServerTiming)  # the whole of the app's time
    app.add_middleware(RequestIds)  # outermost: every line logged in a request has its id

    # ------------------------------------------------------------------ errors
    def _busy_answer(detail: str) -> JSONResponse:
        """503 ``busy``, nothing done: the client retries (with the same idempotency key)."""
        telemetry.db_error("busy")
        return JSONResponse(
            {"detail": detail, "code": "busy"}, status_code=503, headers={"Retry-After": "1"}
        )

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        telemetry.refused(exc.code)
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    app.add_exception_handler(PaigowError, core_error_handler)  # the one handler of the core's

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        telemetry.refused("invalid")
        return JSONResponse({"detail": detail, "code": "invalid"}, status_code=422)

    @app.exception_handler(OperationalError)
    async def _busy(request: Request, exc: OperationalError) -> JSONResponse:
        if (fault := faults.classify(exc)) is not None:  # a full disk, a read-only database
            rt.storage.refused(fault.code)
            telemetry.db_error(fault.code)
            log.warning("database refused a write: %s: %s", fault.code, exc.orig)
            return JSONResponse(fault.body(), status_code=fault.status, headers=fault.headers)
        log.warning("database busy: %s", type(exc.orig).__name__)
        return _busy_answer("the database is busy; retry")

    @app.exception_handler(PoolTimeout)
    async def _no_connection(request: Request, exc: PoolTimeout) -> JSONResponse:
        # every connection of the pool stayed lent for pg_pool_wait_s (a burst of steps at
        # many tables): nothing was done; the client retries
        log.warning("no database connection came free: %s", exc)
        return _busy_answer("no database connection came free in time; retry")

    @app.exception_handler(InternalError)
    async def _refused(request: Request, exc: InternalError) -> JSONResponse:
        if (fault := faults.classify(exc)) is None:  # PostgreSQL's read-only refusal is one
            raise exc
        rt.storage.refused(fault.code)
        telemetry.db_error(fault.code)
        log.warning("database refused a write: %s: %s", fault.code, exc.orig)
        return JSONResponse(fault.body(), status_code=fault.status, headers=fault.headers)

    # ------------------------------------------------------------------ routes
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(routes_web.router)  # the browser table: /, /api/web/*
    app.mount("/static", StaticFiles(directory=routes_web.WEB_DIR), name="static")  # its files
    app.include_router(routes_floor.router)  # the operator's floor, reports, players' limits
    app.include_router(routes_metrics.router)  # /metrics: Prometheus
    return app
