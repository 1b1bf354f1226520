"""Users: a new user (a player from ``POST /api/auth/register``, an operator from
``paigow admin create``) with the wallet the ledger keeps for it."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from paigow.service.accounts.credentials import username_key
from paigow.service.books import ledger
from paigow.service.http_errors import Conflict
from paigow.service.store.db import User, now


def create_user(session: Any, username: str, password_hash: str, role: str) -> dict[str, Any]:
    """A new user with a wallet; 409 when the name is taken in any case or Unicode form."""
    key = username_key(username)
    exists = session.execute(
        sa.select(User.id).where(sa.or_(User.username == username, User.username_key == key))
    ).first()
    if exists is not None:
        raise Conflict(f"username {username!r} is taken", code="username-taken")
    user = User(
        username=username,
        username_key=key,
        password_hash=password_hash,
        role=role,
        created_at=now(),
    )
    session.add(user)
    session.flush()
    ledger.open_wallet(session, username, user.id)
    return {"id": user.id, "username": username, "role": role}
