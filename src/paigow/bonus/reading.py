"""Reading a pay table's TOML or JSON form, with errors that name the file and line."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from paigow.bonus.hand import BonusCategory
from paigow.bonus.pays import (
    ENVY_MINIMUM,
    PERCENT,
    Envy,
    Pay,
    PayKind,
    Progressive,
    Target,
    parse_percent,
)
from paigow.errors import PayTableError
from paigow.money import parse_money

TOP_KEYS: Final = ("name", "title", "source", "target", "pays", "envy", "progressive")
#: ``where(section, key)`` -> "file, line N" (or a plain origin when there are no lines).
Where = Callable[..., str]


class Fields(NamedTuple):
    """A pay table's checked fields."""

    name: str
    title: str
    source: str
    target: Target
    pays: dict[BonusCategory, Pay]
    envy: Envy | None
    progressive: Progressive | None


def find_line(lines: list[str], section: str, key: str) -> int | None:
    """The 1-based line of ``key`` in ``[section]`` (or of the section's header), if found."""
    current = ""
    header_line: int | None = None
    for number, line in enumerate(lines, 1):
        stripped = line.split("#", 1)[0].strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            current = stripped.strip("[]").strip()
            if current == section and not key:
                return number
            if current == section:
                header_line = number
            continue
        if current != section or not key:
            continue
        name = stripped.split("=", 1)[0].strip().strip('"').strip("'")
        if "=" in stripped and name == key:
            return number
    if header_line is None and not key:
        # A section given only through its subtables (``[envy.amounts]``): their first header.
        for number, line in enumerate(lines, 1):
            if line.split("#", 1)[0].strip().startswith(f"[{section}."):
                return number
    return header_line


def _money(value: object, where: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, str):
        raise PayTableError(f'{where}: {what}: {value!r} is not an amount (write it as "$5")')
    if value.strip().lstrip("$").strip().startswith("-"):
        raise PayTableError(f"{where}: {what}: {value!r} is negative")
    try:
        return parse_money(value)
    except ValueError as exc:
        raise PayTableError(f"{where}: {what}: {exc}") from None


def _category(key: str, where: str, what: str) -> BonusCategory:
    try:
        return BonusCategory(key)
    except ValueError:
        raise PayTableError(
            f"{where}: {what}: unknown category {key!r} "
            f"(categories: {', '.join(c.value for c in BonusCategory)})"
        ) from None


