"""Idempotency keys: a request that moves money (or sets a hand) carries a key; the first response
is stored with a hash of the request, in the same transaction as what the request did, and a
retry with the same key and the same request gets the stored response without doing anything
again. The same key with a different request is refused (409).

Concurrent retries of one key wait for each other: the transaction first takes a lock on the
(user, key) pair (PostgreSQL ``pg_advisory_xact_lock``; SQLite's write transactions run one at a
time), so the second finds the first's stored response. Stored keys expire after
``idempotency_ttl_s`` (a day): they are purged, and an expired key is a new key.

>>> request_hash("POST /api/tables/1/wager", {"amount": 500}) == request_hash("POST /api/tables/1/wager", {"amount": 500})
True
>>> request_hash("POST /api/tables/1/wager", {"amount": 500}) == request_hash("POST /api/tables/1/wager", {"amount": 600})
False
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.db import IdempotencyKey, now
from paigow.service.errors import Conflict

TTL_S = 86_400.0
"""How long a stored key holds (the service sets it from ``idempotency_ttl_s``)."""
PURGE_EVERY_S = 600.0
_purged = {"at": 0.0}
_purge_lock = threading.Lock()


def request_hash(route: str, body: dict[str, Any]) -> str:
    text = json.dumps({"route": route, "body": body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def lock_key(session: Session, user_id: int, key: str) -> None:
    """Hold the (user, key) pair until the transaction ends (PostgreSQL; SQLite's write
    transactions already run one at a time)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.sha256(f"idem:{user_id}:{key}".encode()).digest()
    session.execute(
        sa.text("SELECT pg_advisory_xact_lock(:k)"),
        {"k": int.from_bytes(digest[:8], "big", signed=True)},
    )


def lookup(
    session: Session, user_id: int, key: str, digest: str, at: float | None = None
) -> dict[str, Any] | None:
    """The stored response for a retry, None for a new (or expired) key; 409 for a key reused
    differently."""
    row = session.connection().execute(_LOOKUP, {"u": user_id, "k": key}).first()
    if row is None:
        return None
    if row.created_at < (at if at is not None else now()) - TTL_S:
        session.execute(
            sa.delete(IdempotencyKey).where(
                IdempotencyKey.user_id == user_id, IdempotencyKey.key == key
            )
        )
        return None
    if row.request_hash != digest:
        raise Conflict(
            "this idempotency key was used for a different request; use a new key",
            code="idempotency-key-reused",
        )
    stored: dict[str, Any] = dict(row.response)
    return stored


def purge(session: Session, at: float | None = None) -> int:
    """Delete the keys older than :data:`TTL_S`; how many."""
    cutoff = (at if at is not None else now()) - TTL_S
    result = session.execute(sa.delete(IdempotencyKey).where(IdempotencyKey.created_at < cutoff))
    return int(getattr(result, "rowcount", 0) or 0)


def store(session: Session, user_id: int, key: str, digest: str, response: dict[str, Any]) -> None:
    """Keep the response (and, every few minutes per process, purge the expired keys)."""
    t = time.monotonic()
    with _purge_lock:
        due = t - _purged["at"] >= PURGE_EVERY_S
        if due:
            _purged["at"] = t
    if due:
        purge(session)
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
_KEYS = cast(sa.Table, IdempotencyKey.__table__)
_LOOKUP = sa.select(_KEYS.c.request_hash, _KEYS.c.response, _KEYS.c.created_at).where(
    _KEYS.c.user_id == sa.bindparam("u"), _KEYS.c.key == sa.bindparam("k")
)
