"""``paigow serve``: run the service with uvicorn and say where it serves."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

import uvicorn

from paigow.service.config import ServiceConfig, env_name
from paigow.service.ops.logs import configure as log_format
from paigow.service.orphans import stop_gracefully, watch_parent
from paigow.service.store.db import normalize_url, safe_url

DEFAULT_DATABASE_FILE = "paigow-tables.sqlite3"
"""The embedded default: a SQLite file of this name in the current folder."""


STOP_HINT = "paigow table server: press Ctrl+C to stop it (or send it SIGTERM)"
"""Said on standard error once the server listens."""


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
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host  # nosec B104  # display only; binds nothing
        if ":" in shown and not shown.startswith("["):
            shown = f"[{shown}]"
        print(f"paigow table server: http://{shown}:{port}/", file=self._announce, flush=True)
        print(STOP_HINT, file=sys.stderr, flush=True)


WORKER_URL_ENV = "PAIGOW_WORKER_DATABASE_URL"
"""How ``serve --workers N`` hands the database URL to its worker processes."""


def check_workers(workers: int, database_url: str) -> None:
    """Several server processes need PostgreSQL (SQLite has one writer: a second process
    would only queue on its lock).

    >>> check_workers(1, "sqlite:///x.db")
    >>> check_workers(2, "sqlite:///x.db")
    Traceback (most recent call last):
    ...
    ValueError: --workers 2 needs PostgreSQL (postgresql://...): SQLite allows one writer at a time, so run one process with SQLite
    """
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    if workers > 1 and not normalize_url(database_url).startswith("postgresql"):
        raise ValueError(
            f"--workers {workers} needs PostgreSQL (postgresql://...): SQLite allows one writer "
            "at a time, so run one process with SQLite"
        )


def worker_app() -> Any:
    """The app of one worker of ``serve --workers N`` (an app factory uvicorn calls in each
    worker process; the settings come from the environment)."""
    from paigow.service.process.app import create_app, install_log_redaction

    install_log_redaction()
    config = ServiceConfig.from_env(os.environ[WORKER_URL_ENV]).with_(freeze_gc=True)
    logging.getLogger("paigow.service").setLevel(config.worker_log_level.upper())
    log_format(config.log_format)  # after uvicorn's own logging set-up in this worker
    # a supervisor killed with kill -9 cannot stop its workers: each stops itself, gracefully
    watch_parent(os.getppid(), stop_gracefully)
    return create_app(config=config)


def _uvicorn_options(
    log_level: str, config: ServiceConfig, forwarded_allow_ips: str | None
) -> dict[str, Any]:
    return {
        "proxy_headers": bool(forwarded_allow_ips),
        "forwarded_allow_ips": forwarded_allow_ips or "",
        "ws_ping_interval": config.ws_ping_s,
        "ws_ping_timeout": config.ws_ping_timeout_s,
        "log_level": log_level,
        "access_log": log_level in ("info", "debug", "trace"),
        "lifespan": "on",
        "loop": "auto",  # uvloop when installed
        "http": "auto",  # httptools when installed
        "ws_max_size": 65_536,
        "ws_per_message_deflate": False,
        "timeout_graceful_shutdown": 3,
        "timeout_keep_alive": 30,
        "backlog": 4096,
    }


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database_url: str | None = None,
    *,
    log_level: str = "warning",
    announce: TextIO | None = None,
    workers: int = 1,
    forwarded_allow_ips: str | None = None,
    **overrides: Any,
) -> None:
    """Serve until interrupted. ``workers`` > 1 (PostgreSQL only): that many processes share
    the listening socket, each dealing the tables whose dealer lock it holds.
    ``X-Forwarded-For`` is believed only from the proxies named in ``forwarded_allow_ips``
    (comma-separated addresses or networks); by default from nobody."""
    from paigow.service.process.app import create_app, install_log_redaction

    url = database_url or default_database_url()
    check_workers(workers, url)
    print(f"paigow table server: database {safe_url(url)}", file=sys.stderr, flush=True)
    if workers > 1:
        _serve_workers(
            host,
            port,
            url,
            workers,
            log_level,
            announce or sys.stdout,
            overrides,
            forwarded_allow_ips,
        )
        return
    config = ServiceConfig.from_env(url, **overrides).with_(freeze_gc=True)
    app = create_app(config=config)
    uv_config = uvicorn.Config(
        app, host=host, port=port, **_uvicorn_options(log_level, config, forwarded_allow_ips)
    )
    server = _Server(uv_config, announce or sys.stdout)
    install_log_redaction()
    logging.getLogger("paigow.service").setLevel(log_level.upper())
    log_format(config.log_format)  # uvicorn.Config set its loggers up: format them now
    with asyncio.Runner(loop_factory=uv_config.get_loop_factory()) as runner:  # uvloop
        runner.run(server.serve())


def _serve_workers(
    host: str,
    port: int,
    url: str,
    workers: int,
    log_level: str,
    announce: TextIO,
    overrides: dict[str, Any],
    forwarded_allow_ips: str | None,
) -> None:
    """N uvicorn worker processes on one socket, bound here (so ``--port 0`` gives them one
    port), watched by uvicorn's supervisor (a worker that dies is replaced)."""
    from uvicorn.supervisors import Multiprocess

    os.environ[WORKER_URL_ENV] = url
    os.environ[env_name("worker_log_level")] = log_level
    for name, value in overrides.items():
        if value is not None:
            os.environ[env_name(name)] = str(value)
    uv_config = uvicorn.Config(
        "paigow.service.process.server:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        **_uvicorn_options(
            log_level, ServiceConfig.from_env(url, **overrides), forwarded_allow_ips
        ),
    )
    log_format(ServiceConfig.from_env(url, **overrides).log_format)  # the supervisor's lines
    sock = uv_config.bind_socket()
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host  # nosec B104  # display only; binds nothing
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    print(
        f"paigow table server: {workers} worker processes on one socket",
        file=sys.stderr,
        flush=True,
    )
    url_line = f"paigow table server: http://{shown}:{sock.getsockname()[1]}/"

    class _Supervisor(Multiprocess):
        def init_processes(self) -> None:
            super().init_processes()
            for process in self.processes:  # say where it serves once every worker serves
                process.wait_until_ready(120, self.should_exit)
            print(url_line, file=announce, flush=True)
            print(STOP_HINT, file=sys.stderr, flush=True)

    _Supervisor(uv_config, sockets=[sock]).run()