def _table(value: object, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PayTableError(f"{where}: {what} must be a table ([{what}] in a file)")
    return value


def _text(value: object, where: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PayTableError(f"{where}: {what} must be a non-empty string")
    return value.strip()


def read_fields(data: object, where: Where) -> Fields:
    """A pay table's fields from its TOML or JSON form, checked; errors say ``where(section, key)``."""
    top = _table(data, where(), "a pay table")
    for key in top:
        if key not in TOP_KEYS:
            raise PayTableError(
                f"{where('', key)}: unknown key {key!r} (keys: {', '.join(TOP_KEYS)})"
            )
    if "name" not in top:
        raise PayTableError(f"{where()}: a pay table needs a name")
    name = _text(top["name"], where("", "name"), "name")
    title = _text(top.get("title", name), where("", "title"), "title")
    source = str(top.get("source", "")).strip()
    if "target" not in top:
        raise PayTableError(f"{where()}: missing target (one of: {', '.join(Target)})")
    try:
        target = Target(top["target"])
    except ValueError:
        raise PayTableError(
            f"{where('', 'target')}: unknown target {top['target']!r} "
            f"(one of: {', '.join(t.value for t in Target)})"
        ) from None
    if "pays" not in top:
        raise PayTableError(f"{where()}: missing [pays]: a pay table pays at least one hand")
    pays: dict[BonusCategory, Pay] = {}
    for key, text in _table(top["pays"], where("pays"), "pays").items():
        at = where("pays", key)
        category = _category(key, at, f"pays.{key}")
        try:
            pays[category] = Pay.parse(text)
        except ValueError as exc:
            raise PayTableError(f"{at}: pays.{key}: {exc}") from None
    envy = None
    if "envy" in top:
        section = _table(top["envy"], where("envy"), "envy")
        for key in section:
            if key not in ("minimum", "amounts"):
                raise PayTableError(
                    f"{where('envy', key)}: unknown key envy.{key} (keys: minimum, amounts)"
                )
        minimum = ENVY_MINIMUM
        if "minimum" in section:
            minimum = _money(section["minimum"], where("envy", "minimum"), "envy.minimum")
        if "amounts" not in section:
            raise PayTableError(
                f"{where('envy')}: envy without amounts (add [envy.amounts], "
                'e.g. four-of-a-kind = "$25")'
            )
        amounts: dict[BonusCategory, int] = {}
        for key, text in _table(section["amounts"], where("envy.amounts"), "envy.amounts").items():
            at = where("envy.amounts", key)
            category = _category(key, at, f"envy.amounts.{key}")
            cents = _money(text, at, f"envy.amounts.{key}")
            if cents <= 0:
                raise PayTableError(f"{at}: envy.amounts.{key}: an amount must be more than zero")
            amounts[category] = cents
        if not amounts:
            raise PayTableError(f"{where('envy.amounts')}: envy without amounts")
        envy = Envy(minimum, amounts)
    progressive = None
    if "progressive" in top:
        section = _table(top["progressive"], where("progressive"), "progressive")
        for key in section:
            if key not in ("share", "seed", "wager"):
                raise PayTableError(
                    f"{where('progressive', key)}: unknown key progressive.{key} "
                    "(keys: share, seed, wager)"
                )
        for key in ("share", "seed"):
            if key not in section:
                raise PayTableError(f"{where('progressive')}: progressive without a {key}")
        at = where("progressive", "share")
        share_text = section["share"]
        m = PERCENT.fullmatch(share_text.strip()) if isinstance(share_text, str) else None
        if m is None:
            raise PayTableError(
                f'{at}: progressive.share: {share_text!r} is not a percentage (write "15%")'
            )
        share = parse_percent(m[1])
        if not 0 <= share <= 1:
            raise PayTableError(f"{at}: progressive.share must be between 0% and 100%")
        seed = _money(section["seed"], where("progressive", "seed"), "progressive.seed")
        wager = None
        if "wager" in section:
            wager = _money(section["wager"], where("progressive", "wager"), "progressive.wager")
            if wager <= 0:
                raise PayTableError(f"{where('progressive', 'wager')}: the wager must be > $0")
        progressive = Progressive(share, seed, wager)
    check_table(target, pays, envy, progressive, where)
    return Fields(name, title, source, target, pays, envy, progressive)


def check_table(
    target: Target,
    pays: Mapping[BonusCategory, Pay],
    envy: Envy | None,
    progressive: Progressive | None,
    where: Where,
) -> None:
    """What a pay table must hold together (every pay fits its target, meter pays a progressive)."""
    if not pays:
        raise PayTableError(f"{where('pays')}: a pay table pays at least one hand")
    for category, pay in pays.items():
        # The player's table pays seven-card categories, the dealer-low table the low hand's;
        # the dealer's table may pay both (the dealer's seven cards and the house way's low).
        allowed = {
            Target.PLAYER: not category.is_low,
            Target.DEALER_LOW: category.is_low,
            Target.DEALER: True,
        }[target]
        if not allowed:
            wanted = "the low hand's" if target is Target.DEALER_LOW else "seven-card"
            raise PayTableError(
                f"{where('pays', category.value)}: pays.{category.value}: a {target.value} "
                f"pay table pays {wanted} categories only"
            )
        if pay.kind is PayKind.METER and progressive is None:
            raise PayTableError(
                f"{where('pays', category.value)}: pays.{category.value}: a meter pay needs a "
                "[progressive] section (share and seed)"
            )
    if envy is not None:
        if target is not Target.PLAYER:
            raise PayTableError(f"{where('envy')}: Envy is paid on players' hands only")
        for category in envy.amounts:
            if category.is_low:
                raise PayTableError(
                    f"{where('envy.amounts', category.value)}: Envy pays seven-card categories"
                )
