"""Wallets and the double-entry ledger, in integer cents.

Accounts: ``wallet:<username>`` (one per user); for each table ``wagers-in-play:table-<id>``
(reserved wagers), ``house:win:table-<id>`` (what the bank won less what it paid) and
``house:commission:table-<id>`` (one set per table, so that tables never wait for each other on a
shared row, and each table's results can be read apart); at a table offering side wagers
``side-wagers-in-play:table-<id>``, ``house:side-win:table-<id>`` (what the house won on side
wagers less what it paid) and ``house:envy:table-<id>`` (the Envy bonuses paid); for each
progressive bank ``progressive:meter:<bank>`` (the meter's base: what the house owes the next hit
less the shares the tables added since the last hit, seed or reset) and
``progressive:seed:<bank>`` (what the house put into the meter: its seeds and resets), and at a
table of a bank ``progressive:meter:shares:table-<id>`` (the shares its settlements added to its
banks' meters since: the rest of what the house owes, kept per table so that the tables'
settlements never wait on one shared row; a hit, a seed or a reset sweeps them into the bank's
account: :mod:`paigow.service.books.meters`); and ``operator:credits`` (the source of every
credited cent: its balance is minus what operators credited net of debits); apart from them,
play money: each player's ``play-wallet:<username>`` (what practice tables play for) and
``play:bank`` (the source of every play-money cent: minus what was handed out,
:mod:`paigow.service.books.play_money`). Every movement is
a pair of entries, one taking ``amount`` from an account and one giving it to another, written with
the accounts' new balances in the caller's transaction; so at every instant the sum of all accounts
is zero and the sum of every other account equals what operators credited.

>>> Movement("operator:credits", "wallet:ann", 500).amount
500
>>> Movement("wallet:ann", "wallet:ann", 5)
Traceback (most recent call last):
...
ValueError: a movement needs two different accounts
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.events import DragonSettled, SpotSettled
from paigow.service.books.account_sets import AccountSet
from paigow.service.books.meters import METER as METER
from paigow.service.books.meters import SEED as SEED
from paigow.service.books.meters import SHARES as SHARES
from paigow.service.books.meters import BankAccounts as BankAccounts
from paigow.service.books.meters import meter_problems
from paigow.service.books.meters import open_bank_accounts as open_bank_accounts
from paigow.service.books.meters import open_shares_account as open_shares_account
from paigow.service.books.meters import shares_account as shares_account
from paigow.service.http_errors import InsufficientFunds, NotFound
from paigow.service.statuses import WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.bus import notify_wallet
from paigow.service.store.db import (
    Account,
    LedgerEntry,
    LedgerTransaction,
    RoundRow,
    RoundWager,
    now,
)
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

WAGERS: Final = "wagers-in-play"
HOUSE_WIN: Final = "house:win"
HOUSE_COMMISSION: Final = "house:commission"
CREDITS: Final = "operator:credits"
TABLE_KINDS: Final = (WAGERS, HOUSE_WIN, HOUSE_COMMISSION)
SIDE_WAGERS: Final = "side-wagers-in-play"
HOUSE_SIDE_WIN: Final = "house:side-win"
HOUSE_ENVY: Final = "house:envy"
SIDE_KINDS: Final = (SIDE_WAGERS, HOUSE_SIDE_WIN, HOUSE_ENVY)
SYSTEM_ACCOUNTS: Final = (*TABLE_KINDS, *SIDE_KINDS, METER, SEED, CREDITS)
MAX_AMOUNT: Final = 10**13
"""No single movement may exceed this many cents (100 billion): keeps every sum in 64 bits."""


def wallet(username: str) -> str:
    """The wallet account of ``username``."""
    return f"wallet:{username}"


PLAY_WALLET: Final = "play-wallet:"
PLAY_BANK: Final = "play:bank"
"""The source of every player's play money (its balance is minus the play money handed out)."""


