"""Operator accounts, created from the command line (``paigow admin create``), never over the API."""

from __future__ import annotations

from typing import Any

from paigow.service.accounts.credentials import USERNAME_RULE, is_username, password_problem
from paigow.service.accounts.users import create_user
from paigow.service.books.audit import record
from paigow.service.config import ServiceConfig
from paigow.service.errors import Unprocessable
from paigow.service.statuses import Role
from paigow.service.store.db import Database


def create_operator(
    database_url: str, username: str, password: str, *, config: ServiceConfig | None = None
) -> dict[str, Any]:
    """Create an operator (migrating the database first if needed)."""
    from paigow.service.accounts.auth import Passwords

    if not is_username(username):
        raise Unprocessable(f"a username is {USERNAME_RULE}")
    if not 8 <= len(password) <= 128:
        raise Unprocessable("a password is 8 to 128 characters")
    problem = password_problem(password, username)
    if problem is not None:
        raise Unprocessable(problem, code="weak-password")
    cfg = config or ServiceConfig.from_env(database_url)
    db = Database(database_url)
    try:
        db.migrate()
        hashed = Passwords(
            cfg.argon2_time_cost, cfg.argon2_memory_kib, cfg.argon2_parallelism
        ).hash(password)
        with db.write() as s:
            user = create_user(s, username, hashed, Role.OPERATOR)
            record(s, "cli", "operator-created", f"user:{username}", {"id": user["id"]})
        return user
    finally:
        db.dispose()
