"""Pay tables: what a side wager pays, as data (docs/rulebook.md#side-wagers, docs/side-wagers.md).

A pay table names the hands it pays and what each pays: odds ``"N to 1"`` (or ``"N to M"``: the
wager returned with ``wager * N // M`` more, floored to the cent), a fixed amount ``"$500"``, or a
share of a progressive meter ``"10% of meter"``. It may carry an Envy section (fixed amounts paid
for other players' hands) and a progressive section (the meter's share of each wager and its seed).
Presets ship as TOML files in ``paigow/presets/bonus``; an operator's own file loads the same way,
and a bad file gets an error naming the file and line.

>>> t = PayTable.load("fortune-a")
>>> t.target.value, t.pays[BonusCategory.FOUR_OF_A_KIND].text
('player', '25 to 1')
>>> t.win(BonusCategory.FOUR_OF_A_KIND, 500)
12500
>>> PayTable.from_toml('name = "x"\\ntarget = "player"\\n[pays]\\nflush = "four to one"\\n', "x.toml")
Traceback (most recent call last):
...
paigow.errors.PayTableError: x.toml, line 4: pays.flush: 'four to one' is not a pay (write "N to 1", "N to M", "$500" or "10% of meter")
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from paigow.bonus.hand import ORDER, BonusCategory
from paigow.bonus.pays import (
    ENVY_MINIMUM,
    Envy,
    Pay,
    PayKind,
    Progressive,
    Target,
    percent_text,
)
from paigow.bonus.reading import Fields, check_table, find_line, read_fields
from paigow.errors import PayTableError
from paigow.money import format_money

__all__ = [
    "BONUS_PRESETS",
    "ENVY_MINIMUM",
    "Envy",
    "Pay",
    "PayKind",
    "PayTable",
    "PayTableError",
    "Progressive",
    "Target",
]

#: The pay tables shipped with the package (docs/side-wagers.md).
BONUS_PRESETS: Final = (
    "fortune-a",
    "fortune-b",
    "fortune-progressive",
    "emperors-challenge",
    "pai-gow-insurance",
    "dealer-bonus",
    "queens-dragon",
    "tiger-9",
)


def _freeze(pays: Mapping[BonusCategory, Pay]) -> Mapping[BonusCategory, Pay]:
    return MappingProxyType({c: pays[c] for c in sorted(pays, key=ORDER.__getitem__)})


@dataclass(frozen=True)
class PayTable:
    """A side wager's pay table (see the module's docstring).

    >>> t = PayTable.load("fortune-b")
    >>> t.best({BonusCategory.THREE_OF_A_KIND, BonusCategory.STRAIGHT}).value
    'three-of-a-kind'
    >>> t.best(set()) is None, PayTable.from_dict(t.to_dict()) == t
    (True, True)
    """

    name: str
    title: str
    source: str
    target: Target
    pays: Mapping[BonusCategory, Pay]
    envy: Envy | None = None
    progressive: Progressive | None = None
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pays", _freeze(self.pays))
        where = self.origin or f"pay table {self.name!r}"
        check_table(self.target, self.pays, self.envy, self.progressive, lambda *_: where)

    # ------------------------------------------------------------------------- loading
    @classmethod
    def preset(cls, name: str) -> PayTable:
        """A pay table shipped with the package, by name (:data:`BONUS_PRESETS`)."""
        key = name.strip().lower()
        text = cls.preset_text(key)
        return cls.from_toml(text, f"preset {key}")

    @staticmethod
    def preset_text(name: str) -> str:
        """A shipped pay table's TOML file, as written (a starting point for one's own).

        >>> PayTable.preset_text("fortune-a").startswith("#")
        True
        """
        key = name.strip().lower()
        if key not in BONUS_PRESETS:
            raise PayTableError(
                f"unknown pay table {name!r} (presets: {', '.join(BONUS_PRESETS)}; or a .toml file)"
            )
        return (
            resources.files("paigow.presets")
            .joinpath("bonus")
            .joinpath(f"{key}.toml")
            .read_text("utf-8")
        )

    @classmethod
    def load(cls, name_or_path: str | Path) -> PayTable:
        """A preset by name, or an operator's pay table from a TOML file."""
        text = str(name_or_path)
        if text.strip().lower() in BONUS_PRESETS:
            return cls.preset(text)
        path = Path(text)
        if text.endswith(".toml") or path.exists():
            try:
                body = path.read_text("utf-8")
            except OSError as exc:
                raise PayTableError(
                    f"cannot read pay table file {text!r}: {exc.strerror}"
                ) from None
            return cls.from_toml(body, text, default_name=path.stem)
        return cls.preset(text)

    @classmethod
    def from_toml(
        cls, text: str, origin: str = "<string>", default_name: str | None = None
    ) -> PayTable:
        """From a pay table's TOML text; errors name ``origin`` and the line."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PayTableError(f"{origin}: not valid TOML: {exc}") from None
        if default_name is not None:
            data.setdefault("name", default_name)
        lines = text.splitlines()

        def where(section: str = "", key: str = "") -> str:
            line = find_line(lines, section, key)
            return f"{origin}, line {line}" if line else origin

        return cls._from_fields(read_fields(data, where), origin)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PayTable:
        """From :meth:`to_dict`'s form (as a round's log records it)."""
        origin = f"pay table {data.get('name', '?')!r}" if isinstance(data, Mapping) else "?"
        return cls._from_fields(read_fields(data, lambda *_: origin), "")

    @classmethod
    def _from_fields(cls, f: Fields, origin: str) -> PayTable:
        return cls(f.name, f.title, f.source, f.target, f.pays, f.envy, f.progressive, origin)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, in full (a round's log records the pay tables it was played under)."""
        out: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "target": self.target.value,
            "pays": {c.value: p.text for c, p in self.pays.items()},
        }
        if self.envy is not None:
            out["envy"] = {
                "minimum": format_money(self.envy.minimum),
                "amounts": {c.value: format_money(a) for c, a in self.envy.amounts.items()},
            }
        if self.progressive is not None:
            prog: dict[str, Any] = {
                "share": percent_text(self.progressive.share),
                "seed": format_money(self.progressive.seed),
            }
            if self.progressive.wager is not None:
                prog["wager"] = format_money(self.progressive.wager)
            out["progressive"] = prog
        return out

    # ------------------------------------------------------------------------- paying
    def best(
        self, held: Iterable[BonusCategory], wager: int = 100, meter: int | None = None
    ) -> BonusCategory | None:
        """The held category this table pays most on (ties: the declared order), or None.

        Odds, fixed amounts and meter shares are compared at ``wager`` and ``meter`` (by default
        $1 and the progressive's seed).
        """
        if meter is None and self.progressive is not None:
            meter = self.progressive.seed
        paid = [c for c in held if c in self.pays]
        if not paid:
            return None
        return min(paid, key=lambda c: (-self.pays[c].value(wager, meter), ORDER[c]))

    def win(self, category: BonusCategory, wager: int, meter: int | None = None) -> int:
        """Cents won on ``category`` (the wager not included); 0 for a category not paid."""
        pay = self.pays.get(category)
        return 0 if pay is None else pay.win(wager, meter)