def play_wallet(username: str) -> str:
    """The play-money wallet of ``username`` (practice tables play for it): a wallet of its own,
    never below zero, apart from the real one.

    >>> play_wallet("ann"), is_wallet(play_wallet("ann")), kind_of(play_wallet("ann"))
    ('play-wallet:ann', True, 'play-wallet')
    """
    return f"{PLAY_WALLET}{username}"


def is_wallet(account: str) -> bool:
    """A player's wallet, real or play money: never below zero."""
    return account.startswith(("wallet:", PLAY_WALLET))


@dataclass(frozen=True)
class TableAccounts(AccountSet[int]):
    """The house's accounts at one table (``TableAccounts.of(table_id)``).

    >>> TableAccounts.of(7).wagers
    'wagers-in-play:table-7'
    """

    KINDS = TABLE_KINDS
    PATTERN = "{kind}:table-{key}"
    wagers: str
    win: str
    commission: str

    def settled(self, player: str, hand: SpotSettled | DragonSettled, memo: str) -> list[Movement]:
        """The money of one settled hand (a spot's or the dragon hand's), the one place it is
        derived: a loss moves the wager to the table's win; otherwise the wager goes back to
        ``player``'s account, the table pays the win and takes the commission.

        >>> from paigow.events import SpotSettled
        >>> won = SpotSettled(1, "win", "win", "win", 1000, 1000, 50, 1950, False)
        >>> [(m.source, m.target, m.amount) for m in TableAccounts.of(7).settled("w:a", won, "")]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('wagers-in-play:table-7', 'w:a', 1000), ('house:win:table-7', 'w:a', 1000),
         ('w:a', 'house:commission:table-7', 50)]
        """
        if hand.returned == 0:
            return [Movement(self.wagers, self.win, hand.wager, memo)]
        out = [Movement(self.wagers, player, hand.wager, memo)]
        if hand.win:
            out.append(Movement(self.win, player, hand.win, memo))
        if hand.commission:
            out.append(Movement(player, self.commission, hand.commission, memo + " commission"))
        return out


@dataclass(frozen=True)
class SideAccounts(AccountSet[int]):
    """The house's side-wager accounts at one table (``SideAccounts.of(table_id)``).

    >>> SideAccounts.of(7).envy
    'house:envy:table-7'
    """

    KINDS = SIDE_KINDS
    PATTERN = "{kind}:table-{key}"
    wagers: str
    win: str
    envy: str


def kind_of(account: str) -> str:
    """``wagers-in-play:table-7`` -> ``wagers-in-play``; wallets -> ``wallet``.

    >>> kind_of("progressive:meter:fortune"), kind_of("house:side-win:table-2")
    ('progressive:meter', 'house:side-win')
    """
    if account.startswith("wallet:"):
        return "wallet"
    if account.startswith(PLAY_WALLET):
        return "play-wallet"
    if account.startswith("progressive:"):
        return ":".join(account.split(":", 2)[:2])
    return account.split(":table-", 1)[0]


def open_table_accounts(session: Session, table_id: int, side: bool = False) -> TableAccounts:
    """Open a new table's accounts (``side``: its side wagers' too)."""
    accounts = TableAccounts.of(table_id).open(session)
    if side:
        SideAccounts.of(table_id).open(session)
    return accounts


@dataclass(frozen=True)
class Movement:
    """``amount`` cents taken from ``source`` and given to ``target``."""

    source: str
    target: str
    amount: int
    memo: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.amount, int) or isinstance(self.amount, bool):
            raise TypeError("money is integer cents")
        if not 0 < self.amount <= MAX_AMOUNT:
            raise ValueError(f"a movement must be 1..{MAX_AMOUNT} cents, got {self.amount}")
        if self.source == self.target:
            raise ValueError("a movement needs two different accounts")


def open_wallet(session: Session, username: str, user_id: int) -> None:
    session.add(Account(name=wallet(username), kind="wallet", user_id=user_id, balance=0))


def balance(tx: Tx, account: str) -> int:
    """An account's balance (a wallet's as this step left it, when it moved it)."""
    known = tx.step.balances.get(account)
    if known is not None:
        return known
    value = tx.scalar(_BALANCE, {"n": account})
    if value is None:
        raise NotFound(f"no account {account!r}")
    return int(value)


