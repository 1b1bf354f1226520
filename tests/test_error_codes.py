"""The core's error codes: one registry (``paigow.errors.CODES``), documented in
docs/rulebook.md#error-codes, each with its HTTP status, each provoked through the core and
answered by the service's one handler; and no hand translation of a core error in ``service/``."""

from __future__ import annotations

import ast
import asyncio
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from paigow.bonus.paytable import PayTable
from paigow.cards import parse_cards
from paigow.errors import CODES, PaigowError
from paigow.events import event_from_dict
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.ruleset import Ruleset, SideWagerOffer
from paigow.service.http_errors import CORE_STATUS, core_error

ROOT = Path(__file__).resolve().parents[1]
RULEBOOK = ROOT / "docs" / "rulebook.md"
SERVICE = ROOT / "src" / "paigow" / "service"
BEGIN, END = "<!-- error-codes:begin -->", "<!-- error-codes:end -->"

FORTUNE = SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2500)


def _dealt(*spots: int, **rules: object) -> Round:
    r = Round(Ruleset(**rules), round_id="t")  # type: ignore[arg-type]
    for spot in spots:
        r.wager(spot, 1000)
    r.deal(random.Random(7))
    return r


def _twice(first: Callable[[Round], object], r: Round) -> None:
    first(r)
    first(r)


def _not_your_turn() -> None:
    r = _dealt(1, 2, dragon=True)
    r.offer_dragon()
    assert r.dragon_turn is not None
    r.decline_dragon(3 - r.dragon_turn)


def _dragon_offered() -> None:
    r = _dealt(1, dragon=True)
    _twice(lambda x: x.offer_dragon(), r)


def _unknown_side() -> None:
    r = Round(Ruleset(side_wagers=(FORTUNE,)))
    r.wager(1, 1000)
    r.side_wager(1, "x", 500)


def _shuffled() -> Round:
    r = Round()
    r.wager(1, 1000)
    r.shuffle(random.Random(1))
    return r


PROVOKE: dict[str, Callable[[], object]] = {
    "wrong-phase": lambda: Round().set_dealer(),
    "no-such-spot": lambda: Round().wager(7, 1000),
    "bad-amount": lambda: Round().wager(1, 10.5),  # type: ignore[arg-type]
    "outside-limits": lambda: Round().wager(1, 1),
    "already-wagered": lambda: _twice(lambda r: r.wager(1, 1000), Round()),
    "bad-player": lambda: Round().wager(1, 1000, player=""),
    "no-main-wager": lambda: Round(Ruleset(side_wagers=(FORTUNE,))).side_wager(2, "fortune", 500),
    "unknown-side-wager": lambda: _unknown_side(),
    "log-version": lambda: Round(log_version=99),
    "no-wagers": lambda: Round().shuffle(),
    "bad-start": lambda: _shuffled().choose_start(number=3),
    "no-dragon": lambda: _dealt(1).offer_dragon(),
    "dragon-offered": _dragon_offered,
    "no-dragon-offer": lambda: _dealt(1, dragon=True).decline_dragon(1),
    "not-your-turn": _not_your_turn,
    "bad-reason": lambda: Round().void(""),
    "no-hand": lambda: _dealt(1).set_house_way(2),
    "already-set": lambda: _twice(lambda r: r.set_house_way(1), _dealt(1)),
    "bad-setting": lambda: _dealt(1).set_low(1, ["Zz", "As"]),
    "face-up": lambda: _dealt(1, face_up=True).set_dealer(),
    "not-all-set": lambda: _dealt(1).set_dealer(),
    "not-over": lambda: Round().returned(),
    "replay-mismatch": lambda: Round.replay([]),
    "bad-card": lambda: parse_cards(["Zz"]),
    "bad-ruleset": lambda: Ruleset(min_wager=0),
    "bad-house-way": lambda: HouseWay.preset("no-such-way"),
    "bad-paytable": lambda: PayTable.load("no-such-table"),
    "invalid": lambda: event_from_dict({"type": "wager-placed"}),
}


