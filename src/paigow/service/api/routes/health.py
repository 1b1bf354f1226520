"""Liveness: ``GET /api/health``."""

from __future__ import annotations

import os
from typing import Any

from fastapi import APIRouter, Response

from paigow.service.api.schemas import HealthOut

router = APIRouter()
_PID = str(os.getpid())


@router.get("/api/health", tags=["health"], response_model=HealthOut)
async def health(response: Response) -> dict[str, Any]:
    """Answers once the service serves (header ``X-Paigow-Worker``: the process that
    answered, when several serve one port)."""
    response.headers["X-Paigow-Worker"] = _PID
    return {"status": "ok"}