def balance_and_version(tx: Tx, account: str) -> tuple[int, int]:
    """An account's committed balance and its version (how many times a wallet has changed)."""
    row = tx.first(_BALANCE_VERSION, {"n": account})
    if row is None:
        raise NotFound(f"no account {account!r}")
    return int(row[0]), int(row[1])


def _deferred(tx: Tx) -> dict[str, int]:
    """The house's accounts (``wagers-in-play`` and the others, which every table's money goes
    through) are updated last, when the step's work is done (:meth:`Tx.finish`), so that their
    rows stay locked for as short a time as possible (PostgreSQL). Wallets are updated at once
    (their balance is checked). Lock order in every transaction: the table, then wallets
    (sorted), then house accounts (sorted): no cycle, no deadlock."""
    return tx.step.house_deltas


def post(
    tx: Tx,
    kind: str,
    movements: Sequence[Movement],
    *,
    reference: str | None = None,
    actor: str | None = None,
    amount: int = 0,
) -> int:
    """Write ``movements`` as one ledger transaction in the step's database transaction and
    update the balances. A wallet never goes below zero: :class:`InsufficientFunds` is raised
    instead (the step then rolls back, so nothing is written). Balances are updated in one fixed
    order of account names, so concurrent transactions never deadlock."""
    if not movements:
        raise ValueError("a ledger transaction needs at least one movement")
    deltas: dict[str, int] = defaultdict(int)
    for m in movements:
        deltas[m.source] -= m.amount
        deltas[m.target] += m.amount
    deferred = _deferred(tx)
    wallets: list[tuple[str, int]] = []
    for name in sorted(deltas):
        delta = deltas[name]
        if delta == 0:
            continue
        if not is_wallet(name):
            deferred[name] = deferred.get(name, 0) + delta
            continue
        wallets.append((name, delta))
    # the transaction's row and the wallets' balances in one round trip (their rows are needed:
    # the transaction's id, each wallet's balance, or none where it would go below zero)
    got = tx.together(
        (
            _INSERT_TXN,
            {
                "kind": kind,
                "amount": amount,
                "reference": reference,
                "actor": actor,
                "created_at": now(),
            },
        ),
        *((_ADD_RETURNING if d > 0 else _TAKE_RETURNING, {"n": n, "d": d}) for n, d in wallets),
    )
    txn_id = got[0][0][0]
    for (name, delta), updated_rows in zip(wallets, got[1:], strict=True):
        if updated_rows:
            updated = updated_rows[0]
            tx.step.balances[name] = int(updated[0])
            if updated[1] is not None:
                notify_wallet(tx, int(updated[1]), int(updated[0]), int(updated[2]))
        else:
            if tx.first(_ACCOUNT, {"n": name}) is None:
                raise NotFound(f"no account {name!r}")
            what = "play money" if name.startswith(PLAY_WALLET) else "funds"
            raise InsufficientFunds(
                f"insufficient {what}: {name.removeprefix('wallet:').removeprefix(PLAY_WALLET)} "
                f"has {balance(tx, name)} cents, {-delta} needed"
            )
    rows: list[dict[str, Any]] = []
    for pair_no, m in enumerate(movements):
        for account, value in ((m.source, -m.amount), (m.target, m.amount)):
            rows.append(
                {
                    "txn_id": txn_id,
                    "pair_no": pair_no,
                    "account": account,
                    "amount": value,
                    "memo": m.memo,
                }
            )
    tx.many(_INSERT_ENTRY, rows, later=True)
    return int(txn_id)


