"""A table's side wagers as the service keeps them: the offers an operator gives when creating a
table (a preset pay table by name or a pay table's TOML text, limits and, for a progressive, its
bank), and the progressive banks: their meters, the tables of each bank, seeding and resetting
a bank (audited), and the meter's notices to every table of its bank.

A bank's meter is a row (``progressive_banks``) whose value the ledger's account
``progressive:meter:<bank>`` mirrors in the same transaction: the house funds the seed from
``progressive:seed:<bank>``; each settled progressive wager moves its share into the meter; a hit
pays from it and the house resets it to the seed.

>>> bank_name("Fortune-1")
'fortune-1'
>>> bank_name("no spaces")
Traceback (most recent call last):
...
paigow.service.errors.Unprocessable: bad progressive bank name 'no spaces': 1 to 40 lowercase letters, digits and hyphens
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
from paigow.service.errors import NotFound, Unprocessable
from paigow.service.store.bonus_models import ProgressiveBank, ProgressiveTable
from paigow.service.store.bus import Notice, outbox
from paigow.service.store.db import now
from paigow.service.store.statements import Sql
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
    """A new table joins the banks of its progressive offers; a bank opens, seeded by the
    house, with its first table. A bank's tables all offer the same progressive."""
    session = tx.session
    for offer in progressive_offers(rules):
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
                meter=0,
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
                row.meter = prog.seed
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
        session.add(ProgressiveTable(bank=bank, table_id=table_id))


_ADD_SHARES: Final = Sql(
    sa.update(_BANKS)
    .where(_BANKS.c.bank == sa.bindparam("b"))
    .values(
        meter=_BANKS.c.meter + sa.bindparam("d", type_=sa.BigInteger),
        version=_BANKS.c.version + 1,
        updated_at=sa.bindparam("t", type_=sa.Float),
    )
    .returning(_BANKS.c.meter, _BANKS.c.version)
)
_SET_METER: Final = Sql(
    sa.update(_BANKS)
    .where(_BANKS.c.bank == sa.bindparam("b"))
    .values(
        meter=sa.bindparam("m", type_=sa.BigInteger),
        version=_BANKS.c.version + 1,
        updated_at=sa.bindparam("t", type_=sa.Float),
    )
    .returning(_BANKS.c.version)
)
_TABLES_OF: Final = Sql(
    sa.select(_BANK_TABLES.c.table_id).where(_BANK_TABLES.c.bank == sa.bindparam("b"))
)
_METERS_OF_TABLE: Final = Sql(
    sa.select(_BANKS.c.bank, _BANKS.c.meter)
    .join(_BANK_TABLES, _BANK_TABLES.c.bank == _BANKS.c.bank)
    .where(_BANK_TABLES.c.table_id == sa.bindparam("tid"))
    .order_by(_BANKS.c.bank)
)


