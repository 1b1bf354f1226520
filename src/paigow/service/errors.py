"""Errors the service raises; each maps to one HTTP status and a stable machine-readable code.

>>> e = Conflict("the round is in play", code="round-in-play")
>>> e.status, e.code, str(e)
(409, 'round-in-play', 'the round is in play')
>>> e.body()
{'detail': 'the round is in play', 'code': 'round-in-play'}
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    """Base class: ``status`` is the HTTP status, ``code`` a short name clients can act on."""

    status: ClassVar[int] = 400
    default_code: ClassVar[str] = "bad-request"

    def __init__(
        self, message: str, *, code: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {"detail": self.message, "code": self.code}


class BadRequest(ServiceError):
    status = 400
    default_code = "bad-request"


class Unauthorized(ServiceError):
    status = 401
    default_code = "unauthorized"


class Forbidden(ServiceError):
    status = 403
    default_code = "forbidden"


class NotFound(ServiceError):
    status = 404
    default_code = "not-found"


class Conflict(ServiceError):
    status = 409
    default_code = "conflict"


class Unprocessable(ServiceError):
    status = 422
    default_code = "invalid"


class TooManyRequests(ServiceError):
    status = 429
    default_code = "rate-limited"


class InsufficientFunds(Conflict):
    default_code = "insufficient-funds"
