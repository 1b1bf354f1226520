"""The sessions' and the operators' second factor's tables (migrations ``0009_sessions`` and
``0010_session_idle``): a
log-in's session, which its tokens name and which log-out or an operator revokes
(:mod:`paigow.service.accounts.sessions`), and an operator's TOTP secret, encrypted, with the
last step a code was accepted at (:mod:`paigow.service.accounts.totp`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from paigow.service.store.db import Base


class AuthSession(Base):
    """A log-in's session: a token names it (``sid``); revoked, its tokens are refused
    (:mod:`paigow.service.accounts.sessions`)."""

    __tablename__ = "sessions"
    __table_args__ = (sa.Index("ix_sessions_user_id", "user_id"),)
    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(sa.Float)
    expires_at: Mapped[float] = mapped_column(sa.Float)
    revoked_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    last_seen_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    """When a request last used it (kept to the minute): idle longer than ``session_idle_s``, it
    is refused (``session-idle``). None: not used since it was opened (``created_at``)."""


class OperatorTotp(Base):
    """An operator's TOTP second factor: the secret (encrypted), when it was confirmed, and the
    last time step a code was accepted at (a code is never accepted twice)
    (:mod:`paigow.service.accounts.totp`)."""

    __tablename__ = "operator_totp"
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), primary_key=True)
    secret: Mapped[str] = mapped_column(sa.String(200))
    confirmed_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    last_step: Mapped[int] = mapped_column(sa.BigInteger, default=0)


class RecoveryCode(Base):
    """One of an operator's ten one-time recovery codes, stored as its SHA-256 (a code is 80
    random bits: no slow hash needed); used once, it is spent
    (:mod:`paigow.service.accounts.totp`)."""

    __tablename__ = "recovery_codes"
    __table_args__ = (sa.Index("ix_recovery_codes_user_id", "user_id"),)
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    code_hash: Mapped[str] = mapped_column(sa.String(64))
    used_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)


class EnrolmentRequired(Base):
    """An operator who must enrol a second factor at their next sign-in (``paigow admin create
    --require-2fa``, or a reset): until then their token only enrols."""

    __tablename__ = "enrolment_required"
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), primary_key=True)
    since: Mapped[float] = mapped_column(sa.Float)
