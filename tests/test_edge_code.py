"""A saved exact edge and the checkpoints of its run are keyed by the digest of the code that
counts them (``paigow.analysis.kernels.EDGE_SOURCES``): a result saved by other code, or by
code that recorded no digest, is refused by every reader (the floor, ``paigow report``), and a
checkpoint of other code is never resumed. No table is compiled here: the specs are stand-ins
(only the house way, wheel and file name of a compiled table are read), the results synthetic."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from paigow.analysis import edge as E
from paigow.analysis import faceup as F
from paigow.analysis import kernels as K
from paigow.analysis.compiled import cache_path
from paigow.analysis.par_sheet import exact_edges
from paigow.commission import Commission
from paigow.ranking import Wheel
from paigow.ruleset import PushRule, Ruleset
from paigow.service.floor import edges
from tests.helpers.edges import DEALS, HOUSE_WAY_COUNTS, STANDARD

WIN, PUSH = HOUSE_WAY_COUNTS["none"]
OTHER_CODE = "0123456789abcdef"


def stand_in_spec(folder: Path) -> Any:
    """What ``checkpoint_path`` and ``save_result`` read of a spec and its compiled table."""
    compiled = SimpleNamespace(
        way=STANDARD, wheel=Wheel.SECOND, path=cache_path(STANDARD, Wheel.SECOND, folder)
    )
    return SimpleNamespace(folder=str(folder), open=lambda: compiled)


def full_deck_result(player: str, push: PushRule = PushRule.NONE) -> E.EdgeResult:
    extra: dict[str, Any] = {"deck": 53}
    if push is not PushRule.NONE:
        extra["push_rule"] = push.value
    return E.EdgeResult(player, DEALS, WIN, PUSH, DEALS - WIN - PUSH, Commission(), 1.0, extra)


def other_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the counting code had been edited since: every player's digest is another."""
    monkeypatch.setattr(K, "edge_digest", lambda player: OTHER_CODE)


def test_each_players_sources_exist_and_hold_the_kernels_they_import() -> None:
    kernels = Path(K.__file__).parent
    for player, names in K.EDGE_SOURCES.items():
        assert len(set(names)) == len(names), player
        for name in names:
            assert K._source_file(name).is_file(), (player, name)
        # every kernel module named imports only kernel modules that are named too
        for name in (n for n in names if "/" not in n):
            for node in ast.walk(ast.parse((kernels / name).read_text())):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "paigow.analysis.kernels."
                ):
                    imported = node.module.rsplit(".", 1)[1] + ".py"  # type: ignore[union-attr]
                    assert imported in names, (player, name, imported)
    assert {"dominance.py", "trigger.py", "paigow/analysis/edge.py"} <= set(
        K.EDGE_SOURCES["house-way"]
    )
    assert set(K.STRATEGY_SOURCES) <= set(K.EDGE_SOURCES["optimal"])
    assert {"faceup_counts.py", "paigow/analysis/faceup.py"} <= set(K.EDGE_SOURCES["face-up"])
    digests = [K.edge_digest(p) for p in ("house-way", "optimal", "face-up")]
    assert len(set(digests)) == 3 and all(len(d) == 16 for d in digests)


