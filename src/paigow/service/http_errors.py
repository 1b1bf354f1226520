"""Errors the service raises; each maps to one HTTP status and a stable machine-readable code.

>>> e = Conflict("the round is in play", code="round-in-play")
>>> e.status, e.code, str(e)
(409, 'round-in-play', 'the round is in play')
>>> e.body()
{'detail': 'the round is in play', 'code': 'round-in-play'}
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final

from paigow.errors import PaigowError


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


CORE_STATUS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "wrong-phase": 409,
        "no-such-spot": 422,
        "bad-amount": 422,
        "outside-limits": 422,
        "already-wagered": 409,
        "bad-player": 422,
        "no-main-wager": 409,
        "unknown-side-wager": 422,
        "log-version": 422,
        "no-wagers": 409,
        "bad-start": 422,
        "no-dragon": 422,
        "dragon-offered": 409,
        "no-dragon-offer": 409,
        "not-your-turn": 409,
        "bad-reason": 422,
        "no-hand": 409,
        "already-set": 409,
        "bad-setting": 422,
        "face-up": 409,
        "not-all-set": 409,
        "not-over": 409,
        "replay-mismatch": 500,
        "bad-card": 422,
        "bad-ruleset": 422,
        "bad-house-way": 422,
        "bad-paytable": 422,
        "invalid": 422,
    }
)
"""The HTTP status of each core error code (:data:`paigow.errors.CODES`; tests/test_error_codes.py checks): 409 for a command
out of turn or already done, 422 for bad input; every code has one (a test says so)."""


def core_error(exc: PaigowError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the JSON body (``{"detail", "code"}``) of a core error: what the
    one handler answers.

    >>> from paigow.errors import RoundError
    >>> core_error(RoundError("spot 1 already has a wager", code="already-wagered"))
    (409, {'detail': 'spot 1 already has a wager', 'code': 'already-wagered'})
    """
    return CORE_STATUS.get(exc.code, 422), {"detail": str(exc), "code": exc.code}
