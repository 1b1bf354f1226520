"""Logs as JSON lines (``log_format = json``) with the request's id, user, table and round, and
the middleware that gives every HTTP request and WebSocket its id.

The id is the incoming ``X-Request-ID`` when it is sane (1-64 characters of letters, digits and
``-_.:``), else a new one; it is returned in the response's ``X-Request-ID`` header. It, the
table (from the path ``/.../tables/{id}``), the user (once the request's token is checked:
:func:`paigow.service.api.deps.token_session`) and the round (where a step knows it) live in
context variables, so that every line logged while the request is handled carries them.
"""

from __future__ import annotations

import logging
import re
import secrets
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Final

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: Final[ContextVar[str | None]] = ContextVar("paigow_request_id", default=None)
TABLE_ID: Final[ContextVar[int | None]] = ContextVar("paigow_table_id", default=None)
ROUND_ID: Final[ContextVar[str | None]] = ContextVar("paigow_round_id", default=None)
USER: Final[ContextVar[str | None]] = ContextVar("paigow_user", default=None)
"""The username of the request's token, once it has been checked."""

HEADER: Final = "x-request-id"
_SANE: Final = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_TABLE_PATH: Final = re.compile(r"/tables/(\d{1,10})(?:/|$)")
_TOKEN: Final = re.compile(r"(token=)[^&\s\"']+")
LOGGERS: Final = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "paigow", "paigow.service")
"""The loggers whose handlers :func:`configure` formats ("": the root)."""


def request_id(incoming: str | None) -> str:
    """``incoming`` when it is sane, else a new id.

    >>> request_id("abc-123"), len(request_id("bad id\\n")), len(request_id("x" * 65))
    ('abc-123', 32, 32)
    """
    if incoming is not None and _SANE.fullmatch(incoming):
        return incoming
    return secrets.token_hex(16)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message (tokens redacted),
    and the request id, user, table and round where they are known; an exception's traceback
    too."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": _TOKEN.sub(r"\1<redacted>", record.getMessage()),
        }
        rid, table, rnd, user = REQUEST_ID.get(), TABLE_ID.get(), ROUND_ID.get(), USER.get()
        if rid is not None:
            doc["request_id"] = rid
        if user is not None:
            doc["user"] = user
        if table is not None:
            doc["table"] = table
        if rnd is not None:
            doc["round"] = rnd
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(doc).decode()


def configure(log_format: str) -> None:
    """Format every handler of the service's and uvicorn's loggers as JSON lines when
    ``log_format`` is ``json`` (the root gets a handler on stderr if it has none); ``text``:
    leave them as they are (anything else: ValueError). Call it after uvicorn has configured its
    logging."""
    if log_format not in ("text", "json"):
        raise ValueError(f"log_format must be text or json, not {log_format!r}")
    if log_format == "text":
        return
    formatter = JsonFormatter()
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
    for name in LOGGERS:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(formatter)


class RequestIds:
    """ASGI middleware: each request's id (see the module's text) and table in context, the id
    returned in ``X-Request-ID``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        incoming = None
        for name, value in scope.get("headers", []):
            if name == b"x-request-id":
                incoming = value.decode("latin-1")
                break
        rid = request_id(incoming)
        match = _TABLE_PATH.search(scope.get("path", ""))
        tokens = (
            REQUEST_ID.set(rid),
            TABLE_ID.set(int(match.group(1)) if match else None),
            ROUND_ID.set(None),
            USER.set(None),
        )
        header = (HEADER.encode(), rid.encode())

        async def with_id(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", []), header]}
            await send(message)

        try:
            await self.app(scope, receive, with_id)
        finally:
            REQUEST_ID.reset(tokens[0])
            TABLE_ID.reset(tokens[1])
            ROUND_ID.reset(tokens[2])
            USER.reset(tokens[3])
