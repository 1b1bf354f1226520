"""A table's side wagers as the service keeps them: the offers an operator gives when creating a
table (a preset pay table by name or a pay table's TOML text, limits and, for a progressive, its
bank), and the progressive banks: their meters, the tables of each bank, seeding and resetting
a bank (audited), and the meter's notices to every table of its bank.

A bank's meter is its base (``progressive_banks``, mirrored by the ledger's account
``progressive:meter:<bank>``) plus each of its tables' contribution (``progressive_tables``,
mirrored by ``progressive:meter:shares:table-<t>``), each row and its account written in the same
transaction: the house funds the seed from ``progressive:seed:<bank>``; each settled progressive
wager moves its share into its own table's contribution, so that a settlement that cannot pay
from the meter touches no row another table's settlement needs; a hit (or an operator's seed or
reset) locks the bank whole, sweeps the contributions into the base, pays from it and the house
resets it to the seed.

>>> bank_name("Fortune-1")
'fortune-1'
>>> bank_name("no spaces")
Traceback (most recent call last):
...
paigow.service.http_errors.Unprocessable: bad progressive bank name 'no spaces': 1 to 40 lowercase letters, digits and hyphens
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.bonus.paytable import BONUS_PRESETS, PayTable
from paigow.errors import PaigowError
from paigow.ruleset import Ruleset, SideWagerOffer
from paigow.service.books import ledger
from paigow.service.books.audit import record
from paigow.service.books.ledger import BankAccounts, Movement
from paigow.service.http_errors import NotFound, Unprocessable
from paigow.service.store import bus
from paigow.service.store.bonus_models import (
    MEMBER,
    ProgressiveBank,
    ProgressiveTable,
    meter_totals,
)
from paigow.service.store.db import now
from paigow.service.store.statements import Sql
from paigow.service.store.step import LockedBank
from paigow.service.store.unit import Tx

_BANK: Final = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_TOML: Final = 20_000
"""The longest pay table's TOML text a request may give (characters)."""


def bank_name(text: str) -> str:
    """A progressive bank's name, checked (it names ledger accounts)."""
    name = text.strip().lower()
    if not _BANK.match(name):
        raise Unprocessable(
            f"bad progressive bank name {text!r}: 1 to 40 lowercase letters, digits and hyphens",
            code="bad-side-wager",
        )
    return name


@dataclass(frozen=True)
class OfferSpec:
    """An operator's side-wager offer as requested (before it is checked)."""

    name: str
    paytable: str | None
    paytable_toml: str | None
    min_wager: int
    max_wager: int
    bank: str | None = None


def pay_table_of(spec: OfferSpec) -> PayTable:
    """The offer's pay table: a preset by name, or the TOML text given (never a file: the API
    must not read the server's files). A bad one is refused naming what is wrong (its line)."""
    where = f"side wager {spec.name!r}"
    if (spec.paytable is None) == (spec.paytable_toml is None):
        raise Unprocessable(
            f"{where}: give either paytable (a preset: {', '.join(BONUS_PRESETS)}) or "
            "paytable_toml (the pay table's text), not both or neither",
            code="bad-side-wager",
        )
    try:
        if spec.paytable is not None:
            name = spec.paytable.strip().lower()
            if name not in BONUS_PRESETS:
                raise Unprocessable(
                    f"{where}: unknown pay table {spec.paytable!r}: use a preset "
                    f"({', '.join(BONUS_PRESETS)}) or give paytable_toml",
                    code="bad-side-wager",
                )
            return PayTable.preset(name)
        assert spec.paytable_toml is not None
        if len(spec.paytable_toml) > MAX_TOML:
            raise Unprocessable(
                f"{where}: the pay table's text is over {MAX_TOML} characters",
                code="bad-side-wager",
            )
        return PayTable.from_toml(spec.paytable_toml, origin=f"{where} paytable_toml")
    except PaigowError as exc:
        raise Unprocessable(f"{where}: {exc}", code="bad-paytable") from None


def build_offers(specs: Sequence[OfferSpec]) -> tuple[SideWagerOffer, ...]:
    """The offers of a new table, each checked (limits, pay table, bank)."""
    offers = []
    for spec in specs:
        table = pay_table_of(spec)
        kw: dict[str, Any] = {}
        if table.progressive is not None:
            kw["bank"] = bank_name(spec.bank if spec.bank is not None else table.name)
        elif spec.bank is not None:
            raise Unprocessable(
                f"side wager {spec.name!r}: pay table {table.name!r} is not a progressive: "
                "it takes no bank",
                code="bad-side-wager",
            )
        try:
            offers.append(SideWagerOffer(spec.name, table, spec.min_wager, spec.max_wager, **kw))
        except PaigowError as exc:
            raise Unprocessable(f"side wager {spec.name!r}: {exc}", code="bad-side-wager") from None
    return tuple(offers)


