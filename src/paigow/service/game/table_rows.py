"""Tables: configuration (ruleset, house way, start, limits, time limits, mode), seats, the public
view. Modes: ``casino`` (players set without help, 9-13(a)), ``practice`` (hints allowed). Betting
closes ``betting_time_ms`` after a round's first wager, or once every seated player has wagered;
a hand not set ``setting_time_ms`` after the deal is set by the house way."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, PushRule, Ruleset, SideWagerOffer, StartMethod
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books import play_money
from paigow.service.books.audit import record
from paigow.service.books.ledger import open_table_accounts
from paigow.service.game import side_offers
from paigow.service.game.variants import posted_variant
from paigow.service.http_errors import Conflict, NotFound, Unprocessable
from paigow.service.statuses import ENDED, OPEN_STATUSES, TableMode, TableStatus
from paigow.service.store.bus import Kind, notify
from paigow.service.store.db import GameTable, RoundRow, RoundWager, Seat, User, now
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

MODES: Final = tuple(TableMode)
SPOTS: Final = range(1, 7)
DEFAULT_BETTING_TIME_MS: Final = 20_000
"""A new table's betting time (the demo tables' and the operator form's: one source)."""
DEFAULT_SETTING_TIME_MS: Final = 60_000
"""A new table's time to set a hand."""
__all__ = [
    "DEFAULT_BETTING_TIME_MS",
    "DEFAULT_SETTING_TIME_MS",
    "ENDED",
    "MODES",
    "OPEN_STATUSES",
    "SPOTS",
]


def build_ruleset(
    *,
    commission: str,
    house_way: HouseWay,
    start: str,
    foul: str,
    wheel: str,
    min_wager: int,
    max_wager: int,
    setting_time_ms: int,
    side_wagers: tuple[SideWagerOffer, ...] = (),
    push: str = "none",
    face_up: bool = False,
    dragon: bool = False,
    price_settings: bool = False,
) -> Ruleset:
    """The ruleset of a new table; one the rule book refuses is the core's ``bad-ruleset``
    (422, answered by the one handler)."""
    return Ruleset(
        side_wagers=side_wagers,
        push=PushRule(push),
        face_up=face_up,
        dragon=dragon,
        price_settings=price_settings,
        commission=Commission(commission),
        house_way=house_way.name,
        start=StartMethod(start),
        foul=FoulRule(foul),
        wheel=Wheel(wheel),
        min_wager=min_wager,
        max_wager=max_wager,
        set_time_limit=max(1, math.ceil(setting_time_ms / 1000)),
    )


def create_table(
    tx: Tx,
    *,
    operator: str,
    name: str,
    ruleset: Ruleset,
    house_way: HouseWay,
    mode: str,
    betting_time_ms: int,
    setting_time_ms: int,
) -> GameTable:
    if mode not in MODES:
        raise Unprocessable(f"mode must be one of {', '.join(MODES)}", code="bad-mode")
    play_money.refuse_progressive(mode == TableMode.PRACTICE, ruleset)
    table = GameTable(
        name=name,
        ruleset=ruleset.to_dict(),
        house_way=house_way.to_dict(),
        mode=mode,
        betting_time_ms=betting_time_ms,
        setting_time_ms=setting_time_ms,
        status=TableStatus.OPEN,
        created_at=now(),
        created_by=operator,
        current_round_id=None,
        round_count=0,
    )
    session = tx.session
    session.add(table)
    session.flush()
    open_table_accounts(session, table.id, side=bool(ruleset.side_wagers))
    if ruleset.side_wagers:
        session.flush()
        side_offers.join_banks(tx, table.id, ruleset, operator)
    record(
        session,
        operator,
        "table-created",
        f"table:{table.id}",
        {
            "name": name,
            "ruleset": table.ruleset,
            "house_way": table.house_way,
            "mode": mode,
            "betting_time_ms": betting_time_ms,
            "setting_time_ms": setting_time_ms,
        },
    )
    notify(tx, table.id, Kind.TABLE)
    return table


