"""The progressive meters' accounts in the ledger (:mod:`paigow.service.books.ledger` posts to
them) and their check. A bank's meter is its base plus each of its tables' contribution
(:mod:`paigow.service.store.bonus_models`): ``progressive:meter:<bank>`` holds the base,
``progressive:meter:shares:table-<t>`` what table ``t`` added to its banks' meters since their
last hit, seed or reset (one account per table for all its banks: an account's name is at most
64 characters and a bank's name alone may take 40), and ``progressive:seed:<bank>`` what the
house put into the meter (its seeds and resets).

>>> BankAccounts.of("fortune").meter, shares_account(7)
('progressive:meter:fortune', 'progressive:meter:shares:table-7')
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.books.account_sets import AccountSet, open_system_account
from paigow.service.store.bonus_models import ProgressiveBank, ProgressiveTable

METER: Final = "progressive:meter"
SEED: Final = "progressive:seed"
SHARES: Final = f"{METER}:shares:table-"
"""The prefix of a table's account of its shares of the meters (a bank's name has no colon:
never the name of a bank's account)."""


def shares_account(table_id: int) -> str:
    """The account of the shares table ``table_id`` added to its banks' meters."""
    return f"{SHARES}{table_id}"


@dataclass(frozen=True)
class BankAccounts(AccountSet[str]):
    """A progressive bank's accounts: its meter's base (a liability) and the house's seed
    (``BankAccounts.of(bank)``)."""

    KINDS = (METER, SEED)
    PATTERN = "{kind}:{key}"
    meter: str
    seed: str


def open_bank_accounts(session: Session, bank: str) -> BankAccounts:
    """Open a new progressive bank's accounts."""
    return BankAccounts.of(bank).open(session)


def open_shares_account(session: Session, table_id: int) -> str:
    """Open the account of a new table's shares of its progressive banks' meters."""
    name = shares_account(table_id)
    open_system_account(session, name)
    return name


def meter_problems(session: Session, accounts: Mapping[str, int]) -> list[str]:
    """What is wrong with the meters' accounts (``accounts``: every account's balance): each
    bank's ``progressive:meter:<bank>`` must hold its base, each table's account of shares its
    contributions to its banks' meters, and no other meter account may exist."""
    owed: dict[str, int] = {
        BankAccounts.of(bank).meter: int(base)
        for bank, base in session.execute(sa.select(ProgressiveBank.bank, ProgressiveBank.base))
    }
    shares: dict[str, int] = defaultdict(int)
    for table_id, contribution in session.execute(
        sa.select(ProgressiveTable.table_id, ProgressiveTable.contribution)
    ):
        shares[shares_account(int(table_id))] += int(contribution)
    owed.update(shares)
    problems = []
    for name, bal in accounts.items():
        if not name.startswith(f"{METER}:"):
            continue
        if name not in owed:
            problems.append(f"{name} holds {bal} but is no bank's nor table's meter")
        elif owed[name] != bal:
            what = "its table's shares are" if name in shares else "its bank's base is"
            problems.append(f"{name} holds {bal} but {what} {owed[name]}")
    for name, value in owed.items():
        if name not in accounts:
            problems.append(f"a progressive meter without its account {name!r} ({value})")
    return problems
