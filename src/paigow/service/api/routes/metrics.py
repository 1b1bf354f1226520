"""``GET /metrics``: the process's metrics in Prometheus' text format (see
:mod:`paigow.service.ops.metrics`), for an operator's token or a client address the operator
lists (``metrics_allow``)."""

from __future__ import annotations

import asyncio
import ipaddress
from functools import lru_cache
from typing import Annotated

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials
from prometheus_client import CONTENT_TYPE_LATEST

from paigow.service.api.deps import RuntimeDep, bearer, client_addr, token_user
from paigow.service.errors import Forbidden, Unauthorized
from paigow.service.floor.edges import edge_worker
from paigow.service.ops import metrics
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


def _books(rt: Runtime) -> tuple[int, int, int]:
    """The ledger's imbalance (the sum of every account), the wallets' total, the players
    seated: three cheap sums."""
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
    return int(total), int(wallets), int(seated)


@router.get("/metrics", include_in_schema=False)
async def read_metrics(
    request: Request,
    rt: RuntimeDep,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Response:
    """The metrics; 401 ``metrics-unauthorized`` without a token from an unlisted address, 403
    ``metrics-forbidden`` for a token that is not an operator's."""
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
    imbalance, wallets, seated = await asyncio.to_thread(_books, rt)
    metrics.set_books(imbalance, wallets, seated, edge_worker().queued())
    metrics.set_storage(rt.storage.code)
    return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