def add_shares(tx: Tx, shares: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """Add each bank's shares to its meter (banks in name order: one lock order) and return
    bank -> (meter, version) after. The bank's row stays locked until the step commits, so
    what the step needs to read for its notices is read before (the bank's tables)."""
    _tables_before(tx, shares)
    out = {}
    t = now()
    for bank in sorted(shares):
        got = tx.first(_ADD_SHARES, {"b": bank, "d": shares[bank], "t": t})
        if got is None:
            raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
        out[bank] = (int(got[0]), int(got[1]))
    return out


_SHARES_LATER: Final = Sql(
    sa.update(_BANKS)
    .where(_BANKS.c.bank == sa.bindparam("b"))
    .values(
        meter=_BANKS.c.meter + sa.bindparam("d", type_=sa.BigInteger),
        version=_BANKS.c.version + 1,
        updated_at=sa.bindparam("t", type_=sa.Float),
    )
)
_READ_METER: Final = Sql(
    sa.select(_BANKS.c.meter, _BANKS.c.version).where(_BANKS.c.bank == sa.bindparam("b"))
)


def read_meter(tx: Tx, bank: str) -> tuple[int, int]:
    """The bank's meter and its version as last committed (no lock)."""
    got = tx.first(_READ_METER, {"b": bank})
    if got is None:
        raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
    return int(got[0]), int(got[1])


def add_shares_at_commit(tx: Tx, shares: Mapping[str, int]) -> None:
    """Add each bank's shares to its meter when the step is done (its last statements, sent
    with its commit on PostgreSQL): a settlement that cannot pay from a meter holds its row's
    lock only while it commits, so that the tables of a bank do not wait on each other. The
    bank's row is updated before the ledger's accounts (the step's finishing writes run in
    order: this one is registered before the ledger's), the order every step locks them in."""
    pending = dict(shares)
    _tables_before(tx, pending)

    def write(tx: Tx) -> None:
        t = now()
        for bank in sorted(pending):
            tx.later(_SHARES_LATER, {"b": bank, "d": pending[bank], "t": t})

    tx.on_finish(write)


def _tables_before(tx: Tx, banks: Iterable[str]) -> None:
    for bank in sorted(banks):
        _tables_of(tx, bank)


def set_meter(tx: Tx, bank: str, meter: int) -> int:
    """Set the bank's meter (after a hit); its new version."""
    got = tx.first(_SET_METER, {"b": bank, "m": meter, "t": now()})
    if got is None:
        raise NotFound(f"no progressive bank {bank!r}", code="no-bank")
    return int(got[0])


METER_NOTICE: Final = "meter:"
"""The kind of a meter's notice to each table of its bank: ``meter:<bank>`` (the notice's
``balance`` is the meter in cents, its ``version`` the meter's)."""


def _tables_of(tx: Tx, bank: str) -> list[int]:
    """The bank's tables (read once per step)."""
    known: dict[str, list[int]] = tx.info.setdefault("bank_tables", {})
    if bank not in known:
        known[bank] = [int(t) for (t,) in tx.run(_TABLES_OF, {"b": bank})]
    return known[bank]


def notify_meter(tx: Tx, bank: str, meter: int | None, version: int | None) -> None:
    """Announce, when ``tx`` commits, the bank's meter to every table of the bank (``meter``
    and ``version`` None: the meter moved, its watchers read it)."""
    box = outbox(tx)
    for table_id in _tables_of(tx, bank):
        box.notices.append(Notice(table_id, METER_NOTICE + bank, 0, meter, version))


def meters_of_table(tx: Tx, table_id: int) -> dict[str, int]:
    """The meters of the banks the table belongs to (bank -> cents)."""
    return {str(b): int(m) for b, m in tx.run(_METERS_OF_TABLE, {"tid": table_id})}


def meters_of_tables(session: Session, table_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """The meters of the banks of each of ``table_ids`` (table -> bank -> cents)."""
    ids = list(table_ids)
    out: dict[int, dict[str, int]] = {t: {} for t in ids}
    if not ids:
        return out
    rows = session.execute(
        sa.select(_BANK_TABLES.c.table_id, _BANKS.c.bank, _BANKS.c.meter)
        .join(_BANKS, _BANKS.c.bank == _BANK_TABLES.c.bank)
        .where(_BANK_TABLES.c.table_id.in_(ids))
    ).all()
    for tid, bank, meter in rows:
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
    return [
        {
            "bank": r.bank,
            "paytable": r.paytable,
            "share": r.share,
            "seed": r.seed,
            "meter": r.meter,
            "tables": tables.get(r.bank, []),
        }
        for r in session.execute(
            sa.select(ProgressiveBank).order_by(ProgressiveBank.bank)
        ).scalars()
    ]


def set_bank(tx: Tx, bank: str, meter: int, operator: str, action: str) -> dict[str, Any]:
    """An operator seeds (``action`` ``seed``: ``meter`` cents added) or resets (``reset``: the
    meter set to ``meter`` cents) a bank: the difference moves between the house's seed account
    and the meter, audited."""
    name = bank_name(bank)
    row = tx.session.get(ProgressiveBank, name, with_for_update=True)
    if row is None:
        raise NotFound(f"no progressive bank {name!r}", code="no-bank")
    before = int(row.meter)
    after = before + meter if action == "seed" else meter
    if after < 0:
        raise Unprocessable("a meter is never below zero", code="bad-meter")
    accounts = BankAccounts.of(name)
    delta = after - before
    txn = None
    if delta:
        move = (
            Movement(accounts.seed, accounts.meter, delta, memo=action)
            if delta > 0
            else Movement(accounts.meter, accounts.seed, -delta, memo=action)
        )
        txn = ledger.post(
            tx, f"progressive-{action}", [move], reference=f"bank:{name}", actor=operator
        )
    version = set_meter(tx, name, after)
    record(
        tx.session,
        operator,
        f"progressive-{action}",
        f"bank:{name}",
        {"meter_before": before, "meter_after": after, "transaction": txn},
    )
    notify_meter(tx, name, after, version)
    return {"bank": name, "meter_before": before, "meter": after}
