"""Issue 50, versions: a house way's identity is the digest of its rules, and a round's log
(version 5) carries it beside the rules; a log whose rules were changed is refused on replay;
older logs replay as they were written."""

from __future__ import annotations

import random

import pytest

from paigow.errors import ReplayMismatch
from paigow.events import LOG_VERSION, RoundStarted
from paigow.house_way import HouseWay
from paigow.round import DIGEST_SINCE, Round

MINE = 'name = "mine"\n[[rule]]\nid = "mine.best-low"\nchoose = "best-low"\n'


def _played(way: HouseWay, log_version: int = LOG_VERSION) -> Round:
    r = Round(house_way=way, round_id="v", log_version=log_version)
    r.wager(1, 1000)
    r.deal(random.Random(5))
    r.set_house_way(1)
    r.finish()
    return r


@pytest.mark.parametrize("way", [HouseWay.preset("foxwoods"), HouseWay.from_text(MINE)])
def test_a_rounds_log_carries_its_house_ways_digest(way: HouseWay) -> None:
    r = _played(way)
    first = r.log()[0]
    assert LOG_VERSION >= DIGEST_SINCE and first["log_version"] == LOG_VERSION
    assert first["house_way_digest"] == way.digest
    assert HouseWay.from_dict(first["house_way"]).digest == way.digest
    assert Round.replay(r.log()).log() == r.log()


def test_a_log_whose_rules_were_changed_is_refused() -> None:
    log = _played(HouseWay.from_text(MINE)).log()
    other = HouseWay.from_text(MINE.replace("best-low", "best-high"))
    changed = [{**log[0], "house_way": other.to_dict()}, *log[1:]]
    with pytest.raises(ReplayMismatch, match="its rules' digest is " + other.digest):
        Round.replay(changed)


def test_a_version_4_log_has_no_digest_and_replays() -> None:
    r = _played(HouseWay.preset("standard"), log_version=4)
    first = r.log()[0]
    assert first["log_version"] == 4 and "house_way_digest" not in first
    again = Round.replay(r.log())
    assert again.log() == r.log()
    started = again.events[0]
    assert isinstance(started, RoundStarted) and started.house_way_digest == ""


def test_two_files_with_one_name_are_two_versions() -> None:
    a = HouseWay.from_text(MINE)
    b = HouseWay.from_text(MINE.replace("best-low", "best-high"))
    assert a.name == b.name and a.digest != b.digest and a.label != b.label
    ids = HouseWay.identity_of(a.to_dict()), HouseWay.identity_of(b.to_dict())
    assert [i["digest"] for i in ids] == [a.digest, b.digest]


#: Where a house way may be read from data or written as data: the boundaries where it is kept
#: (a file, a table's row, a round's log, the floor's rows, a saved result, the operator's form,
#: a command's JSON). Everywhere else it travels as itself, known by its name and digest.
BOUNDARIES = {
    "from_dict": {
        "house_way/way.py",  # a file's table
        "round.py",  # a log's round-started, replayed
        "service/game/table_rows.py",  # a table's row
        "service/game/rounds/head.py",  # a table's row, once per table configuration
        "service/game/house_way_checks.py",  # the operator's form
        "service/api/routes/tables.py",  # the rules page of a table's row
        "service/floor/view.py",  # the floor's table rows
        "service/floor/edges.py",  # the floor's rows of exact counts
        "service/floor/players.py",  # the floor's table rows (the players' side wagers' holds)
    },
    "to_dict": {
        "round.py",  # round-started in the log
        "service/game/table_rows.py",  # a table's row
        "analysis/compiled.py",  # a compiled table's header
        "analysis/edge.py",  # a saved result
        "cli/house_way_commands.py",  # `house-way show --json`
    },
}


def test_a_house_way_travels_as_itself() -> None:
    """Issue 50: no turning a house way into a dict and back between two rooms of the code (a
    worker process, an analysis job, a cache key get the house way itself)."""
    import re
    from pathlib import Path

    from paigow.analysis.runner import TableSpec
    from paigow.ranking import Wheel

    src = Path(__file__).resolve().parents[1] / "src" / "paigow"
    found: dict[str, set[str]] = {"from_dict": set(), "to_dict": set()}
    for path in src.rglob("*.py"):
        text = path.read_text("utf-8")
        rel = path.relative_to(src).as_posix()
        if "HouseWay.from_dict(" in text.replace(">>> HouseWay.from_dict(", ""):
            found["from_dict"].add(rel)
        if re.search(r"(?<![\w.])(?:way|house_way)\.to_dict\(\)", text):
            found["to_dict"].add(rel)
    assert found["from_dict"] <= BOUNDARIES["from_dict"], found["from_dict"]
    assert found["to_dict"] <= BOUNDARIES["to_dict"], found["to_dict"]
    way = HouseWay.preset("foxwoods")
    assert TableSpec.of(way, Wheel.SECOND).way is way
    # equal by name and digest, hashed alike: a cache keyed by the house way itself
    again = HouseWay.from_text(way.to_toml(), "copy.toml")
    assert again == way and hash(again) == hash(way) and {way: 1}[again] == 1
