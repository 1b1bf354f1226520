"""``paigow serve``: run the service with uvicorn and say where it serves."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

import uvicorn

from paigow.service.config import ServiceConfig
from paigow.service.db import safe_url

DEFAULT_DATABASE_FILE = "paigow-tables.sqlite3"
"""The embedded default: a SQLite file of this name in the current folder."""


def default_database_url() -> str:
    return f"sqlite:///{Path.cwd() / DEFAULT_DATABASE_FILE}"


class _Server(uvicorn.Server):
    """Prints the URL once the socket is listening (with ``--port 0``, the port it got)."""

    def __init__(self, config: uvicorn.Config, announce: TextIO) -> None:
        super().__init__(config)
        self._announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit:
            return
        host, port = self.config.host, self.config.port
        for server in getattr(self, "servers", []):
            for sock in server.sockets:
                port = sock.getsockname()[1]
                break
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        if ":" in shown and not shown.startswith("["):
            shown = f"[{shown}]"
        print(f"paigow table server: http://{shown}:{port}/", file=self._announce, flush=True)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database_url: str | None = None,
    *,
    log_level: str = "warning",
    announce: TextIO | None = None,
    forwarded_allow_ips: str | None = None,
    **overrides: Any,
) -> None:
    """Serve until interrupted. ``X-Forwarded-For`` is believed only from the proxies named in
    ``forwarded_allow_ips`` (comma-separated addresses or networks); by default from nobody."""
    from paigow.service.app import create_app, install_log_redaction

    url = database_url or default_database_url()
    config = ServiceConfig.from_env(url, **overrides)
    app = create_app(config=config)
    uv_config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=log_level in ("info", "debug", "trace"),
        lifespan="on",
        ws_max_size=65_536,
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=3,
        timeout_keep_alive=30,
        backlog=4096,
        proxy_headers=bool(forwarded_allow_ips),
        forwarded_allow_ips=forwarded_allow_ips or "",
        ws_ping_interval=config.ws_ping_s,
        ws_ping_timeout=config.ws_ping_timeout_s,
    )
    server = _Server(uv_config, announce or sys.stdout)
    print(f"paigow table server: database {safe_url(url)}", file=sys.stderr, flush=True)
    install_log_redaction()
    logging.getLogger("paigow.service").setLevel(log_level.upper())
    asyncio.run(server.serve())