_TXNS: Final = cast(sa.Table, LedgerTransaction.__table__)
_ENTRIES: Final = cast(sa.Table, LedgerEntry.__table__)
_INSERT_TXN: Final = Sql(
    sa.insert(_TXNS)
    .values({c: sa.bindparam(c) for c in ("kind", "amount", "reference", "actor", "created_at")})
    .returning(_TXNS.c.id)
)
_INSERT_ENTRY: Final = Sql(
    sa.insert(_ENTRIES).values(
        {c: sa.bindparam(c) for c in ("txn_id", "pair_no", "account", "amount", "memo")}
    )
)
_ACCOUNTS: Final = cast(sa.Table, Account.__table__)
_ADD_CORE: Final = (
    sa.update(_ACCOUNTS)
    .where(_ACCOUNTS.c.name == sa.bindparam("n"))
    .values(balance=_ACCOUNTS.c.balance + sa.bindparam("d", type_=sa.BigInteger))
)
_ADD_WALLET: Final = _ADD_CORE.values(version=_ACCOUNTS.c.version + 1)
_ADD_RETURNING: Final = Sql(
    _ADD_WALLET.returning(_ACCOUNTS.c.balance, _ACCOUNTS.c.user_id, _ACCOUNTS.c.version)
)
_TAKE_RETURNING: Final = Sql(
    _ADD_WALLET.where(_ACCOUNTS.c.balance + sa.bindparam("d", type_=sa.BigInteger) >= 0).returning(
        _ACCOUNTS.c.balance, _ACCOUNTS.c.user_id, _ACCOUNTS.c.version
    )
)
"""Statements compiled once: an account's balance moved by ``d`` cents; a wallet's version
counting its changes; taking from a wallet only while its balance stays at least zero."""
_BALANCE: Final = Sql(sa.select(_ACCOUNTS.c.balance).where(_ACCOUNTS.c.name == sa.bindparam("n")))
_BALANCE_VERSION: Final = Sql(
    sa.select(_ACCOUNTS.c.balance, _ACCOUNTS.c.version).where(_ACCOUNTS.c.name == sa.bindparam("n"))
)
_ACCOUNT: Final = Sql(sa.select(_ACCOUNTS.c.name).where(_ACCOUNTS.c.name == sa.bindparam("n")))


# ------------------------------------------------------------------------------------ checking
@dataclass
class LedgerReport:
    """The result of :func:`check`: ``balanced`` only when every check holds."""

    accounts: dict[str, int] = field(default_factory=dict)
    credited: int = 0
    problems: list[str] = field(default_factory=list)
    transactions: int = 0
    entries: int = 0

    @property
    def balanced(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "balanced": self.balanced,
            "credited": self.credited,
            "sum_of_accounts": sum(v for k, v in self.accounts.items() if k != CREDITS),
            "transactions": self.transactions,
            "entries": self.entries,
            "system_accounts": {
                kind: sum(v for k, v in self.accounts.items() if kind_of(k) == kind)
                for kind in SYSTEM_ACCOUNTS
            },
            "wallets_total": sum(v for k, v in self.accounts.items() if k.startswith("wallet:")),
            "problems": self.problems[:100],
        }


