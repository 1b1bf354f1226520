"""Idempotency keys: a request that moves money (or sets a hand) carries a key; the first response
is stored with a hash of the request, in the same transaction as what the request did, and a
retry with the same key and the same request gets the stored response without doing anything
again. The same key with a different request is refused (409).

Concurrent retries of one key wait for each other: the transaction first takes a lock on the
(user, key) pair (PostgreSQL ``pg_advisory_xact_lock``; SQLite's write transactions run one at a
time), so the second finds the first's stored response. Stored keys expire after ``ttl_s``
(the service's ``idempotency_ttl_s``, a day by default): they are purged, and an expired key is
a new key.

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
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.service.http_errors import Conflict
from paigow.service.store.db import IdempotencyKey, now
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

TTL_S: Final = 86_400.0
"""How long a stored key holds unless the caller says (``idempotency_ttl_s``'s default)."""
PURGE_EVERY_S = 600.0
_purged = {"at": 0.0}
_purge_lock = threading.Lock()


def request_hash(route: str, body: dict[str, Any]) -> str:
    text = json.dumps({"route": route, "body": body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def lock_key(tx: Tx, user_id: int, key: str) -> None:
    """Hold the (user, key) pair until the transaction ends (PostgreSQL; SQLite's write
    transactions already run one at a time)."""
    if not tx.is_postgres:
        return
    digest = hashlib.sha256(f"idem:{user_id}:{key}".encode()).digest()
    tx.later(_LOCK, {"k": int.from_bytes(digest[:8], "big", signed=True)})  # sent with the next


def lookup(
    tx: Tx,
    user_id: int,
    key: str,
    digest: str,
    at: float | None = None,
    *,
    ttl_s: float = TTL_S,
) -> dict[str, Any] | None:
    """The stored response for a retry, None for a new (or expired: older than ``ttl_s``) key;
    409 for a key reused differently."""
    row = tx.first(_LOOKUP, {"u": user_id, "k": key})
    if row is None:
        return None
    request_hash, response, created_at = row
    if created_at < (at if at is not None else now()) - ttl_s:
        tx.run(_DELETE, {"u": user_id, "k": key})
        return None
    if request_hash != digest:
        raise Conflict(
            "this idempotency key was used for a different request; use a new key",
            code="idempotency-key-reused",
        )
    stored: dict[str, Any] = dict(response)
    return stored


def purge(tx: Tx, at: float | None = None, *, ttl_s: float = TTL_S) -> int:
    """Delete the keys older than ``ttl_s``; how many."""
    cutoff = (at if at is not None else now()) - ttl_s
    return tx.rowcount(_PURGE, {"cutoff": cutoff})


def store(
    tx: Tx,
    user_id: int,
    key: str,
    digest: str,
    response: dict[str, Any],
    *,
    ttl_s: float = TTL_S,
) -> None:
    """Keep the response (and, every few minutes per process, purge the keys older than
    ``ttl_s``)."""
    t = time.monotonic()
    with _purge_lock:
        due = t - _purged["at"] >= PURGE_EVERY_S
        if due:
            _purged["at"] = t
    if due:
        purge(tx, ttl_s=ttl_s)
    tx.later(
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


_KEYS: Final = cast(sa.Table, IdempotencyKey.__table__)
_INSERT: Final = Sql(
    sa.insert(_KEYS).values(
        {
            c: sa.bindparam(c, type_=_KEYS.c[c].type)
            for c in ("user_id", "key", "request_hash", "status_code", "response", "created_at")
        }
    )
)
_LOOKUP: Final = Sql(
    sa.select(_KEYS.c.request_hash, _KEYS.c.response, _KEYS.c.created_at).where(
        _KEYS.c.user_id == sa.bindparam("u"), _KEYS.c.key == sa.bindparam("k")
    )
)
_DELETE: Final = Sql(
    sa.delete(_KEYS).where(_KEYS.c.user_id == sa.bindparam("u"), _KEYS.c.key == sa.bindparam("k"))
)
_PURGE: Final = Sql(sa.delete(_KEYS).where(_KEYS.c.created_at < sa.bindparam("cutoff")))
_LOCK: Final = Sql(sa.select(sa.func.pg_advisory_xact_lock(sa.bindparam("k", type_=sa.BigInteger))))
