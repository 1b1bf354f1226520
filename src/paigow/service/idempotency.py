"""Idempotency keys: a request that moves money (or sets a hand) carries a key; the first response
is stored with a hash of the request, in the same transaction as what the request did, and a
retry with the same key and the same request gets the stored response without doing anything
again. The same key with a different request is refused (409).

>>> request_hash("POST /api/tables/1/wager", {"amount": 500}) == request_hash("POST /api/tables/1/wager", {"amount": 500})
True
>>> request_hash("POST /api/tables/1/wager", {"amount": 500}) == request_hash("POST /api/tables/1/wager", {"amount": 600})
False
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.db import IdempotencyKey, now
from paigow.service.errors import Conflict


def request_hash(route: str, body: dict[str, Any]) -> str:
    text = json.dumps({"route": route, "body": body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def lookup(session: Session, user_id: int, key: str, digest: str) -> dict[str, Any] | None:
    """The stored response for a retry, None for a new key; 409 for a key reused differently."""
    row = session.execute(
        sa.select(IdempotencyKey.request_hash, IdempotencyKey.response).where(
            IdempotencyKey.user_id == user_id, IdempotencyKey.key == key
        )
    ).first()
    if row is None:
        return None
    if row.request_hash != digest:
        raise Conflict(
            "this idempotency key was used for a different request; use a new key",
            code="idempotency-key-reused",
        )
    stored: dict[str, Any] = dict(row.response)
    return stored


def store(session: Session, user_id: int, key: str, digest: str, response: dict[str, Any]) -> None:
    session.connection().execute(  # Core: no ORM bookkeeping for a row nobody loads
        _INSERT,
        {
            "user_id": user_id,
            "key": key,
            "request_hash": digest,
            "status_code": 200,
            "response": response,
            "created_at": now(),
        },
    )


_INSERT = sa.insert(IdempotencyKey)
