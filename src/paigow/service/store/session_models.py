"""The sessions' and the operators' second factor's tables (migration ``0009_sessions``): a
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


class OperatorTotp(Base):
    """An operator's TOTP second factor: the secret (encrypted), when it was confirmed, and the
    last time step a code was accepted at (a code is never accepted twice)
    (:mod:`paigow.service.accounts.totp`)."""

    __tablename__ = "operator_totp"
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), primary_key=True)
    secret: Mapped[str] = mapped_column(sa.String(200))
    confirmed_at: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    last_step: Mapped[int] = mapped_column(sa.BigInteger, default=0)
