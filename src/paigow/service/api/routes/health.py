"""Liveness: ``GET /api/health``, and whether play is paused for the database's refusals."""

from __future__ import annotations

import os
from typing import Any

from fastapi import APIRouter, Request, Response

from paigow.service.api.schemas import HealthOut

router = APIRouter()
_PID = str(os.getpid())


@router.get("/api/health", tags=["health"], response_model=HealthOut)
async def health(request: Request, response: Response) -> dict[str, Any]:
    """Answers once the service serves (header ``X-Paigow-Worker``: the process that
    answered, when several serve one port). ``storage``: ``ok``, or ``storage-full`` /
    ``storage-read-only`` while this process sees the database refuse writes (the pages show
    that play is paused). Read from memory: no database read."""
    response.headers["X-Paigow-Worker"] = _PID
    response.headers["Cache-Control"] = "no-store"
    code = request.app.state.rt.storage.code
    return {"status": "ok", "storage": code or "ok"}
