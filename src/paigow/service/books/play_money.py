"""Play money: practice tables play for a balance of their own, never for the real wallet.

Each player's ``play-wallet:<username>`` opens at their first practice with :data:`PLAY_START`
handed out from ``play:bank``; the player tops it up (``POST /api/me/play-money``) to at most
:data:`PLAY_CAP` (above it: 409 ``play-money-cap``, saying how much may still be added). Every
play-money movement is a ledger transaction of its own kind (``play-top-up``, and at a practice
table ``play-wager``, ``play-settlement``, ``play-void-refund``), so the floor's report of the
house's money never counts it. Play money at a casino table is refused (``play-money-casino``).

>>> txn_kind("wager", practice=True), txn_kind("settlement", practice=False)
('play-wager', 'settlement')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from paigow.money import format_money
from paigow.ruleset import Ruleset
from paigow.service.books import ledger
from paigow.service.books.ledger import PLAY_BANK, Movement, play_wallet, wallet
from paigow.service.http_errors import Conflict, Forbidden, Unprocessable
from paigow.service.store.commit import account_seen, see_account
from paigow.service.store.db import Account
from paigow.service.store.unit import Tx

PLAY_START: Final = 100_000
"""The play money a player's play wallet opens with ($1,000.00)."""
PLAY_CAP: Final = 1_000_000
"""The most play money a top-up may bring a play wallet to ($10,000.00)."""
TOP_UP: Final = "play-top-up"


def txn_kind(kind: str, practice: bool) -> str:
    """The ledger transaction's kind of a table's movement: ``play-`` before it at a practice
    table (play money)."""
    return f"play-{kind}" if practice else kind


def refuse_at_casino(practice: bool, play_money: bool | None) -> None:
    """Play money asked for at a casino table: refused (403 ``play-money-casino``)."""
    if play_money and not practice:
        raise Forbidden(
            "play money is for practice tables only: a casino table plays for your wallet",
            code="play-money-casino",
        )


def to_play(movements: Sequence[Movement]) -> list[Movement]:
    """A practice table's movements: each real wallet in them replaced by its play wallet.

    >>> to_play([Movement("wallet:ann", "wagers-in-play:table-2", 500, "spot 1")])[0].source
    'play-wallet:ann'
    """

    def swap(account: str) -> str:
        return play_wallet(account[len("wallet:") :]) if account.startswith("wallet:") else account

    return [replace(m, source=swap(m.source), target=swap(m.target)) for m in movements]


def post(
    tx: Tx,
    kind: str,
    movements: Sequence[Movement],
    practice: bool,
    **kw: Any,
) -> int:
    """:func:`paigow.service.books.ledger.post` of a table's movements: at a practice table in
    play money (each wallet its play wallet, the kind ``play-`` before it)."""
    if practice:
        return ledger.post(tx, txn_kind(kind, True), to_play(movements), **kw)
    return ledger.post(tx, kind, movements, **kw)


def refuse_progressive(practice: bool, ruleset: Ruleset) -> None:
    """A practice table sharing a progressive bank: refused (422 ``practice-progressive``), its
    play money would feed a meter that holds the house's money."""
    banks = [o.name for o in ruleset.side_wagers if o.bank is not None]
    if practice and banks:
        raise Unprocessable(
            f"a practice table plays for play money: it cannot share a progressive bank's "
            f"meter ({', '.join(banks)}), which holds the house's money",
            code="practice-progressive",
        )


def _open(tx: Tx, username: str) -> bool:
    """Open the player's play wallet if it is not open yet; whether this call opened it."""
    table = Account.__table__
    name = play_wallet(username)
    values = {"name": name, "kind": "wallet", "user_id": None, "balance": 0}
    dialect = tx.session.get_bind().dialect.name
    insert: Any = (postgresql if dialect == "postgresql" else sqlite).insert(table)
    if account_seen(tx, name):  # a wager's usual case: no read at all
        return False
    if tx.session.execute(sa.select(Account.name).where(Account.name == name)).first():
        see_account(tx, name)
        return False
    stmt = (
        insert.values(**values)
        .on_conflict_do_nothing(index_elements=["name"])
        .returning(table.c.name)  # a row only when this call opened it
    )
    return tx.session.execute(stmt).first() is not None


def account_for(tx: Tx, username: str, practice: bool) -> str:
    """The account a player wagers from and is paid to at a table: the wallet at a casino
    table; at a practice table the play wallet (opened with :data:`PLAY_START` the first
    time)."""
    if not practice:
        return wallet(username)
    if _open(tx, username):
        ledger.post(
            tx,
            TOP_UP,
            [Movement(PLAY_BANK, play_wallet(username), PLAY_START, "first practice")],
            actor=username,
            amount=PLAY_START,
            reference=username,
        )
    return play_wallet(username)


def balance(tx: Tx, username: str) -> int | None:
    """The player's play money, or None before their first practice."""
    found = tx.session.execute(
        sa.select(Account.balance).where(Account.name == play_wallet(username))
    ).first()
    return None if found is None else int(found[0])


def top_up(tx: Tx, username: str, amount: int) -> dict[str, Any]:
    """Add ``amount`` cents of play money, to at most :data:`PLAY_CAP` in all."""
    account = account_for(tx, username, practice=True)
    now = ledger.balance(tx, account)
    if now + amount > PLAY_CAP:
        room = max(0, PLAY_CAP - now)
        raise Conflict(
            f"play money tops up to at most {format_money(PLAY_CAP)}: you have "
            f"{format_money(now)}, so at most {format_money(room)} may be added",
            code="play-money-cap",
        )
    txn = ledger.post(
        tx,
        TOP_UP,
        [Movement(PLAY_BANK, account, amount, "top-up")],
        actor=username,
        amount=amount,
        reference=username,
    )
    return {
        "play_balance": ledger.balance(tx, account),
        "amount": amount,
        "cap": PLAY_CAP,
        "transaction_id": txn,
    }