def progressive_offers(rules: Ruleset) -> list[SideWagerOffer]:
    """The ruleset's progressive offers."""
    return [o for o in rules.side_wagers if o.table.progressive is not None]


def share_of(offer: SideWagerOffer, wager: int) -> int:
    """The cents of ``wager`` that go to the meter (its configured share, rounded down)."""
    prog = offer.table.progressive
    if prog is None:
        return 0
    share = prog.share * wager
    return share.numerator // share.denominator


# --------------------------------------------------------------------------------- banks
_BANKS: Final = cast(sa.Table, ProgressiveBank.__table__)
_BANK_TABLES: Final = cast(sa.Table, ProgressiveTable.__table__)


def join_banks(tx: Tx, table_id: int, rules: Ruleset, operator: str) -> None:
    """A new table joins the banks of its progressive offers (its contributions at zero, its
    account of shares opened); a bank opens, seeded by the house, with its first table. A
    bank's tables all offer the same progressive."""
    session = tx.session
    offers = progressive_offers(rules)
    if offers:
        ledger.open_shares_account(session, table_id)
    for offer in offers:
        prog = offer.table.progressive
        bank = offer.bank
        assert prog is not None and bank is not None
        share = str(Fraction(prog.share))
        row = session.get(ProgressiveBank, bank, with_for_update=True)
        if row is None:
            row = ProgressiveBank(
                bank=bank,
                paytable=offer.table.name,
                share=share,
                seed=prog.seed,
                base=0,
                version=0,
                updated_at=now(),
            )
            session.add(row)
            session.flush()
            accounts = ledger.open_bank_accounts(session, bank)
            session.flush()
            if prog.seed > 0:
                ledger.post(
                    tx,
                    "progressive-seed",
                    [Movement(accounts.seed, accounts.meter, prog.seed, memo="seed")],
                    reference=f"bank:{bank}",
                    actor=operator,
                )
                row.base = prog.seed
                row.version = 1
            record(
                session,
                operator,
                "progressive-bank-opened",
                f"bank:{bank}",
                {"paytable": offer.table.name, "share": share, "seed": prog.seed},
            )
        elif (row.paytable, row.share, row.seed) != (offer.table.name, share, prog.seed):
            raise Unprocessable(
                f"side wager {offer.name!r}: bank {bank!r} is {row.paytable!r} (share {row.share}, "
                f"seed {row.seed} cents); this offer's pay table is {offer.table.name!r} (share "
                f"{share}, seed {prog.seed} cents): a bank's tables offer the same progressive",
                code="bank-mismatch",
            )
        session.add(ProgressiveTable(bank=bank, table_id=table_id, contribution=0, version=0))


# A bank's meter is its base plus its tables' contributions (:mod:`..store.bonus_models`). Lock
# order, in every step: banks in name order; for each, either (a step that may pay from the
# meter, or an operator's seed or reset) the bank's row, then every table's row in table order,
# or (a settlement that cannot pay from it) only its own table's row; then the wallets, then the
# house's accounts (:func:`paigow.service.books.ledger.post`). A settlement that cannot hit
# locks nothing another table's settlement needs; a hit waits for the settlements in flight at
# the bank's tables and they for it: never a cycle.
_ADD_SHARE: Final = Sql(
    sa.update(_BANK_TABLES)
    .where(_BANK_TABLES.c.bank == sa.bindparam("b"), _BANK_TABLES.c.table_id == sa.bindparam("tid"))
    .values(
        contribution=_BANK_TABLES.c.contribution + sa.bindparam("d", type_=sa.BigInteger),
        version=_BANK_TABLES.c.version + 1,
    )
    .returning(_BANK_TABLES.c.table_id)
)
_BANK_ROW: Final = sa.select(_BANKS.c.base, _BANKS.c.version).where(
    _BANKS.c.bank == sa.bindparam("b")
)
_TABLE_ROWS: Final = (
    sa.select(_BANK_TABLES.c.table_id, _BANK_TABLES.c.contribution, _BANK_TABLES.c.version)
    .where(_BANK_TABLES.c.bank == sa.bindparam("b"))
    .order_by(_BANK_TABLES.c.table_id)
)
_READ_BANK: Final = Sql(_BANK_ROW)
_READ_TABLES: Final = Sql(_TABLE_ROWS)
_LOCK_BANK: Final = Sql(_BANK_ROW.with_for_update())
_LOCK_TABLES: Final = Sql(_TABLE_ROWS.with_for_update())
_SWEEP: Final = Sql(
    sa.update(_BANK_TABLES)
    .where(_BANK_TABLES.c.bank == sa.bindparam("b"), _BANK_TABLES.c.contribution != 0)
    .values(contribution=0, version=_BANK_TABLES.c.version + 1)
)
_SET_BASE: Final = Sql(
    sa.update(_BANKS)
    .where(_BANKS.c.bank == sa.bindparam("b"))
    .values(
        base=sa.bindparam("m", type_=sa.BigInteger),
        version=_BANKS.c.version + 1,
        updated_at=sa.bindparam("t", type_=sa.Float),
    )
)
_READ_METER: Final = Sql(meter_totals().where(_BANKS.c.bank == sa.bindparam("b")))
_TABLE_METERS: Final = meter_totals(by_table=True)
_METERS_OF_TABLE: Final = Sql(
    _TABLE_METERS.where(MEMBER.c.table_id == sa.bindparam("tid")).order_by(_BANKS.c.bank)
)