def check(session: Session) -> LedgerReport:
    """Check the whole ledger: every pair of entries balances; every account's balance is the
    sum of its entries; no wallet is negative; the sum of all accounts but ``operator:credits``
    equals what operators credited (net of debits, from the transactions' own records) and is
    minus ``operator:credits``; ``wagers-in-play`` holds exactly the wagers still in play (the
    dragon hand's among them) and ``side-wagers-in-play`` the side wagers; each bank's
    ``progressive:meter:<bank>`` equals its base and each table's
    ``progressive:meter:shares:table-<t>`` its contributions to its banks' meters (so the accounts
    of a bank and of its tables hold its meter)."""
    report = LedgerReport()
    for name, bal in session.execute(sa.select(Account.name, Account.balance)):
        report.accounts[name] = int(bal)
    report.transactions = int(
        session.execute(sa.select(sa.func.count(LedgerTransaction.id))).scalar() or 0
    )
    report.entries = int(session.execute(sa.select(sa.func.count(LedgerEntry.id))).scalar() or 0)
    bad_pairs = session.execute(
        sa.select(LedgerEntry.txn_id, LedgerEntry.pair_no)
        .group_by(LedgerEntry.txn_id, LedgerEntry.pair_no)
        .having(
            sa.or_(
                sa.func.count() != 2,
                sa.func.sum(LedgerEntry.amount) != 0,
                sa.func.min(LedgerEntry.amount) >= 0,
            )
        )
        .limit(20)
    ).all()
    for txn_id, pair_no in bad_pairs:
        report.problems.append(f"transaction {txn_id} pair {pair_no} does not balance")
    sums = dict(
        session.execute(
            sa.select(LedgerEntry.account, sa.func.sum(LedgerEntry.amount)).group_by(
                LedgerEntry.account
            )
        ).all()
    )
    for name, bal in report.accounts.items():
        total = int(sums.get(name) or 0)
        if total != bal:
            report.problems.append(f"account {name}: balance {bal} but its entries sum to {total}")
        if is_wallet(name) and bal < 0:
            report.problems.append(f"account {name} is negative ({bal})")
    for name in sums:
        if name not in report.accounts:
            report.problems.append(f"entries name an unknown account {name!r}")
    credits = session.execute(
        sa.select(LedgerTransaction.kind, sa.func.sum(LedgerTransaction.amount))
        .where(LedgerTransaction.kind.in_(("credit", "debit")))
        .group_by(LedgerTransaction.kind)
    ).all()
    by_kind = {k: int(v or 0) for k, v in credits}
    report.credited = by_kind.get("credit", 0) - by_kind.get("debit", 0)
    total = sum(report.accounts.values())
    if total != 0:
        report.problems.append(f"the accounts sum to {total}, not 0")
    others = total - report.accounts.get(CREDITS, 0)
    if others != report.credited:
        report.problems.append(
            f"the accounts hold {others} but operators credited {report.credited}"
        )
    if -report.accounts.get(CREDITS, 0) != report.credited:
        report.problems.append(
            f"operator:credits is {report.accounts.get(CREDITS, 0)}, credited {report.credited}"
        )
    in_play: dict[str, int] = defaultdict(int)
    for model in (RoundWager, RoundDragon):  # a dragon wager is held there as a main wager is
        for table_id, held in session.execute(
            sa.select(RoundRow.table_id, sa.func.sum(model.amount))
            .join(RoundRow, RoundRow.id == model.round_id)
            .where(model.status == WagerStatus.IN_PLAY)
            .group_by(RoundRow.table_id)
        ).all():
            in_play[TableAccounts.of(int(table_id)).wagers] += int(held or 0)
    for name, bal in report.accounts.items():
        if kind_of(name) == WAGERS and bal != in_play.get(name, 0):
            report.problems.append(
                f"{name} holds {bal} but the wagers in play there are {in_play.get(name, 0)}"
            )
    for name in in_play:
        if name not in report.accounts:
            report.problems.append(f"wagers in play at a table without its account {name!r}")
    side_in_play = {
        SideAccounts.of(int(table_id)).wagers: int(total or 0)
        for table_id, total in session.execute(
            sa.select(RoundRow.table_id, sa.func.sum(RoundSideWager.amount))
            .join(RoundRow, RoundRow.id == RoundSideWager.round_id)
            .where(RoundSideWager.status == WagerStatus.IN_PLAY)
            .group_by(RoundRow.table_id)
        ).all()
    }
    for name, bal in report.accounts.items():
        if kind_of(name) == SIDE_WAGERS and bal != side_in_play.get(name, 0):
            report.problems.append(
                f"{name} holds {bal} but the side wagers in play there are "
                f"{side_in_play.get(name, 0)}"
            )
    for name in side_in_play:
        if name not in report.accounts:
            report.problems.append(f"side wagers in play at a table without its account {name!r}")
    handed = int(
        session.execute(
            sa.select(sa.func.coalesce(sa.func.sum(LedgerTransaction.amount), 0)).where(
                LedgerTransaction.kind == "play-top-up"
            )
        ).scalar_one()
    )
    if -report.accounts.get(PLAY_BANK, 0) != handed:
        report.problems.append(
            f"{PLAY_BANK} is {report.accounts.get(PLAY_BANK, 0)}, play money handed out {handed}"
        )
    report.problems += meter_problems(session, report.accounts)
    return report
