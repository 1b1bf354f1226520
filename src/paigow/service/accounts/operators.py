"""Operator accounts, created from the command line (``paigow admin create``), never over the API."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from paigow.service.accounts.credentials import USERNAME_RULE, is_username, password_problem
from paigow.service.accounts.users import create_user
from paigow.service.books.audit import record
from paigow.service.config import ServiceConfig
from paigow.service.http_errors import NotFound, Unprocessable
from paigow.service.statuses import Role
from paigow.service.store.db import Database, User


def create_operator(
    database_url: str,
    username: str,
    password: str,
    *,
    config: ServiceConfig | None = None,
    require_2fa: bool = False,
) -> dict[str, Any]:
    """Create an operator (migrating the database first if needed); ``require_2fa``: they must
    enrol a second factor at their first sign-in (their token does nothing else until then)."""
    from paigow.service.accounts.auth_tokens import Passwords

    if not is_username(username):
        raise Unprocessable(f"a username is {USERNAME_RULE}")
    if not 8 <= len(password) <= 128:
        raise Unprocessable("a password is 8 to 128 characters")
    problem = password_problem(password, username)
    if problem is not None:
        raise Unprocessable(problem, code="weak-password")
    cfg = config or ServiceConfig.from_env(database_url)
    db = Database.of(cfg)
    try:
        db.migrate()
        hashed = Passwords(
            cfg.argon2_time_cost, cfg.argon2_memory_kib, cfg.argon2_parallelism
        ).hash(password)
        with db.write() as s:
            user = create_user(s, username, hashed, Role.OPERATOR)
            if require_2fa:
                from paigow.service.accounts.totp import require_enrolment

                require_enrolment(s, int(user["id"]))
            details = {"id": user["id"], "require_2fa": require_2fa}
            record(s, "cli", "operator-created", f"user:{username}", details)
        return user
    finally:
        db.dispose()


def reset_second_factor(database_url: str, username: str) -> bool:
    """Remove an operator's second factor and recovery codes (one locked out: a lost phone),
    end their sessions and make them enrol again at their next sign-in; audited. Whether one
    was on. 404 for no such operator."""
    import time

    from paigow.service.accounts import totp
    from paigow.service.accounts.sessions import revoke_user
    from paigow.service.store.unit import Tx

    db = Database.of(ServiceConfig.from_env(database_url))
    try:
        db.migrate()
        with db.write() as s:
            row = s.execute(
                sa.select(User.id, User.role).where(User.username == username)
            ).one_or_none()
            if row is None or row[1] != Role.OPERATOR:
                raise NotFound(f"no operator {username}", code="no-user")
            was = totp.reset(s, int(row[0]))
            ended = revoke_user(Tx(s.connection(), s), int(row[0]), time.time())
            details = {"was_enrolled": was, "sessions_ended": len(ended)}
            record(s, "cli", "second-factor-reset", f"user:{username}", details)
        return was
    finally:
        db.dispose()
