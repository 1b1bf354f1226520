"""``GET /metrics``: the process's metrics in Prometheus' text format (see
:mod:`paigow.service.ops.telemetry`), for an operator's token or a client address the operator
lists (``metrics_allow``)."""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Final

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials
from prometheus_client import CONTENT_TYPE_LATEST

from paigow.service.api.deps import RuntimeDep, bearer, client_addr, operator, token_user
from paigow.service.books.ledger import SHARES, SYSTEM_ACCOUNTS
from paigow.service.floor.edges import edge_worker
from paigow.service.http_errors import Forbidden, NotFound, Unauthorized
from paigow.service.ops import telemetry
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role
from paigow.service.store.db import Account, Seat

router = APIRouter()

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def allowed_networks(text: str) -> tuple[Network, ...]:
    """The networks of a ``metrics_allow`` setting (an address is a network of one).

    >>> allowed_networks("127.0.0.1, 10.0.0.0/8")
    (IPv4Network('127.0.0.1/32'), IPv4Network('10.0.0.0/8'))
    """
    return tuple(
        ipaddress.ip_network(p.strip(), strict=False) for p in text.split(",") if p.strip()
    )


def _listed(addr: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in n for n in networks)


_KINDS: Final = (SHARES.removesuffix(":table-"), *sorted(SYSTEM_ACCOUNTS, key=len, reverse=True))
"""The house's account kinds, the longest first (a table's shares of the meters before the
meter)."""


def account_kind(name: str) -> str:
    """A system account's kind: its name without its table or progressive bank.

    >>> account_kind("house:win:table-7"), account_kind("house:side-win:table-7")
    ('house:win', 'house:side-win')
    >>> account_kind("progressive:meter:shares:table-2"), account_kind("progressive:seed:mega")
    ('progressive:meter:shares', 'progressive:seed')
    >>> account_kind("operator:credits")
    'operator:credits'
    """
    for kind in _KINDS:
        if name == kind or name.startswith(kind + ":"):
            return kind
    return name


@dataclass(frozen=True)
class Books:
    """The ledger's figures a scrape reports."""

    imbalance: int
    wallets: int
    seated: int
    house: dict[str, int]


def _books(rt: Runtime) -> Books:
    """The ledger's imbalance (the sum of every account), the wallets' total, the players
    seated (two cheap aggregate queries), and the house's accounts by kind (a few rows a
    table, summed here)."""
    with rt.db.read() as s:
        total, wallets = s.execute(
            sa.select(
                sa.func.coalesce(sa.func.sum(Account.balance), 0),
                sa.func.coalesce(
                    sa.func.sum(sa.case((Account.kind == "wallet", Account.balance), else_=0)), 0
                ),
            )
        ).one()
        seated = s.execute(sa.select(sa.func.count()).select_from(Seat)).scalar_one()
        house: dict[str, int] = {}
        for name, balance in s.execute(
            sa.select(Account.name, Account.balance).where(Account.kind == "system")
        ):
            kind = account_kind(name)
            house[kind] = house.get(kind, 0) + int(balance)
    return Books(int(total), int(wallets), int(seated), house)


def _in_use(rt: Runtime) -> dict[str, int]:
    """Each connection pool's connections lent out now: ``requests`` (the database's engine),
    ``reads`` (SQLite's read engine) and ``steps`` (PostgreSQL's steps' engine)."""
    pools: dict[str, Any] = {"requests": rt.db.engine.pool}
    if rt.db.read_engine is not rt.db.engine:
        pools["reads"] = rt.db.read_engine.pool
    pools.update(rt.writer.pools())
    out: dict[str, int] = {}
    for name, pool in pools.items():
        checkedout = getattr(pool, "checkedout", None)  # QueuePool's (not every Pool's)
        if checkedout is not None:
            out[name] = int(checkedout())
    return out


@router.get("/metrics", include_in_schema=False)
async def read_metrics(
    request: Request,
    rt: RuntimeDep,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Response:
    """The metrics; 404 when the process keeps none (setting ``metrics`` off), 401
    ``metrics-unauthorized`` without a token from an unlisted address, 403
    ``metrics-forbidden`` for a token that is not an operator's."""
    if not telemetry.enabled():
        raise NotFound("metrics are off (PAIGOW_METRICS)", code="metrics-off")
    if not _listed(client_addr(request), allowed_networks(rt.config.metrics_allow)):
        if creds is None or creds.scheme.lower() != "bearer":
            raise Unauthorized(
                "metrics need an operator's token or a listed address (metrics_allow)",
                code="metrics-unauthorized",
                headers={"WWW-Authenticate": "Bearer"},
            )
        user, _ = await token_user(rt, creds.credentials)
        if user.role != Role.OPERATOR:
            raise Forbidden("metrics are for operators only", code="metrics-forbidden")
        await operator(request, user, rt)  # the second factor, where the settings ask it
    books = await asyncio.to_thread(_books, rt)
    telemetry.set_books(books.imbalance, books.wallets, books.seated, books.house)
    telemetry.set_db(_in_use(rt), rt.writer.waiting())
    telemetry.set_background(edge_worker().states())
    telemetry.set_storage(rt.storage.code)
    return Response(telemetry.exposition(), media_type=CONTENT_TYPE_LATEST)
