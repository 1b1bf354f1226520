"""Accounts and tokens: argon2id password hashes and expiring HMAC-SHA256 signed tokens (the
limits on log-in attempts are in :mod:`paigow.service.accounts.throttles`).

A token is ``base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`` where the payload is
``{"sub": user id, "role": ..., "iat": ..., "exp": ..., "sid": session id}``. The secret is never logged.

>>> signer = TokenSigner(b"k" * 32)
>>> token = signer.issue(7, "player", ttl_s=60, at=1000.0)
>>> signer.verify(token, at=1030.0)["sub"]
7
>>> signer.verify(token, at=1061.0)
Traceback (most recent call last):
...
paigow.service.http_errors.Unauthorized: the token has expired; log in again
>>> signer.verify(token[:-2] + "AA", at=1030.0)
Traceback (most recent call last):
...
paigow.service.http_errors.Unauthorized: the token is not valid

A token that claims a longer life than the server gives, or a subject that is not a user id, is
refused even when its signature holds:

>>> capped = TokenSigner(b"k" * 32, max_ttl_s=60)
>>> capped.verify(capped.issue(7, "player", ttl_s=3600, at=1000.0), at=1030.0)
Traceback (most recent call last):
...
paigow.service.http_errors.Unauthorized: the token is not valid
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from paigow.service.http_errors import Unauthorized

MAX_TOKEN_CHARS: Final = 1024


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Principal:
    """Who is making a request: a user's id, name and role; ``second_factor``: what the token
    says of the operator's second factor (True: verified, False: not yet, None: not asked)."""

    id: int
    username: str
    role: str
    second_factor: bool | None = None


class TokenSigner:
    """Issues and checks signed, expiring tokens."""

    def __init__(self, secret: bytes, max_ttl_s: int | None = None) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret
        self.max_ttl_s = max_ttl_s

    def __repr__(self) -> str:
        return "TokenSigner(<secret>)"

    def derive(self, label: bytes) -> bytes:
        """A key of its own for ``label`` (HMAC-SHA256 of the secret): e.g. the key that encrypts
        the operators' TOTP secrets, so that the token secret itself is used only to sign."""
        return hmac.new(self._secret, b"paigow-derive:" + label, hashlib.sha256).digest()

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest())

    def issue(
        self,
        user_id: int,
        role: str,
        ttl_s: int,
        at: float | None = None,
        sid: str | None = None,
        second_factor: bool | None = None,
    ) -> str:
        """A token for ``user_id``; ``sid``: the server-side session it belongs to
        (:mod:`paigow.service.accounts.sessions`); ``second_factor``: whether the operator
        passed their second factor (claim ``sf``; None: not asked)."""
        issued = int(at if at is not None else time.time())
        body: dict[str, Any] = {"sub": user_id, "role": role, "iat": issued, "exp": issued + ttl_s}
        if sid is not None:
            body["sid"] = sid
        if second_factor is not None:
            body["sf"] = second_factor
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
        if not isinstance(claims, dict) or not all(
            type(claims.get(name)) is int for name in ("sub", "iat", "exp")
        ):
            raise Unauthorized("the token is not valid", code="invalid-token")
        life = claims["exp"] - claims["iat"]
        if claims["sub"] < 1 or life < 0 or (self.max_ttl_s is not None and life > self.max_ttl_s):
            raise Unauthorized("the token is not valid", code="invalid-token")
        if (at if at is not None else time.time()) >= claims["exp"]:
            raise Unauthorized("the token has expired; log in again", code="token-expired")
        return claims


class Passwords:
    """argon2id hashing; the defaults are OWASP's (19 MiB, 2 passes, 1 lane). Slow on purpose:
    call it through :class:`paigow.service.accounts.throttles.HashPool`, never on the event loop."""

    def __init__(self, time_cost: int = 2, memory_kib: int = 19_456, parallelism: int = 1) -> None:
        self._hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism, type=Type.ID
        )
        # A hash to check against when the user does not exist, so that the time taken does not
        # tell whether a username exists.
        self._dummy = self._hasher.hash(secrets.token_hex(16))

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def needs_rehash(self, password_hash: str) -> bool:
        """True when the hash was made with other parameters than today's (rehash it at the
        next successful log-in)."""
        try:
            return self._hasher.check_needs_rehash(password_hash)
        except (InvalidHashError, ValueError):
            return True

    def verify(self, password_hash: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash or self._dummy, password) and (
                password_hash is not None
            )
        except (VerificationError, InvalidHashError):
            return False
