"""The operator's players: each player's wallet, last seen, hands, handle by wager type, actual
result and two theoretical wins side by side, over a range of gaming days (casino tables: real
money; practice tables play for play money and are left out). Every amount is the house's, in
cents (a theoretical win as an exact fraction and in dollars):

- **flat**: what every casino's rating gives, the handle times one house advantage: each table's
  main and dragon handle times the exact edge of the house way's play at its ruleset
  (:mod:`paigow.service.floor.edges`), side wagers at their exact hold
  (:mod:`paigow.service.floor.side_holds`);
- **exact by decision**: for each hand rated (:mod:`paigow.service.floor.ratings`), the wager
  times minus the exact EV of the setting the player chose; side wagers as in the flat one;
- **difference**: exact less flat over the hands rated (the player's skill or its lack, with the
  luck of the cards they were dealt in it);
- **decisions**: exact less what the house way's setting of the same hands would have given:
  the player's choices alone (negative: they set their hands better than the house way).

The hands still waiting for their rating and those that cannot be rated are counted, never
waited for. A figure that needs an exact edge or hold not known yet is ``null`` with its status
``computing`` (the floor's background pool is asked for it).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.analysis.price import dollars
from paigow.house_way import HouseWay
from paigow.service.accounts import player_limits
from paigow.service.books import ledger
from paigow.service.books.gaming_day import GamingDay
from paigow.service.books.statement import check_range
from paigow.service.floor.hold import band_for, table_ident, table_push
from paigow.service.floor.ratings import RATED, UNIT, waiting_hands
from paigow.service.floor.side_holds import cached_counts, meters, offers_of, theory_from_counts
from paigow.service.http_errors import NotFound
from paigow.service.statuses import Role, TableMode, WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import Account, GameTable, RoundRow, RoundWager, User
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import FloorEdge, HandRating
from paigow.service.store.session_models import AuthSession

MAX_PAGE: Final = 100
"""The most players on one page."""


@dataclass
class Figures:
    """One player's figures over a range (integer cents; theoretical wins exact)."""

    hands: int = 0
    handle: dict[str, int] = field(default_factory=lambda: {"main": 0, "dragon": 0})
    side: dict[str, int] = field(default_factory=dict)
    side_wagers: int = 0
    actual: int = 0
    flat: Fraction | None = Fraction(0)
    exact: Fraction | None = Fraction(0)
    flat_rated: Fraction | None = Fraction(0)
    decisions: Fraction = Fraction(0)
    rated: int = 0
    unavailable: int = 0
    waiting: int = 0
    last_hand: float | None = None

    def add(self, x: Fraction | None, to: str) -> None:
        now = getattr(self, to)
        setattr(self, to, None if now is None or x is None else now + x)


class Theory:
    """The exact edges and holds of the tables met, each read once."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.tables: dict[int, GameTable | None] = {}
        self.edges: dict[int, Fraction | None] = {}
        self.holds: dict[tuple[int, str], Fraction | None] = {}
        self.meters: dict[str, int] | None = None
        self.missing_edges: dict[str, Any] = {}
        self.missing_bonus: dict[str, Any] = {}

    def table(self, tid: int) -> GameTable | None:
        if tid not in self.tables:
            self.tables[tid] = self.s.get(GameTable, tid)
        return self.tables[tid]

    def edge(self, tid: int) -> Fraction | None:
        """The exact edge of the house way's play at the table (None: not known yet)."""
        if tid not in self.edges:
            t = self.table(tid)
            band = None
            if t is not None:
                ident = table_ident(t)
                band = band_for(self.s.get(FloorEdge, ident), t.ruleset["commission"])
                if band is None:
                    way = (dict(t.house_way), str(t.ruleset["wheel"]), table_push(t))
                    self.missing_edges[ident] = way
            self.edges[tid] = None if band is None else band.mean
        return self.edges[tid]

    def hold(self, tid: int, name: str) -> Fraction | None:
        """A side wager's exact hold at the table (None: its bonus counts are not ready)."""
        key = (tid, name)
        if key not in self.holds:
            self.holds[key] = None
            t = self.table(tid)
            offer = next((o for o in offers_of(t.ruleset) if o.name == name), None) if t else None
            if t is not None and offer is not None:
                way, wheel = HouseWay.from_dict(dict(t.house_way)), str(t.ruleset["wheel"])
                counts = cached_counts(way, wheel)
                if counts is None:
                    self.missing_bonus[table_ident(t)] = (dict(t.house_way), wheel)
                else:
                    if self.meters is None:
                        self.meters = meters(self.s)
                    meter = self.meters.get(offer.bank) if offer.bank else None
                    hold = theory_from_counts(offer.table, counts, offer.min_wager, meter).hold
                    self.holds[key] = hold
        return self.holds[key]