def _lock_whole(tx: Tx, bank: str, row: Sequence[Any], tables: Sequence[Any]) -> LockedBank:
    if not row:
        raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
    rows = {int(t): (int(c), int(v)) for t, c, v in tables}
    locked = tx.step.banks_locked[bank] = LockedBank(int(row[0][0]), int(row[0][1]), rows)
    tx.step.bank_tables[bank] = list(locked.tables)
    return locked


def add_shares(
    tx: Tx, table_id: int, shares: Mapping[str, int], hot: Iterable[str] = ()
) -> dict[str, tuple[int, int | None]]:
    """Add table ``table_id``'s shares (bank -> cents) to its contributions to their meters and
    return each bank's meter with them (bank -> (meter, version)). A bank in ``hot`` (one the
    step may pay from) is locked whole to the commit (:class:`~paigow.service.store.step.LockedBank`: a hit pays the meter as
    it is; its version is exact); for the others only the table's own row is updated (and
    locked: the bank's hits wait for this step) and the meter is read as the other tables last
    committed it (version None). One round trip for all of them where the connection allows."""
    hot = set(hot)
    banks = sorted(shares)
    statements: list[tuple[Sql, Mapping[str, Any]]] = []
    for bank in banks:
        add = (_ADD_SHARE, {"b": bank, "tid": table_id, "d": shares[bank]})
        if bank in hot:
            statements += [(_LOCK_BANK, {"b": bank}), (_LOCK_TABLES, {"b": bank}), add]
        else:
            statements += [add, (_READ_BANK, {"b": bank}), (_READ_TABLES, {"b": bank})]
    got = tx.together(*statements)
    out: dict[str, tuple[int, int | None]] = {}
    for i, bank in enumerate(banks):
        first, second, third = got[3 * i : 3 * i + 3]
        added = third if bank in hot else first
        if not added:
            raise NotFound(f"table {table_id} is not a table of progressive bank {bank!r}")
        if bank in hot:  # the tables' rows as locked, before this step's shares
            locked = _lock_whole(tx, bank, first, second)
            c, v = locked.tables[table_id]
            locked.tables[table_id] = (c + shares[bank], v + 1)
            out[bank] = (locked.meter, locked.meter_version)
        else:  # the bank's base cannot move while this table's row is held: no hit commits
            if not second:
                raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
            tx.step.bank_tables[bank] = [int(t) for t, _c, _v in third]
            out[bank] = (int(second[0][0]) + sum(int(c) for _t, c, _v in third), None)
    return out


def sweep(tx: Tx, bank: str, meter: int) -> tuple[list[Movement], int]:
    """Set the meter of a bank the step holds locked whole (:func:`add_shares`,
    :func:`lock_bank`) to ``meter``: every table's contribution is swept into the bank's base
    (the movements from the tables' accounts of shares to the bank's account, for the caller to
    post) and the base set to ``meter``. Returns the movements and the meter's new version."""
    locked = tx.step.banks_locked[bank]
    account = BankAccounts.of(bank).meter
    moves = [
        Movement(ledger.shares_account(t), account, c, f"table {t} shares swept")
        for t, (c, _v) in sorted(locked.tables.items())
        if c
    ]
    if moves:
        tx.later(_SWEEP, {"b": bank})
    tx.later(_SET_BASE, {"b": bank, "m": meter, "t": now()})
    locked.base, locked.version = meter, locked.version + 1
    locked.tables = {t: (0, v + 1) if c else (c, v) for t, (c, v) in locked.tables.items()}
    return moves, locked.meter_version


