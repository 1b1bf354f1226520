"""A set of the house's ledger accounts named after one key (a table's id, a progressive bank's
name): one field an account, named ``KINDS[i]`` and the key by ``PATTERN``
(:class:`paigow.service.books.ledger.TableAccounts`, ``SideAccounts`` and
:class:`paigow.service.books.meters.BankAccounts`), and the opening of system accounts.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Pair(AccountSet[int]):
...     KINDS = ("left", "right")
...     PATTERN = "{kind}:table-{key}"
...     left: str
...     right: str
>>> Pair.of(7), Pair.of(7).names()
(Pair(left='left:table-7', right='right:table-7'), ('left:table-7', 'right:table-7'))
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import ClassVar, Generic, Self, TypeVar

from sqlalchemy.orm import Session

from paigow.service.store.db import Account

K = TypeVar("K", int, str)


def open_system_account(session: Session, name: str) -> None:
    """Add a new system account of the house (balance 0) to the session."""
    session.add(Account(name=name, kind="system", user_id=None, balance=0))


@dataclass(frozen=True)
class AccountSet(Generic[K]):
    """The accounts of one key; a subclass names its fields and sets ``KINDS`` (one a field, in
    order) and ``PATTERN`` (an account's name from its ``kind`` and the ``key``)."""

    KINDS: ClassVar[tuple[str, ...]]
    PATTERN: ClassVar[str]

    @classmethod
    def of(cls, key: K) -> Self:
        return cls(*(cls.PATTERN.format(kind=kind, key=key) for kind in cls.KINDS))

    def names(self) -> tuple[str, ...]:
        """Every account's name, in the order of the fields."""
        return tuple(str(name) for name in astuple(self))

    def open(self, session: Session) -> Self:
        """Open every account of the set (a new table's, a new bank's)."""
        for name in self.names():
            open_system_account(session, name)
        return self
