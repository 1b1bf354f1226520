"""The gaming day: the accounting day of the floor's reports and the players' daily loss limits.

A gaming day runs from the ``gaming_day_start`` setting (``PAIGOW_GAMING_DAY_START``, default
``06:00``) on its date to the same time the next day, in the time zone ``gaming_day_tz`` (an IANA
name, default ``UTC``): :meth:`GamingDay.of` a config. A moment
belongs to the gaming day that contains it: with the defaults, 2026-11-30 05:59 UTC is still
gaming day 2026-11-29.

>>> g = GamingDay(start=dt.time(6, 0), tz="UTC")
>>> g.day_of(dt.datetime(2026, 11, 30, 5, 59, tzinfo=dt.UTC).timestamp())
datetime.date(2026, 11, 29)
>>> s, e = g.bounds(dt.date(2026, 11, 30))
>>> dt.datetime.fromtimestamp(s, dt.UTC).isoformat(), (e - s) / 3600
('2026-11-30T06:00:00+00:00', 24.0)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from paigow.service.config import ServiceConfig


@dataclass(frozen=True)
class GamingDay:
    start: dt.time = dt.time(6, 0)
    tz: str = "UTC"

    @classmethod
    def of(cls, config: ServiceConfig) -> GamingDay:
        """The gaming day of ``config`` (its ``gaming_day_start`` and ``gaming_day_tz``).

        >>> from paigow.service.config import ServiceConfig
        >>> GamingDay.of(ServiceConfig("", gaming_day_start="04:30", gaming_day_tz=" ")).describe()
        'from 04:30 to 04:30 the next day, UTC'
        """
        text = config.gaming_day_start.strip()
        try:
            start = dt.time.fromisoformat(text)
        except ValueError:
            raise ValueError(f"PAIGOW_GAMING_DAY_START must be HH:MM, got {text!r}") from None
        tz = config.gaming_day_tz.strip() or "UTC"
        ZoneInfo(tz)  # an unknown zone fails here, loudly
        return cls(start, tz)

    def describe(self) -> str:
        """The rule in words.

        >>> GamingDay().describe()
        'from 06:00 to 06:00 the next day, UTC'
        """
        hm = self.start.strftime("%H:%M")
        return f"from {hm} to {hm} the next day, {self.tz}"

    def span_text(self, day: dt.date) -> str:
        """The gaming day ``day`` in words, with the dates it spans.

        >>> GamingDay().span_text(dt.date(2026, 12, 1))
        'Tuesday 1 December 2026, from 06:00 that day to 06:00 on Wednesday 2 December (UTC)'
        >>> GamingDay(dt.time(0, 0)).span_text(dt.date(2026, 12, 31))
        'Thursday 31 December 2026, from 00:00 that day to 00:00 on Friday 1 January 2027 (UTC)'
        """
        hm = self.start.strftime("%H:%M")
        nxt = day + dt.timedelta(days=1)
        until = f"{nxt:%A} {nxt.day} {nxt:%B}" + (f" {nxt.year}" if nxt.year != day.year else "")
        return f"{day:%A} {day.day} {day:%B %Y}, from {hm} that day to {hm} on {until} ({self.tz})"

    def bounds(self, day: dt.date) -> tuple[float, float]:
        """The gaming day ``day`` as [start, end) epoch seconds."""
        zone = ZoneInfo(self.tz)
        begin = dt.datetime.combine(day, self.start, tzinfo=zone)
        end = dt.datetime.combine(day + dt.timedelta(days=1), self.start, tzinfo=zone)
        return begin.timestamp(), end.timestamp()

    def day_of(self, ts: float) -> dt.date:
        """The gaming day that contains the moment ``ts`` (epoch seconds)."""
        local = dt.datetime.fromtimestamp(ts, ZoneInfo(self.tz))
        day = local.date()
        if local.time() < self.start:
            day -= dt.timedelta(days=1)
        return day
