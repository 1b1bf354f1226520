"""Players' own limits: a daily loss limit and a self-exclusion.

- **Daily loss limit** (cents): a wager is refused when the player's loss in the current gaming day
  (:mod:`paigow.service.books.gaming_day`) — every wager of the day's rounds less what it returned, a
  wager still in play counted as lost — plus the new wager would exceed it. Lowering (or setting) a
  limit takes effect at once; raising or removing it only after the ``limit_cooling_s`` setting
  (default 24 hours), the usual protection against a decision taken in
  the heat of play.
- **Self-exclusion** for a number of days: every wager is refused until it ends. It can be
  lengthened, never shortened; no one, operators included, can lift it before it ends.

Refusals are recorded in the audit log by the step that refused (:class:`Refused`: its runner
commits the record, which is all the step wrote, then answers with the refusal); setting a limit or
an exclusion is recorded with it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.money import format_money
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books.audit import record
from paigow.service.books.gaming_day import GamingDay
from paigow.service.http_errors import Conflict, Forbidden, NotFound, Unprocessable
from paigow.service.statuses import TableMode, WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import GameTable, RoundRow, RoundWager, User, now
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import PlayerLimit
from paigow.service.store.unit import Refused, Tx

DAY_S: Final = 86_400
MAX_EXCLUSION_DAYS: Final = 3650


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _row(session: Session, user_id: int, *, create: bool = False) -> PlayerLimit | None:
    row = session.get(PlayerLimit, user_id)
    if row is None and create:
        row = PlayerLimit(user_id=user_id, updated_at=now())
        session.add(row)
    return row


def _effective(row: PlayerLimit | None, at: float) -> int | None:
    """The loss limit in force at ``at`` (a pending change counts once due)."""
    if row is None:
        return None
    if row.pending_from is not None and row.pending_from <= at:
        return None if row.pending_loss_limit == -1 else row.pending_loss_limit
    return row.daily_loss_limit


def _real(table_id: Any) -> Any:
    """Rounds at casino tables: a practice table plays for play money, never counted here."""
    practice = sa.select(GameTable.id).where(GameTable.mode == TableMode.PRACTICE.value)
    return table_id.not_in(practice)


def _lost(session: Session, model: Any, lost: Any, user_id: int, start: float, *where: Any) -> int:
    """The sum of ``lost`` over ``model``'s rows of the player's rounds at casino tables begun
    since ``start`` (``where``: more conditions)."""
    value = session.execute(
        sa.select(sa.func.coalesce(sa.func.sum(lost), 0))
        .select_from(model)
        .join(RoundRow, RoundRow.id == model.round_id)
        .where(
            model.user_id == user_id,
            *where,
            RoundRow.created_at >= start,
            _real(RoundRow.table_id),
        )
    ).scalar_one()
    return int(value)


def loss_today(session: Session, user_id: int, at: float, day: GamingDay) -> int:
    """The player's loss in the gaming ``day`` containing ``at`` (negative when ahead), wagers in
    play counted as lost, side wagers (and their Envy) and dragon-hand wagers included."""
    start, _ = day.bounds(day.day_of(at))
    main = sa.case(
        (RoundWager.status == WagerStatus.IN_PLAY, RoundWager.amount),
        else_=RoundWager.amount - sa.func.coalesce(RoundWager.returned, 0),
    )
    side = sa.case(
        (RoundSideWager.status == WagerStatus.IN_PLAY, RoundSideWager.amount),
        else_=RoundSideWager.amount
        - sa.func.coalesce(RoundSideWager.returned, 0)
        - RoundSideWager.envy,
    )
    dragon = sa.case(
        (RoundDragon.status == WagerStatus.IN_PLAY, RoundDragon.amount),
        else_=RoundDragon.amount - sa.func.coalesce(RoundDragon.returned, 0),
    )
    return (
        _lost(session, RoundWager, main, user_id, start)
        + _lost(session, RoundSideWager, side, user_id, start)
        + _lost(session, RoundDragon, dragon, user_id, start, RoundDragon.amount.is_not(None))
    )


def state(
    session: Session, user_id: int, at: float | None = None, *, day: GamingDay
) -> dict[str, Any]:
    """A player's limits as the player and the operator see them (``day``: the gaming day's
    rule)."""
    t = now() if at is None else at
    row = _row(session, user_id)
    limit = _effective(row, t)
    pending = None
    if row is not None and row.pending_from is not None and row.pending_from > t:
        pending = {
            "daily_loss_limit": None if row.pending_loss_limit == -1 else row.pending_loss_limit,
            "from": row.pending_from,
        }
    excluded = row is not None and row.excluded_until is not None and row.excluded_until > t
    lost = loss_today(session, user_id, t, day)
    return {
        "daily_loss_limit": limit,
        "pending": pending,
        "loss_today": lost,
        "left_today": None if limit is None else max(0, limit - lost),
        "excluded": excluded,
        "excluded_until": row.excluded_until if excluded and row is not None else None,
        "gaming_day": day.day_of(t).isoformat(),
        "gaming_day_hours": day.describe(),
        "gaming_day_text": day.span_text(day.day_of(t)),
    }


def set_loss_limit(
    session: Session, user: Principal, amount: int | None, *, cooling_s: float, day: GamingDay
) -> dict[str, Any]:
    """Set the daily loss limit (None: no limit). Lower: at once; higher or none: after the
    cooling-off period, ``cooling_s`` seconds (the ``limit_cooling_s`` setting)."""
    if amount is not None and not 1 <= amount <= 10**11:
        raise Unprocessable("a daily loss limit is 1 to 100,000,000,000 cents", code="bad-limit")
    t = now()
    row = _row(session, user.id, create=True)
    assert row is not None
    current = _effective(row, t)
    row.daily_loss_limit, row.pending_loss_limit, row.pending_from = current, None, None
    if current is None or (amount is not None and amount <= current):
        row.daily_loss_limit = amount
        when = "now"
    else:
        row.pending_loss_limit = -1 if amount is None else amount
        row.pending_from = t + cooling_s
        when = _iso(row.pending_from)
    row.updated_at = t
    record(
        session,
        user.username,
        "loss-limit-set",
        f"user:{user.username}",
        {"daily_loss_limit": amount, "previous": current, "effective": when},
    )
    return state(session, user.id, t, day=day)


def self_exclude(session: Session, user: Principal, days: int, *, day: GamingDay) -> dict[str, Any]:
    """Exclude oneself from play for ``days`` days from now (lengthens, never shortens)."""
    if not 1 <= days <= MAX_EXCLUSION_DAYS:
        raise Unprocessable(f"exclude yourself for 1 to {MAX_EXCLUSION_DAYS} days", code="bad-days")
    t = now()
    row = _row(session, user.id, create=True)
    assert row is not None
    until = t + days * DAY_S
    if row.excluded_until is not None and row.excluded_until > until:
        raise Conflict(
            f"you are already excluded until {_iso(row.excluded_until)}; a self-exclusion can be "
            "lengthened but never shortened",
            code="exclusion-shortened",
        )
    row.excluded_until = until
    row.excluded_at = t
    row.updated_at = t
    record(
        session,
        user.username,
        "self-excluded",
        f"user:{user.username}",
        {"days": days, "until": until},
    )
    return state(session, user.id, t, day=day)


def lift_exclusion(tx: Tx, operator: str, username: str) -> dict[str, Any]:
    """An operator asks to lift a player's self-exclusion: refused while it runs (recorded)."""
    session = tx.session
    uid = session.execute(sa.select(User.id).where(User.username == username)).scalar()
    if uid is None:
        raise NotFound(f"no user {username!r}", code="no-user")
    row = _row(session, int(uid))
    t = now()
    if row is not None and row.excluded_until is not None and row.excluded_until > t:
        details = {"excluded_until": row.excluded_until}
        record(session, operator, "exclusion-lift-refused", f"user:{username}", details)
        raise Refused(
            Forbidden(
                f"{username} excluded themselves until {_iso(row.excluded_until)}: a "
                "self-exclusion cannot be lifted before it ends",
                code="self-exclusion-active",
            )
        )
    return {"username": username, "excluded": False}