def lock_bank(tx: Tx, bank: str) -> LockedBank:
    """Lock a bank whole (its row, then its tables' rows in table order) to the commit."""
    got = tx.together((_LOCK_BANK, {"b": bank}), (_LOCK_TABLES, {"b": bank}))
    return _lock_whole(tx, bank, got[0], got[1])


def read_meter(tx: Tx, bank: str) -> tuple[int, int]:
    """The bank's meter and its version as last committed (no lock; one statement: one
    snapshot)."""
    got = tx.first(_READ_METER, {"b": bank})
    if got is None:
        raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
    return int(got[1]), int(got[2])


def _tables_of(tx: Tx, bank: str) -> list[int]:
    """The bank's tables (read once per step)."""
    known = tx.step.bank_tables
    if bank not in known:
        known[bank] = [int(t) for t, _c, _v in tx.run(_READ_TABLES, {"b": bank})]
    return known[bank]


def notify_meter(tx: Tx, bank: str, meter: int | None, version: int | None) -> None:
    """Announce, when ``tx`` commits, the bank's meter to every table of the bank (``meter``
    and ``version`` None: the meter moved, its watchers read it)."""
    bus.notify_meter(tx, _tables_of(tx, bank), bank, meter, version)


def meters_of_table(tx: Tx, table_id: int) -> dict[str, int]:
    """The meters of the banks the table belongs to (bank -> cents)."""
    return {str(r[1]): int(r[2]) for r in tx.run(_METERS_OF_TABLE, {"tid": table_id})}


def meters_of_tables(session: Session, table_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """The meters of the banks of each of ``table_ids`` (table -> bank -> cents)."""
    ids = list(table_ids)
    out: dict[int, dict[str, int]] = {t: {} for t in ids}
    if not ids:
        return out
    for tid, bank, meter, _version in session.execute(
        _TABLE_METERS.where(MEMBER.c.table_id.in_(ids))
    ):
        out[int(tid)][str(bank)] = int(meter)
    return out


def banks(tx: Tx) -> list[dict[str, Any]]:
    """Every progressive bank with its meter and tables."""
    session = tx.session
    tables: dict[str, list[int]] = {}
    for bank, tid in session.execute(
        sa.select(ProgressiveTable.bank, ProgressiveTable.table_id).order_by(
            ProgressiveTable.table_id
        )
    ):
        tables.setdefault(bank, []).append(int(tid))
    meters = {str(b): int(m) for b, m, _v in session.execute(meter_totals())}
    return [
        {
            "bank": r.bank,
            "paytable": r.paytable,
            "share": r.share,
            "seed": r.seed,
            "meter": meters[r.bank],
            "tables": tables.get(r.bank, []),
        }
        for r in session.execute(
            sa.select(ProgressiveBank).order_by(ProgressiveBank.bank)
        ).scalars()
    ]


def set_bank(tx: Tx, bank: str, meter: int, operator: str, action: str) -> dict[str, Any]:
    """An operator seeds (``action`` ``seed``: ``meter`` cents added) or resets (``reset``: the
    meter set to ``meter`` cents) a bank: the bank is locked whole, its tables' contributions
    swept into its base, and the difference moves between the house's seed account and the
    bank's, audited."""
    name = bank_name(bank)
    locked = lock_bank(tx, name)
    before = locked.meter
    after = before + meter if action == "seed" else meter
    if after < 0:
        raise Unprocessable("a meter is never below zero", code="bad-meter")
    accounts = BankAccounts.of(name)
    moves, version = sweep(tx, name, after)
    delta = after - before
    if delta:
        moves.append(
            Movement(accounts.seed, accounts.meter, delta, memo=action)
            if delta > 0
            else Movement(accounts.meter, accounts.seed, -delta, memo=action)
        )
    txn = None
    if moves:
        txn = ledger.post(
            tx, f"progressive-{action}", moves, reference=f"bank:{name}", actor=operator
        )
    record(
        tx.session,
        operator,
        f"progressive-{action}",
        f"bank:{name}",
        {"meter_before": before, "meter_after": after, "transaction": txn},
    )
    notify_meter(tx, name, after, version)
    return {"bank": name, "meter_before": before, "meter": after}
