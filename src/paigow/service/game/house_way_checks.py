"""An operator's house way at a table (docs/house-way.md, docs/service.md): a preset by name, the
rules as the API's JSON, or the text of a house-way file, refused with what is wrong; and the
check over every hand before a table takes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paigow.errors import PaigowError
from paigow.house_way import BUILTIN_PRESETS, HouseWay
from paigow.ranking import Wheel
from paigow.service.http_errors import Unprocessable


def house_way_from(
    spec: str | Mapping[str, Any], toml_text: str | None = None, file_name: str | None = None
) -> HouseWay:
    """A built-in preset by name, an operator's house way as its file's table (the rule
    language, or the first format's ``{name, two_pair, quads}``), or as the text of its TOML
    file (``toml_text``, which wins; its errors name ``file_name``, the file as the operator
    gave it); never a path (the API must not read the server's files). A house way may not
    take a preset's name unless it is that preset. Only what the file says is checked here;
    :func:`validate_house_way` runs it over every hand."""
    try:
        if toml_text is not None:
            return HouseWay.from_text(toml_text, file_name or "your house-way file")
        if isinstance(spec, str):
            if spec.strip().lower() not in BUILTIN_PRESETS:
                raise Unprocessable(
                    f"unknown house way {spec!r}: use a preset ({', '.join(BUILTIN_PRESETS)}), "
                    "give the house way's rules {name, bands, rules} or its file as "
                    "house_way_toml",
                    code="bad-house-way",
                )
            return HouseWay.preset(spec)
        way = HouseWay.from_dict(spec, str(spec.get("name") or "house_way"))
        if way.name.lower() in BUILTIN_PRESETS and not way.is_preset:
            raise Unprocessable(
                f"the name {way.name!r} is a preset's, and these rules are not the preset's: "
                "give your house way a name of its own",
                code="bad-house-way",
            )
        return way
    except PaigowError as exc:
        raise Unprocessable(str(exc), code="bad-house-way") from None


def validate_house_way(way: HouseWay, wheel: str) -> None:
    """Refuse a house way that leaves a hand without a rule, sets one into a foul or has a rule
    that sets no hand (run over all 154,143,080 hands, class by class, once per house way: about a
    second, then remembered). The presets are checked by the test suite; a first-format file is the fixed
    rules, which end in a rule for every hand and cannot foul, whatever the parameters (a rule
    its parameters leave unreachable refuses no table that played before)."""
    if way.translated or (way.name in BUILTIN_PRESETS and way == HouseWay.preset(way.name)):
        return  # the first format's fixed rules set every hand; the presets pass the suite's
    from paigow.analysis.compiled import validate  # the kernels load only when needed

    problems = validate(way, Wheel(wheel))
    if problems:
        raise Unprocessable("; ".join(problems), code="bad-house-way")


_PLAIN: dict[str, dict[str, Any]] = {}  # the plain words of each house way, by its digest


def plain_house_way(way: HouseWay) -> dict[str, Any]:
    """A house way in plain words for the table's rules page (:mod:`paigow.house_way.plain`):
    its name, label and digest, and each rule numbered with an example hand; worked out once
    per house way (a second or two) and kept by its digest."""
    kept = _PLAIN.get(way.digest)
    if kept is None:
        from paigow.house_way.plain import plain_rules

        rules = []
        for r in plain_rules(way):
            example = None
            if r.example is not None:
                seven, setting, rid = r.example
                example = {
                    "cards": [c.code for c in seven],
                    "high": [c.code for c in setting.high],
                    "low": [c.code for c in setting.low],
                    "rule": rid,
                }
            rules.append({"number": r.number, "id": r.id, "text": r.text, "example": example})
        kept = {"name": way.name, "label": way.label, "digest": way.digest,
                "title": way.title, "rules": rules}  # fmt: skip
        if len(_PLAIN) >= 32:
            _PLAIN.pop(next(iter(_PLAIN)))
        _PLAIN[way.digest] = kept
    return kept
