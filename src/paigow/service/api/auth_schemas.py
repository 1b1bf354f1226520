"""The API's bodies for accounts and sessions (pydantic 2): registering, logging in, the second
factor, a password's change and who is logged in (:mod:`paigow.service.api.schemas` has the
game's)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from paigow.service.accounts.credentials import USERNAME_RULE
from paigow.service.api.schemas import (
    Password,
    RecoveryCodeText,
    SeatOut,
    Strict,
    TotpCode,
    Username,
)


class RegisterIn(Strict):
    username: Username = Field(description=USERNAME_RULE)
    password: Password


class LoginIn(Strict):
    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    code: TotpCode | None = Field(
        default=None, description="An operator's second-factor code (TOTP), once enrolled"
    )
    recovery_code: RecoveryCodeText | None = Field(
        default=None, description="One of an operator's recovery codes, in place of `code`"
    )
    cookie: bool = Field(
        default=False,
        description="A browser's log-in: the session goes in an HttpOnly cookie and the "
        "answer leaves the token out (scripts leave this false and send the token as "
        "`Authorization: Bearer`)",
    )


class CodeIn(Strict):
    code: TotpCode = Field(description="The 6-digit code the authenticator app shows")


class VerifyIn(Strict):
    code: TotpCode | None = Field(default=None, description="The authenticator's 6-digit code")
    recovery_code: RecoveryCodeText | None = Field(
        default=None, description="Or one of the recovery codes (each works once)"
    )


class PasswordIn(Strict):
    current_password: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    new_password: Password


class EnrolOut(BaseModel):
    otpauth_uri: str = Field(description="The secret as an otpauth:// URI (for the app)")
    qr: str = Field(description="The URI's QR code as an SVG data URI")


class UserOut(BaseModel):
    id: int
    username: str
    role: Literal["player", "operator"]


class SessionOut(BaseModel):
    user: UserOut | None = Field(description="Who is logged in, or None")
    ended: str | None = Field(
        description="When a session was sent but has ended: why (its 401 code)"
    )


class TokenOut(BaseModel):
    token: str | None = Field(
        description="The bearer token (None for a browser's log-in: it is in the HttpOnly "
        "session cookie)"
    )
    token_type: Literal["bearer"] = "bearer"
    expires_at: int
    user: UserOut
    second_factor: Literal["enrol", "verify"] | None = Field(
        default=None,
        description="An operator whose token is limited until they enrol a second factor or "
        "verify their code",
    )
    recovery_codes: list[str] | None = Field(
        default=None,
        description="After a second factor is confirmed: the ten one-time recovery codes, "
        "shown this once",
    )


class MeOut(UserOut):
    balance: int = Field(description="Wallet balance in cents")
    play_balance: int | None = Field(
        default=None, description="Play money in cents (practice tables), None before any"
    )
    seats: list[SeatOut]