def excluded_players(session: Session, at: float | None = None) -> list[dict[str, Any]]:
    """Players with an exclusion in force or a loss limit, for the operator."""
    t = now() if at is None else at
    rows = session.execute(
        sa.select(User.username, PlayerLimit)
        .join(PlayerLimit, PlayerLimit.user_id == User.id)
        .order_by(User.username)
    ).all()
    out = []
    for name, row in rows:
        excluded = row.excluded_until is not None and row.excluded_until > t
        limit = _effective(row, t)
        if not excluded and limit is None:
            continue
        out.append(
            {
                "username": name,
                "excluded": excluded,
                "excluded_until": row.excluded_until if excluded else None,
                "excluded_at": row.excluded_at if excluded else None,
                "daily_loss_limit": limit,
            }
        )
    return out


# ------------------------------------------------------------------------------------ the check
def check_wager(tx: Tx, user: Principal, amount: int) -> None:
    """Refuse a wager a self-exclusion or the daily loss limit forbids (call before the step
    changes anything: the refusal, :class:`Refused`, keeps only its record in the audit log). The player's limits row is locked (after
    the table's, before the wallet's: the order every wager takes), so that wagers at two tables at
    once cannot both pass the same limit."""
    session = tx.session
    row = session.get(PlayerLimit, user.id, with_for_update=True)
    if row is None:
        return
    t = now()
    if row.excluded_until is not None and row.excluded_until > t:
        details = {"amount": amount, "excluded_until": row.excluded_until}
        record(session, user.username, "wager-refused-excluded", f"user:{user.username}", details)
        raise Refused(
            Forbidden(
                f"you have excluded yourself from play until {_iso(row.excluded_until)}: no "
                "wagers until then",
                code="self-excluded",
            )
        )
    limit = _effective(row, t)
    if limit is None:
        return
    lost = loss_today(session, user.id, t, GamingDay.of(tx.config))
    if lost + amount > limit:
        left = max(0, limit - lost)
        record(
            session,
            user.username,
            "wager-refused-loss-limit",
            f"user:{user.username}",
            {"amount": amount, "loss_today": lost, "daily_loss_limit": limit},
        )
        raise Refused(
            Forbidden(
                f"a wager of {format_money(amount)} could take your loss today to "
                f"{format_money(lost + amount)}, above your daily loss limit of "
                f"{format_money(limit)} ({format_money(left)} left until the gaming day ends)",
                code="loss-limit",
            )
        )