def test_an_edit_of_a_counting_module_outside_the_kernels_changes_the_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python module named by a path is digested like a kernel: its statements count, its
    comments and docstrings do not."""
    copy = tmp_path / "edge.py"
    shutil.copy(K._source_file("paigow/analysis/edge.py"), copy)
    monkeypatch.setattr(K, "_source_file", lambda name: copy)
    digest = K.source_digest.__wrapped__  # type: ignore[attr-defined]
    names = ("paigow/analysis/edge.py",)
    before = digest(names)
    assert before == K.source_digest(names)  # the real file, through the cache
    copy.write_text(copy.read_text().replace('"""The exact house edge', '"""Edited. The exact'))
    copy.write_text(copy.read_text() + "\n# a comment\n")
    assert digest(names) == before
    copy.write_text(copy.read_text().replace("totals[1] -= comb(n, 7) - flagged", "pass"))
    assert digest(names) != before


def test_checkpoints_are_named_by_the_counting_codes_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = stand_in_spec(tmp_path)
    deck = list(range(53))
    now = {
        "house-way": E.checkpoint_path(spec, "house-way", deck),
        "house-way-ez": E.checkpoint_path(spec, "house-way", deck, PushRule.QUEEN_HIGH_PAI_GOW),
        "face-up": F.checkpoint_path(spec, deck, PushRule.NONE),
    }
    assert E.checkpoint_path(spec, "house-way", deck) == now["house-way"]  # stable
    assert len(set(now.values())) == 3
    other_code(monkeypatch)
    edited = {
        "house-way": E.checkpoint_path(spec, "house-way", deck),
        "house-way-ez": E.checkpoint_path(spec, "house-way", deck, PushRule.QUEEN_HIGH_PAI_GOW),
        "face-up": F.checkpoint_path(spec, deck, PushRule.NONE),
    }
    for kind, path in now.items():
        assert edited[kind] != path, kind
        assert edited[kind].parent == path.parent == tmp_path
        assert edited[kind].name.startswith(path.name.rsplit("-", 1)[0] + "-")  # cache clear's


@pytest.mark.parametrize("push", [PushRule.NONE, PushRule.QUEEN_HIGH_PAI_GOW])
def test_the_floor_takes_a_saved_house_way_edge_only_from_todays_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, push: PushRule
) -> None:
    spec = stand_in_spec(tmp_path)
    way = STANDARD
    path = E.save_result(spec, full_deck_result("house-way", push))
    data = json.loads(path.read_text())
    assert data["code"] == K.edge_digest("house-way") and E.is_current(data)
    got = edges.saved_house_way(tmp_path, way, "second", push.value)
    assert got is not None and (got["win"], got["push"]) == (WIN, PUSH)
    # the same file without a digest (saved before digests were recorded), or another one
    for stale in ({k: v for k, v in data.items() if k != "code"}, {**data, "code": OTHER_CODE}):
        path.write_text(json.dumps(stale))
        assert not E.is_current(stale)
        assert edges.saved_house_way(tmp_path, way, "second", push.value) is None
    path.write_text(json.dumps(data))
    assert edges.saved_house_way(tmp_path, way, "second", push.value) is not None
    other_code(monkeypatch)  # the counting code edited since the file was saved
    assert edges.saved_house_way(tmp_path, way, "second", push.value) is None


def test_the_floor_takes_the_optimal_players_saved_edge_only_from_todays_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = stand_in_spec(tmp_path)
    way = STANDARD
    path = E.save_result(spec, full_deck_result("optimal"))
    data = json.loads(path.read_text())
    assert data["code"] == K.edge_digest("optimal")
    want = {"1/20": data["house_edge_exact"]}
    assert edges.saved_optimal(tmp_path, way, "second") == want
    # the house way's digest is not the optimal player's
    for stale in (
        {k: v for k, v in data.items() if k != "code"},
        {**data, "code": OTHER_CODE},
        {**data, "code": K.edge_digest("house-way")},
    ):
        path.write_text(json.dumps(stale))
        assert edges.saved_optimal(tmp_path, way, "second") is None
    path.write_text(json.dumps(data))
    assert edges.saved_optimal(tmp_path, way, "second") == want
    other_code(monkeypatch)
    assert edges.saved_optimal(tmp_path, way, "second") is None


def test_the_par_sheet_shows_saved_edges_only_from_todays_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    spec = stand_in_spec(tmp_path)
    for player in ("house-way", "optimal", "face-up"):
        E.save_result(spec, full_deck_result(player))
    stale = E.save_result(spec, full_deck_result("house-way", PushRule.NINE_HIGH_LOW))
    data = json.loads(stale.read_text())
    stale.write_text(json.dumps({k: v for k, v in data.items() if k != "code"}))
    shown = exact_edges(STANDARD, Ruleset())
    assert sorted(e["player"] for e in shown) == ["face-up", "house-way", "optimal"]
    assert exact_edges(STANDARD, Ruleset(push=PushRule.NINE_HIGH_LOW)) == []
    other_code(monkeypatch)
    assert exact_edges(STANDARD, Ruleset()) == []