def get_table(session: Session, table_id: int) -> GameTable:
    table = session.get(GameTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    return table


def _house_way_fields(data: Mapping[str, Any]) -> dict[str, str]:
    way = HouseWay.identity_of(data)
    return {"house_way_label": way["label"], "house_way_digest": way["digest"]}


def table_ruleset(table: GameTable) -> Ruleset:
    return Ruleset.from_dict(dict(table.ruleset))


def table_house_way(table: GameTable) -> HouseWay:
    return HouseWay.from_dict(dict(table.house_way))


def current_round(session: Session, table: GameTable) -> RoundRow | None:
    if table.current_round_id is None:
        return None
    return session.get(RoundRow, table.current_round_id)


# --------------------------------------------------------------------------------------- seats
def unseat_player(tx: Tx, table_id: int, user: Principal) -> dict[str, Any]:
    """Leave the seat, the table's row locked by the caller (``rounds.leave``, with the table's
    head). A wager already in play stays in play: the hand can still be set (or is set by the
    house way at the time limit) and the result goes to the player's wallet."""
    session = tx.session
    seat = session.execute(
        sa.select(Seat).where(Seat.table_id == table_id, Seat.user_id == user.id)
    ).scalar_one_or_none()
    if seat is None:
        raise Conflict("you are not seated at this table", code="not-seated")
    session.delete(seat)
    notify(tx, table_id, Kind.TABLE)
    return {"table_id": table_id, "spot": seat.spot, "left": True}


# --------------------------------------------------------------------------------------- views
def public_state(session: Session, table: GameTable, at: float | None = None) -> dict[str, Any]:
    """What every view of a table shows, the posted commission included."""
    t = at if at is not None else now()
    seats = {
        spot: name
        for spot, name in session.execute(
            sa.select(Seat.spot, User.username)
            .join(User, User.id == Seat.user_id)
            .where(Seat.table_id == table.id)
        )
    }
    row = current_round(session, table)
    wagers: list[tuple[int, int]] = []
    if row is not None:
        wagers = [
            (spot, amount)
            for spot, amount in session.execute(
                sa.select(RoundWager.spot, RoundWager.amount)
                .where(RoundWager.round_id == row.id)
                .order_by(RoundWager.spot)
            ).all()
        ]
    meters = side_offers.meters_of_tables(session, [table.id])[table.id]
    return _state_of(table, seats, row, wagers, t, meters)


def _state_of(
    table: GameTable | _Row,
    seats: dict[int, str],
    row: RoundRow | _Round | None,
    wagers: list[tuple[int, int]],
    t: float,
    meters: dict[str, int] | None = None,
) -> dict[str, Any]:
    rs = table.ruleset
    round_view: dict[str, Any] | None = None
    if row is not None:
        round_view = {
            "id": row.id,
            "number": row.number,
            "phase": row.phase,
            "deadline": row.deadline,
            "time_left_s": None if row.deadline is None else max(0.0, round(row.deadline - t, 3)),
            "wagers": [{"spot": s, "amount": a} for s, a in wagers],
        }
    return {
        "id": table.id,
        "name": table.name,
        "status": table.status,
        "mode": table.mode,
        "commission": rs["commission"],
        "commission_posted": str(Commission(rs["commission"])),
        **posted_variant(rs),
        # a practice table always prices each setting; a casino table when the operator offers it
        "price_settings": bool(rs.get("price_settings")) or table.mode == TableMode.PRACTICE,
        "house_way": table.house_way["name"],
        **_house_way_fields(table.house_way),
        "start": rs["start"],
        "foul": rs["foul"],
        "wheel": rs["wheel"],
        "min_wager": rs["min_wager"],
        "max_wager": rs["max_wager"],
        "side_wagers": list(rs.get("side_wagers") or ()),
        "meters": dict(meters or {}),
        "betting_time_s": table.betting_time_ms / 1000,
        "setting_time_s": table.setting_time_ms / 1000,
        "spots": [{"spot": s, "occupied": s in seats, "player": seats.get(s)} for s in SPOTS],
        "round": round_view,
        "rounds_played": table.round_count,
    }


# --------------------------------------------------------------------------------------- cache
STATE_TTL_S: Final = 1.0
"""The longest a cached public state is served without a notice (a safety net: every change of
a table sends one)."""


class PublicStates:
    """The public state of every table, cached in this process for ``GET /api/tables`` and
    ``GET /api/tables/{id}``: an entry lasts until a notice says its table changed (or
    :data:`STATE_TTL_S` passes); the list of tables until any table notice. Used on the event
    loop's thread only (notices arrive there), so it needs no lock; a read that a notice
    overtook is not kept (each table's version is checked).

    >>> from paigow.service.store.bus import Channel, Notice
    >>> cache = PublicStates()
    >>> v = cache.version(3)
    >>> cache.keep(3, v, {"id": 3, "round": None}, at=100.0)
    >>> cache.get(3, at=100.5)
    {'id': 3, 'round': None}
    >>> cache.on_notice(Notice(Channel.table(3), Kind.ROUND))
    >>> cache.get(3, at=100.5) is None
    True
    """

    def __init__(self) -> None:
        self._states: dict[int, tuple[float, dict[str, Any]]] = {}
        self._versions: dict[int, int] = {}
        self._lists: dict[bool, tuple[float, list[int]]] = {}
        self._list_version = 0

    def on_notice(self, notice: Any) -> None:
        if notice.kind is not Kind.RESYNC and notice.table_id is None:
            return  # a user's channel: no table changed
        if notice.kind is Kind.RESYNC or notice.table_id in (None, 0):
            self._states.clear()
            self._versions.clear()
            self._lists.clear()
            self._list_version += 1
            return
        self._versions[notice.table_id] = self._versions.get(notice.table_id, 0) + 1
        self._states.pop(notice.table_id, None)
        if notice.kind is Kind.TABLE:
            self._lists.clear()
            self._list_version += 1

    def version(self, table_id: int) -> int:
        return self._versions.get(table_id, 0)

    def versions(self) -> dict[int, int]:
        """Every table's version now (take before a read; give to :meth:`keep` after)."""
        return dict(self._versions)

    def get(self, table_id: int, at: float) -> dict[str, Any] | None:
        hit = self._states.get(table_id)
        if hit is None or at - hit[0] > STATE_TTL_S:
            return None
        return hit[1]

    def keep(self, table_id: int, version: int, state: dict[str, Any], at: float) -> None:
        if self._versions.get(table_id, 0) == version:
            self._states[table_id] = (at, state)

    def list_version(self) -> int:
        return self._list_version

    def ids(self, include_closed: bool, at: float) -> list[int] | None:
        hit = self._lists.get(include_closed)
        if hit is None or at - hit[0] > STATE_TTL_S:
            return None
        return hit[1]

    def keep_ids(self, include_closed: bool, version: int, ids: list[int], at: float) -> None:
        if self._list_version == version:
            self._lists[include_closed] = (at, ids)


def with_time_left(state: dict[str, Any], at: float) -> dict[str, Any]:
    """``state`` (a cached public state) with its round's time left as of ``at``."""
    rnd = state.get("round")
    if rnd is None or rnd.get("deadline") is None:
        return state
    left = max(0.0, round(rnd["deadline"] - at, 3))
    return {**state, "round": {**rnd, "time_left_s": left}}


_W: Final = cast(sa.Table, RoundWager.__table__)
_S: Final = cast(sa.Table, Seat.__table__)
_U: Final = cast(sa.Table, User.__table__)
_ITS_SEATS: Final = Sql(
    sa.select(_S.c.spot, _U.c.username)
    .join(_U, _U.c.id == _S.c.user_id)
    .where(_S.c.table_id == sa.bindparam("tid"))
)
_ITS_WAGERS: Final = Sql(
    sa.select(_W.c.spot, _W.c.amount)
    .where(_W.c.round_id == sa.bindparam("rid"))
    .order_by(_W.c.spot)
)


@dataclass(frozen=True)
class _Row:
    """The parts of a table's row :func:`_state_of` reads (configuration and status)."""

    id: int
    name: str
    status: str
    mode: str
    ruleset: Mapping[str, Any]
    house_way: Mapping[str, Any]
    betting_time_ms: int
    setting_time_ms: int
    round_count: int


@dataclass(frozen=True)
class _Round:
    id: str
    number: int
    phase: str
    deadline: float | None


def read_state(tx: Tx, table_id: int) -> dict[str, Any] | None:
    """One table's public state in three statements on the driver (its configuration from
    the process's cache: it never changes); None: no such table."""
    from paigow.service.game.rounds.head import CONFIGS, TABLE_AND_ROUND

    row = tx.first(TABLE_AND_ROUND, {"tid": table_id})
    if row is None:
        return None
    status, count, created_at, rid, number, phase, deadline, _events = row
    config = CONFIGS.get(tx, table_id, float(created_at))
    table = _Row(
        table_id,
        config.name,
        str(status),
        config.mode,
        config.ruleset,
        config.house_way,
        config.betting_time_ms,
        config.setting_time_ms,
        int(count),
    )
    seats = {int(spot): str(name) for spot, name in tx.run(_ITS_SEATS, {"tid": table_id})}
    current = None
    wagers: list[tuple[int, int]] = []
    if rid is not None:
        current = _Round(str(rid), int(number), str(phase), deadline)
        wagers = [(int(s), int(a)) for s, a in tx.run(_ITS_WAGERS, {"rid": rid})]
    meters = side_offers.meters_of_table(tx, table_id) if config.ruleset.get("side_wagers") else {}
    return _state_of(table, seats, current, wagers, now(), meters)


def read_states(
    session: Session, table_ids: list[int] | None, include_closed: bool = False
) -> tuple[list[int], dict[int, dict[str, Any]]]:
    """The public states of ``table_ids`` (None: of every table, open ones unless
    ``include_closed``) in few statements: the tables, their seats, their current rounds and
    those rounds' wagers, one statement each."""
    q = sa.select(GameTable).order_by(GameTable.id)
    if table_ids is not None:
        q = q.where(GameTable.id.in_(table_ids))
    elif not include_closed:
        q = q.where(GameTable.status != TableStatus.CLOSED)
    found = list(session.execute(q).scalars())
    ids = [t.id for t in found]
    if not found:
        return ids, {}
    seats: dict[int, dict[int, str]] = {t: {} for t in ids}
    for tid, spot, name in session.execute(
        sa.select(Seat.table_id, Seat.spot, User.username)
        .join(User, User.id == Seat.user_id)
        .where(Seat.table_id.in_(ids))
    ):
        seats[tid][spot] = name
    round_ids = [t.current_round_id for t in found if t.current_round_id is not None]
    rows: dict[str, RoundRow] = {}
    wagers: dict[str, list[tuple[int, int]]] = {r: [] for r in round_ids}
    if round_ids:
        for row in session.execute(sa.select(RoundRow).where(RoundRow.id.in_(round_ids))).scalars():
            rows[row.id] = row
        for rid, spot, amount in session.execute(
            sa.select(RoundWager.round_id, RoundWager.spot, RoundWager.amount)
            .where(RoundWager.round_id.in_(round_ids))
            .order_by(RoundWager.round_id, RoundWager.spot)
        ):
            wagers[rid].append((spot, amount))
    meters = side_offers.meters_of_tables(
        session, [t.id for t in found if t.ruleset.get("side_wagers")]
    )
    t = now()
    states = {}
    for table in found:
        current = rows.get(table.current_round_id) if table.current_round_id else None
        states[table.id] = _state_of(
            table,
            seats[table.id],
            current,
            wagers.get(current.id, []) if current else [],
            t,
            meters.get(table.id),
        )
    return ids, states
