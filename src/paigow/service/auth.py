"""Accounts and tokens: argon2 password hashes, expiring HMAC-SHA256 signed tokens, and a limit on
login attempts.

A token is ``base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`` where the payload is
``{"sub": user id, "role": ..., "iat": ..., "exp": ...}``. The secret is never logged.

>>> signer = TokenSigner(b"k" * 32)
>>> token = signer.issue(7, "player", ttl_s=60, at=1000.0)
>>> signer.verify(token, at=1030.0)["sub"]
7
>>> signer.verify(token, at=1061.0)
Traceback (most recent call last):
...
paigow.service.errors.Unauthorized: the token has expired; log in again
>>> signer.verify(token[:-2] + "AA", at=1030.0)
Traceback (most recent call last):
...
paigow.service.errors.Unauthorized: the token is not valid
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from paigow.service.errors import TooManyRequests, Unauthorized

SECRET_SETTING: Final = "token_secret"
MAX_TOKEN_CHARS: Final = 1024


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Principal:
    """Who is making a request: a user's id, name and role."""

    id: int
    username: str
    role: str


class TokenSigner:
    """Issues and checks signed, expiring tokens."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret

    def __repr__(self) -> str:
        return "TokenSigner(<secret>)"

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest())

    def issue(self, user_id: int, role: str, ttl_s: int, at: float | None = None) -> str:
        issued = int(at if at is not None else time.time())
        body = {"sub": user_id, "role": role, "iat": issued, "exp": issued + ttl_s}
        payload = _b64(json.dumps(body, separators=(",", ":")).encode())
        return f"{payload}.{self._sign(payload)}"

    def verify(self, token: str, at: float | None = None) -> dict[str, Any]:
        """The token's claims; :class:`Unauthorized` when forged, malformed or expired."""
        if not token or len(token) > MAX_TOKEN_CHARS or token.count(".") != 1:
            raise Unauthorized("the token is not valid", code="invalid-token")
        payload, signature = token.split(".")
        if not hmac.compare_digest(self._sign(payload), signature):
            raise Unauthorized("the token is not valid", code="invalid-token")
        try:
            claims = json.loads(_unb64(payload))
        except (ValueError, binascii.Error):
            raise Unauthorized("the token is not valid", code="invalid-token") from None
        if (
            not isinstance(claims, dict)
            or not isinstance(claims.get("sub"), int)
            or not isinstance(claims.get("exp"), int)
        ):
            raise Unauthorized("the token is not valid", code="invalid-token")
        if (at if at is not None else time.time()) >= claims["exp"]:
            raise Unauthorized("the token has expired; log in again", code="token-expired")
        return claims


def new_secret() -> str:
    return secrets.token_hex(32)


class Passwords:
    """argon2id hashing (parameters from the service configuration)."""

    def __init__(self, time_cost: int = 2, memory_kib: int = 19_456, parallelism: int = 1) -> None:
        self._hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism
        )
        # A hash to check against when the user does not exist, so that the time taken does not
        # tell whether a username exists.
        self._dummy = self._hasher.hash(secrets.token_hex(16))

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash or self._dummy, password) and (
                password_hash is not None
            )
        except (VerificationError, InvalidHashError):
            return False


class LoginLimiter:
    """Sliding-window limits on login attempts: every attempt counts against the username;
    failed attempts count against the client address. Per process (each process of a deployment
    limits on its own)."""

    def __init__(self, per_user: int, per_addr: int, window_s: float) -> None:
        self.per_user, self.per_addr, self.window_s = per_user, per_addr, window_s
        self._user: dict[str, deque[float]] = defaultdict(deque)
        self._addr: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _trim(self, q: deque[float], t: float) -> None:
        while q and q[0] <= t - self.window_s:
            q.popleft()

    def check(self, username: str, addr: str) -> None:
        """Count an attempt, or raise :class:`TooManyRequests` (429) if over a limit."""
        t = time.monotonic()
        key = username.lower()
        with self._lock:
            uq, aq = self._user[key], self._addr[addr]
            self._trim(uq, t)
            self._trim(aq, t)
            if len(uq) >= self.per_user or len(aq) >= self.per_addr:
                oldest = min(q[0] for q in (uq, aq) if q)
                wait = max(1, int(oldest + self.window_s - t) + 1)
                raise TooManyRequests(
                    f"too many login attempts; try again in {wait} s",
                    headers={"Retry-After": str(wait)},
                )
            uq.append(t)
            if len(self._user) > 100_000:  # bound memory against username spraying
                self._user.clear()

    def failed(self, addr: str) -> None:
        t = time.monotonic()
        with self._lock:
            q = self._addr[addr]
            self._trim(q, t)
            q.append(t)
            if len(self._addr) > 100_000:
                self._addr.clear()