def _settled(start: float, end: float) -> Any:
    return sa.and_(
        RoundRow.phase == "settled",
        RoundRow.ended_at >= start,
        RoundRow.ended_at < end,
        GameTable.mode == TableMode.CASINO.value,
    )


def figures(
    s: Session, start: float, end: float, users: list[int], theory: Theory
) -> dict[int, Figures]:
    """The figures of ``users`` for rounds settled in [start, end)."""
    out: dict[int, Figures] = defaultdict(Figures)
    if not users:
        return out
    where = _settled(start, end)
    main = (
        sa.select(
            RoundWager.user_id,
            RoundRow.table_id,
            sa.func.count(),
            sa.func.sum(RoundWager.amount),
            sa.func.sum(RoundWager.amount - sa.func.coalesce(RoundWager.returned, 0)),
            sa.func.max(RoundRow.ended_at),
        )
        .join(RoundRow, RoundRow.id == RoundWager.round_id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(where, RoundWager.user_id.in_(users), RoundWager.status == WagerStatus.SETTLED)
        .group_by(RoundWager.user_id, RoundRow.table_id)
    )
    dragon = (
        sa.select(
            RoundDragon.user_id,
            RoundRow.table_id,
            sa.func.count(),
            sa.func.sum(RoundDragon.amount),
            sa.func.sum(RoundDragon.amount - sa.func.coalesce(RoundDragon.returned, 0)),
            sa.func.max(RoundRow.ended_at),
        )
        .join(RoundRow, RoundRow.id == RoundDragon.round_id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(where, RoundDragon.user_id.in_(users), RoundDragon.amount.is_not(None))
        .where(RoundDragon.status == WagerStatus.SETTLED)
        .group_by(RoundDragon.user_id, RoundRow.table_id)
    )
    for kind, q in (("main", main), ("dragon", dragon)):
        for uid, tid, n, handle, actual, last in s.execute(q):
            f = out[int(uid or 0)]
            f.hands += int(n)
            f.handle[kind] += int(handle or 0)
            f.actual += int(actual or 0)
            f.last_hand = max(f.last_hand or 0.0, float(last or 0.0))
            edge = theory.edge(int(tid))
            f.add(None if edge is None else edge * int(handle or 0), "flat")
    side = (
        sa.select(
            RoundSideWager.user_id,
            RoundRow.table_id,
            RoundSideWager.name,
            sa.func.count(),
            sa.func.sum(RoundSideWager.amount),
            sa.func.sum(
                RoundSideWager.amount
                - sa.func.coalesce(RoundSideWager.returned, 0)
                - RoundSideWager.envy
            ),
        )
        .join(RoundRow, RoundRow.id == RoundSideWager.round_id)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(where, RoundSideWager.user_id.in_(users))
        .where(RoundSideWager.status == WagerStatus.SETTLED)
        .group_by(RoundSideWager.user_id, RoundRow.table_id, RoundSideWager.name)
    )
    for uid, tid, name, n, handle, actual in s.execute(side):
        f = out[int(uid)]
        f.side_wagers += int(n)
        f.side[str(name)] = f.side.get(str(name), 0) + int(handle or 0)
        f.actual += int(actual or 0)
        hold = theory.hold(int(tid), str(name))
        x = None if hold is None else hold * int(handle or 0)
        for to in ("flat", "exact", "flat_rated"):
            f.add(x, to)
    rated = (
        sa.select(
            HandRating.user_id,
            HandRating.table_id,
            HandRating.status,
            sa.func.count(),
            sa.func.sum(HandRating.wager),
            sa.func.sum(sa.func.coalesce(HandRating.theo_units, 0)),
            sa.func.sum(sa.func.coalesce(HandRating.house_units, 0)),
        )
        .where(
            HandRating.user_id.in_(users),
            HandRating.settled_at >= start,
            HandRating.settled_at < end,
        )
        .group_by(HandRating.user_id, HandRating.table_id, HandRating.status)
    )
    for uid, tid, status, n, wager, units, house in s.execute(rated):
        f = out[int(uid)]
        if status != RATED:
            f.unavailable += int(n)
            continue
        f.rated += int(n)
        f.add(Fraction(int(units or 0), UNIT), "exact")
        f.decisions += Fraction(int(units or 0) - int(house or 0), UNIT)
        edge = theory.edge(int(tid))
        f.add(None if edge is None else edge * int(wager or 0), "flat_rated")
    for uid, n in waiting_hands(s, users, start, end).items():
        out[uid].waiting += n
    return out


def _amount(x: Fraction | None) -> dict[str, Any]:
    if x is None:
        return {"status": "computing", "cents": None, "dollars": None}
    return {"status": "ready", "cents": str(x), "dollars": dollars(x)}


def _line(user: Any, f: Figures, balance: int, seen: float | None, limits: Any) -> dict[str, Any]:
    diff = None if f.exact is None or f.flat_rated is None else f.exact - f.flat_rated
    handle = {**f.handle, "side": dict(sorted(f.side.items()))}
    last = max((x for x in (seen, f.last_hand) if x is not None), default=None)
    return {
        "id": int(user.id),
        "username": user.username,
        "wallet": balance,
        "last_seen": last,
        "hands": f.hands,
        "side_wagers": f.side_wagers,
        "handle": handle,
        "handle_total": f.handle["main"] + f.handle["dragon"] + sum(f.side.values()),
        "actual": f.actual,
        "flat_theo": _amount(f.flat),
        "exact_theo": _amount(f.exact),
        "difference": _amount(diff),
        "decisions": _amount(f.decisions),
        "hands_rated": f.rated,
        "hands_waiting": f.waiting,
        "hands_unavailable": f.unavailable,
        "limits": {
            "daily_loss_limit": limits["daily_loss_limit"],
            "excluded": limits["excluded"],
            "excluded_until": limits["excluded_until"],
        },
        "statement": f"/api/admin/players/{int(user.id)}/statement",
    }


def _range(first: dt.date | None, last: dt.date | None, day: GamingDay) -> tuple[float, float]:
    check_range(first, last)
    assert first is not None and last is not None
    return day.bounds(first)[0], day.bounds(last)[1]


def _lines(
    s: Session, users: list[Any], start: float, end: float, theory: Theory, day: GamingDay
) -> list[dict[str, Any]]:
    ids = [int(u.id) for u in users]
    figs = figures(s, start, end, ids, theory)
    names = [ledger.wallet(u.username) for u in users]
    balances = dict(s.execute(sa.select(Account.name, Account.balance).where(Account.name.in_(names))).all())  # fmt: skip
    seen = dict(
        s.execute(
            sa.select(
                AuthSession.user_id,
                sa.func.max(sa.func.coalesce(AuthSession.last_seen_at, AuthSession.created_at)),
            )
            .where(AuthSession.user_id.in_(ids))
            .group_by(AuthSession.user_id)
        ).all()
    )
    return [
        _line(
            u,
            figs.get(int(u.id)) or Figures(),
            int(balances.get(ledger.wallet(u.username), 0)),
            seen.get(int(u.id)),
            player_limits.state(s, int(u.id), day=day),
        )
        for u in users
    ]


def _summary(lines: list[dict[str, Any]]) -> dict[str, int]:
    return {k: sum(x[f"hands_{k}"] for x in lines) for k in ("rated", "waiting", "unavailable")}


def players(
    s: Session,
    first: dt.date | None,
    last: dt.date | None,
    page: int = 1,
    size: int = 50,
    *,
    day: GamingDay,
) -> dict[str, Any]:
    """A page of every player (by username) with their figures over gaming days ``first`` ..
    ``last``; ``_missing_edges`` and ``_missing_bonus``: what the pool is to compute."""
    start, end = _range(first, last, day)
    base = sa.select(User).where(User.role == Role.PLAYER.value)
    total = int(s.execute(sa.select(sa.func.count()).select_from(base.subquery())).scalar_one())
    users = list(s.scalars(base.order_by(User.username).offset((page - 1) * size).limit(size)))
    theory = Theory(s)
    lines = _lines(s, users, start, end, theory, day)
    in_range = waiting_hands(s, None, start, end)
    rated = dict(
        s.execute(
            sa.select(HandRating.status, sa.func.count())
            .where(HandRating.settled_at >= start, HandRating.settled_at < end)
            .group_by(HandRating.status)
        ).all()
    )
    assert first is not None and last is not None
    return {
        "from": first.isoformat(),
        "to": last.isoformat(),
        "gaming_day": day.describe(),
        "page": page,
        "size": size,
        "players": total,
        "pages": max(1, -(-total // size)),
        "hands_rated": int(rated.get(RATED, 0)),
        "hands_waiting": sum(in_range.values()),
        "hands_unavailable": sum(int(n) for k, n in rated.items() if k != RATED),
        "lines": lines,
        "_missing_edges": theory.missing_edges,
        "_missing_bonus": theory.missing_bonus,
    }


def player(
    s: Session, user_id: int, first: dt.date | None, last: dt.date | None, *, day: GamingDay
) -> dict[str, Any]:
    """One player's line (404 ``no-player`` for an id that is no player's)."""
    start, end = _range(first, last, day)
    user = s.get(User, user_id)
    if user is None or user.role != Role.PLAYER:
        raise NotFound(f"no player {user_id}", code="no-player")
    theory = Theory(s)
    (line,) = _lines(s, [user], start, end, theory, day)
    assert first is not None and last is not None
    return {
        "from": first.isoformat(),
        "to": last.isoformat(),
        "gaming_day": day.describe(),
        **line,
        "_missing_edges": theory.missing_edges,
        "_missing_bonus": theory.missing_bonus,
    }


def username_of(s: Session, user_id: int) -> str:
    """A player's username (404 ``no-player``)."""
    user = s.get(User, user_id)
    if user is None or user.role != Role.PLAYER:
        raise NotFound(f"no player {user_id}", code="no-player")
    return str(user.username)


CSV_COLUMNS: Final = (
    "player_id",
    "username",
    "wallet",
    "hands",
    "handle_main",
    "handle_dragon",
    "handle_side",
    "actual",
    "flat_theo",
    "exact_theo",
    "difference",
    "decisions",
    "hands_rated",
    "hands_waiting",
    "hands_unavailable",
)


def players_csv(s: Session, first: dt.date | None, last: dt.date | None, *, day: GamingDay) -> str:
    """Every player's line as CSV, amounts in dollars (theoretical wins rounded to the cent;
    empty while computing)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    page, pages = 1, 1
    while page <= pages:
        data = players(s, first, last, page, MAX_PAGE, day=day)
        pages = data["pages"]
        for x in data["lines"]:
            cents = [x["wallet"], None, x["handle"]["main"], x["handle"]["dragon"]]
            cents += [sum(x["handle"]["side"].values()), x["actual"]]
            money = [None if c is None else dollars(Fraction(c)) for c in cents]
            keys = ("flat_theo", "exact_theo", "difference", "decisions")
            theo = [x[k]["dollars"] or "" for k in keys]
            counts = [x["hands_rated"], x["hands_waiting"], x["hands_unavailable"]]
            w.writerow([x["id"], x["username"], money[0], x["hands"], *money[2:], *theo, *counts])
        page += 1
    return out.getvalue()


def day_lines(s: Session, first: dt.date, last: dt.date, day: GamingDay) -> list[dict[str, Any]]:
    """The gaming-day report's players: per gaming day, each player with a hand at a casino
    table that day: handle, actual, flat and exact theoretical wins (cents, exact), hands
    rated."""
    out = []
    theory = Theory(s)
    for i in range((last - first).days + 1):
        d = first + dt.timedelta(days=i)
        start, end = day.bounds(d)
        ids = [
            int(u)
            for (u,) in s.execute(
                sa.select(RoundWager.user_id)
                .join(RoundRow, RoundRow.id == RoundWager.round_id)
                .join(GameTable, GameTable.id == RoundRow.table_id)
                .where(_settled(start, end))
                .distinct()
            )
        ]
        names = dict(s.execute(sa.select(User.id, User.username).where(User.id.in_(ids))).all())
        for uid, f in sorted(figures(s, start, end, ids, theory).items()):
            out.append(
                {
                    "gaming_day": d.isoformat(),
                    "user_id": uid,
                    "username": names.get(uid),
                    "handle": f.handle["main"] + f.handle["dragon"] + sum(f.side.values()),
                    "actual": f.actual,
                    "flat_theo": None if f.flat is None else str(f.flat),
                    "exact_theo": None if f.exact is None else str(f.exact),
                    "hands": f.hands,
                    "hands_rated": f.rated,
                }
            )
    return out
