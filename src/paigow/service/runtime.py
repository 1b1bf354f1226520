"""Everything one server process shares: the database, the configuration, the event bus, the
password hasher, the token signer and the login limiter; and write transactions that send table
notices when (and only when) they commit."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.auth import (
    SECRET_SETTING,
    LoginLimiter,
    Passwords,
    Principal,
    TokenSigner,
    new_secret,
)
from paigow.service.db import Database, ServerSetting, User
from paigow.service.events_bus import EventBus, Notice

if TYPE_CHECKING:
    from paigow.round import Round
    from paigow.service.config import ServiceConfig

PRINCIPAL_TTL_S = 30.0


class RoundCache:
    """Rounds rebuilt from their logs, kept between transactions of this process so that the
    next step need not replay the log again. An entry is used only when the database's event
    count still matches (another process may have moved the round on), is taken out while a
    transaction uses it, and is put back only after that transaction commits."""

    def __init__(self, size: int = 512) -> None:
        self._items: OrderedDict[str, tuple[int, Round]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, round_id: str, event_count: int) -> Round | None:
        with self._lock:
            item = self._items.pop(round_id, None)
        if item is None or item[0] != event_count:
            return None
        return item[1]

    def put(self, rnd: Round) -> None:
        with self._lock:
            self._items[rnd.round_id] = (len(rnd.events), rnd)
            self._items.move_to_end(rnd.round_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class Runtime:
    """Shared state of one process."""

    def __init__(self, config: ServiceConfig, db: Database | None = None) -> None:
        self.config = config
        self.db = db or Database(config.database_url)
        self.bus = EventBus(self.db)
        self.passwords = Passwords(
            config.argon2_time_cost, config.argon2_memory_kib, config.argon2_parallelism
        )
        self.limiter = LoginLimiter(
            config.login_limit_user, config.login_limit_addr, config.login_window_s
        )
        self._signer: TokenSigner | None = None
        self._signer_lock = threading.Lock()
        self.rounds = RoundCache()
        self._principals: dict[int, tuple[float, Principal]] = {}

    def __repr__(self) -> str:
        return f"Runtime({self.db.display_url()})"

    # ----------------------------------------------------------------------------- tokens
    @property
    def signer(self) -> TokenSigner:
        with self._signer_lock:
            if self._signer is None:
                self._signer = TokenSigner(self._load_secret().encode())
            return self._signer

    def _load_secret(self) -> str:
        secret = self.config.secret or os.environ.get("PAIGOW_SECRET")
        if secret:
            return secret
        with self.write() as s:
            row = s.get(ServerSetting, SECRET_SETTING)
            if row is None:
                row = ServerSetting(key=SECRET_SETTING, value=new_secret())
                s.add(row)
            return row.value

    def principal(self, user_id: int) -> Principal | None:
        """The user (id, name, role), cached for a few seconds."""
        t = time.monotonic()
        hit = self._principals.get(user_id)
        if hit is not None and hit[0] > t:
            return hit[1]
        with self.db.read() as s:
            row = s.execute(
                sa.select(User.id, User.username, User.role).where(User.id == user_id)
            ).first()
        if row is None:
            return None
        p = Principal(int(row[0]), str(row[1]), str(row[2]))
        if len(self._principals) > 100_000:
            self._principals.clear()
        self._principals[user_id] = (t + PRINCIPAL_TTL_S, p)
        return p

    # ----------------------------------------------------------------------------- transactions
    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction. Call :func:`notify` inside it to announce a table change: with
        PostgreSQL the notice is sent with ``pg_notify`` in the transaction; with SQLite it is
        delivered in-process after the commit."""
        with self.db.write() as s:
            s.info["rounds"] = self.rounds
            yield s
            notices: list[Notice] = s.info.get("notices", [])
            after: list[Callable[[], None]] = s.info.get("after_commit", [])
            if notices and self.db.is_postgres:
                channel = self.db.channel()
                for n in dict.fromkeys(notices):
                    s.execute(sa.text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": n.encode()})
        for fn in after:
            fn()
        if notices and not self.db.is_postgres:
            self.bus.publish_local(notices)


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Run ``fn`` once ``session``'s transaction has committed (never if it rolls back)."""
    session.info.setdefault("after_commit", []).append(fn)


def notify(session: Session, table_id: int, kind: str = "round") -> None:
    """Announce, when ``session`` commits, that table ``table_id`` changed."""
    session.info.setdefault("notices", []).append(Notice(table_id, kind))


WALLET = "wallet"
"""The kind of notice that says "user N's wallet changed" (sent on channel ``-N``)."""


def notify_wallet(session: Session, user_id: int) -> None:
    """Announce, when ``session`` commits, that ``user_id``'s wallet balance changed (watchers
    subscribe to ``-user_id`` on the bus, apart from every table's number)."""
    session.info.setdefault("notices", []).append(Notice(-user_id, WALLET))