def _provoked(code: str) -> PaigowError:
    with pytest.raises(PaigowError) as info:
        PROVOKE[code]()
    return info.value


def test_every_code_has_a_meaning_a_status_and_a_provocation() -> None:
    assert set(PROVOKE) == set(CODES) == set(CORE_STATUS)
    assert all(meaning.endswith(".") for meaning in CODES.values())
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code) for code in CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_each_code_through_the_core_and_the_handler(code: str) -> None:
    """The core raises the code; the service's one handler answers its status and body."""
    exc = _provoked(code)
    assert exc.code == code, (code, exc)
    status, body = core_error(exc)
    assert (status, body) == (CORE_STATUS[code], {"detail": str(exc), "code": code})
    from paigow.service.process.app import core_error_handler

    response = asyncio.run(core_error_handler(None, exc))  # type: ignore[arg-type]
    assert response.status_code == CORE_STATUS[code]
    assert json.loads(bytes(response.body)) == body


def test_verify_and_can_agree_with_the_command() -> None:
    r = _dealt(1, 2)
    assert not r.can_set_house_way(3) and r.can_set_house_way(1)
    with pytest.raises(PaigowError) as info:
        r.verify_set_house_way(3)
    assert info.value.code == "no-hand" and len(r.events) == 6  # verify changes nothing


def docs_block() -> str:
    rows = [f"| `{code}` | {CORE_STATUS[code]} | {meaning} |" for code, meaning in CODES.items()]
    return "\n".join(["| code | HTTP | meaning |", "| --- | --- | --- |", *rows])


def test_the_rulebook_lists_every_code() -> None:
    text = RULEBOOK.read_text(encoding="utf-8")
    found = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert found == docs_block(), "docs/rulebook.md#error-codes: paste\n" + docs_block()


# ---------------------------------------------------------------------------- the source
CORE_ERRORS = {
    "PaigowError",
    "RoundError",
    "CardError",
    "RulesetError",
    "HouseWayError",
    "SettingError",
    "PayTableError",
    "ReplayMismatch",
}
TRANSLATIONS_ALLOWED = {
    # building a table: the same core error means another thing per field, and the API
    # answers that field's code (bad-variant, bad-side-wager, bad-paytable's prefix)
    "game/side_offers.py:pay_table_of",
    "game/side_offers.py:build_offers",
    "game/house_way_checks.py:house_way_from",
    "game/variants.py:variant_settings",
    # the hand evaluator of the browser's practice page: any bad input is 400 bad-cards
    "api/routes/web.py:evaluate",
}
"""Where a core error still becomes a ``ServiceError`` by hand, and why: never a round's."""


def _translations() -> set[str]:
    found = set()
    for path in SERVICE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if not isinstance(node, ast.ExceptHandler) or node.type is None:
                    continue
                caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                if not caught & CORE_ERRORS:
                    continue
                if any(isinstance(n, ast.Raise) and n.exc is not None for n in node.body):
                    found.add(f"{path.relative_to(SERVICE).as_posix()}:{func.name}")
    return found


def test_no_core_error_is_translated_by_hand_outside_the_handler() -> None:
    found = _translations()
    assert found <= TRANSLATIONS_ALLOWED, sorted(found - TRANSLATIONS_ALLOWED)
    assert not any("rounds/" in where for where in found)


def test_the_service_repeats_no_rule_of_the_round() -> None:
    """The round's own checks (limits, already wagered or set, whose turn) are not made again
    in service/game/rounds: it calls the core's verify_X or lets the core's error through."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (SERVICE / "game/rounds").glob("*.py"))
    for rule in (
        "min_wager <=",
        "<= hi",
        "in rnd.wagers:",
        "in rnd.settings:",
        "name) in rnd.side_wagers",
        "turn != spot",
        'code="outside-limits"',
        'code="already-set"',
        'code="not-your-turn"',
        'code="unknown-side-wager"',
    ):
        assert rule not in text, rule
