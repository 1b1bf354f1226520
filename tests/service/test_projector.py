"""Issue 46: one projector of a round's steps (:mod:`paigow.service.game.rounds.projector`): the
events a command's core calls returned become its money, records, log and notice in one place.
What it derives is checked here without a database; that no command writes them itself, by
reading the source; the service tests run every command through it on both back ends."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paigow.events import DragonAccepted, HandSet, SideWagerPlaced, SpotSettled, WagerPlaced
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.game.rounds.log import InconsistentRound
from paigow.service.game.rounds.projector import (
    CLOSE_WAGER,
    INSERT_SIDE,
    TAKE_DRAGON,
    WagerRecord,
    derive,
)

SERVICE = Path(__file__).resolve().parents[2] / "src" / "paigow" / "service"
ANN = Principal(5, "ann", "player")


@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.sampled_from(["fortune", "envy", "dragon", "main"])),
        max_size=8,
    ),
    st.integers(100, 10_000),
)
def test_what_is_placed_is_moved_from_the_wallet_once(
    placements: list[tuple[int, str]], amount: int
) -> None:
    events = []
    for spot, what in placements:
        if what == "main":
            events.append(WagerPlaced(spot, amount))
        elif what == "dragon":
            events.append(DragonAccepted(spot, amount))
        else:
            events.append(SideWagerPlaced(spot, what, amount))
    events.append(HandSet(1, ("AS", "KS", "QS", "JS", "TS"), ("2C", "3D"), False, "player"))
    out = derive(3, "r", events, ANN)
    assert [m.amount for m in out.movements] == [amount] * len(placements)
    assert all(m.source == "wallet:ann" for m in out.movements)
    assert len(out.records) == len(placements)
    sides = [p for p in out.records if p[0] is INSERT_SIDE]
    assert len(sides) == sum(1 for _s, w in placements if w in ("fortune", "envy"))
    assert sum(1 for p in out.records if p[0] is TAKE_DRAGON) == sum(
        1 for _s, w in placements if w == "dragon"
    )
    assert set(out.owners) == {s for s, w in placements if w == "main"}


def test_a_spot_is_settled_against_its_record_and_closed() -> None:
    lost = SpotSettled(4, "loss", "loss", "loss", 2000, 0, 0, 0, False)
    record = WagerRecord(4, 5, "ann", 2000, "in-play")
    out = derive(3, "r", [lost], wagers={4: record})
    assert [(m.source, m.target, m.amount) for m in out.movements] == [
        ("wagers-in-play:table-3", "house:win:table-3", 2000)
    ]
    ((statement, params),) = out.records
    assert statement is CLOSE_WAGER
    assert params == {"rid": "r", "w_spot": 4, "w_status": "settled", "w_returned": 0}
    for wrong in (
        {},
        {4: WagerRecord(4, 5, "ann", 1000, "in-play")},
        {4: WagerRecord(4, 5, "ann", 2000, "settled")},
    ):
        with pytest.raises(InconsistentRound, match="spot 4"):
            derive(3, "r", [lost], wagers=wrong)


def _calls(path: Path) -> list[tuple[str, ast.Call]]:
    """(the called name, the call) of every call in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            out.append((name, node))
    return out


def test_no_command_writes_a_rounds_books_itself() -> None:
    """Only the projector appends a step's events, applies the wake rule and posts the money of
    a wager or a settlement. Exceptions, each named: the log opens a round with its first
    event; a void of a log that cannot be replayed is recorded and announced by hand."""
    allowed = {
        ("append", "game/rounds/log.py"),
        ("wake", "game/rounds/steps.py"),
    }
    found = set()
    kinds = []
    for path in SERVICE.rglob("*.py"):
        rel = path.relative_to(SERVICE).as_posix()
        if rel == "game/rounds/projector.py":
            continue
        for name, call in _calls(path):
            if name in ("append", "wake") and "rounds" in rel:
                if name == "append" and not (call.args and ast.unparse(call.args[0]) == "tx"):
                    continue  # a list's append
                found.add((name, rel))
            if name == "post" and len(call.args) > 1:
                kind = call.args[1]
                if isinstance(kind, ast.Constant) and kind.value in ("wager", "settlement"):
                    kinds.append(f"{rel}:{call.lineno}")
    assert found <= allowed, sorted(found - allowed)
    assert ("wake", "game/rounds/steps.py") in found  # the scan sees calls (the by-hand void)
    assert kinds == []
