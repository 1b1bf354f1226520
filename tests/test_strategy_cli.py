"""The compiled strategy's commands: clear errors before it is built, and (once `paigow strategy
build` has run here) the answers of `hand --strategy optimal`, `strategy explain`, `simulate
--player optimal` and `edge --player optimal` from the same file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.runner import TableSpec
from paigow.cli import app
from paigow.commission import Commission
from paigow.ranking import Wheel


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin, env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_commands_say_when_the_strategy_is_not_built(compiled: CompiledHouseWay) -> None:
    # no strategy is ever built for a 1% commission here
    for args in (
        ("strategy", "explain", "--commission", "0.01"),
        ("hand", "As", "Kd", "Qh", "Jc", "9s", "7d", "Jk", "--strategy", "optimal",
         "--commission", "0.01"),
        ("simulate", "--rounds", "1000", "--player", "optimal", "--commission", "0.01"),
    ):  # fmt: skip
        code, out = run(*args)
        assert code == 2, out
        assert "paigow strategy build" in out
    code, out = run("hand", "As", "Kd", "--strategy", "best")
    assert code == 2 and "'best' is not one of 'house-way', 'optimal'" in " ".join(out.split())
    code, out = run("simulate", "--rounds", "10", "--player", "psychic")
    assert code == 2 and "'psychic' is not one of" in " ".join(out.split())


@pytest.fixture(scope="module")
def built(compiled: CompiledHouseWay, table_folder: Path) -> None:
    from paigow.analysis.strategy import strategy_path

    spec = TableSpec.of(compiled.way, Wheel.SECOND, table_folder)
    if not strategy_path(spec, Commission("0.05")).exists():
        pytest.skip(
            "no compiled strategy here: run `paigow strategy build` (about 7 min on 2 cores)"
        )


def test_hand_batch_and_explain(built: None) -> None:
    lines = "As Kd Qh Jc 9s 7d Jk\nQs Qh 9c 9d 5s 3h 2c\nnot a hand\n"
    code, out = run("hand", "-", "--strategy", "optimal", "--json", stdin=lines)
    assert code == 1  # one line failed, the others answered
    rows = [json.loads(x) for x in out.splitlines()]
    assert rows[2]["input"] == "not a hand" and "error" in rows[2]
    for r in rows[:2]:
        assert r["ev"] >= r["house_way_ev"] and r["ev_given_up"] >= 0
    code, out = run("strategy", "explain", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert sum(r["hands"] for r in data["rules"]) == 154_143_080
    assert all(0 <= r["differ"] <= r["hands"] and r["ev_given_up"] >= 0 for r in data["rules"])
    code, out = run("edge", "--player", "optimal", "--json")
    assert code == 0, out
    edge = json.loads(out)
    assert edge["house_edge_exact"] == data["optimal_edge"]["house_edge_exact"]


def test_simulate_optimal_contains_the_exact_edge(built: None) -> None:
    code, out = run("simulate", "--rounds", "4000000", "--seed", "5", "--player", "optimal",
                    "--json")  # fmt: skip
    assert code == 0, out
    sim = json.loads(out)
    code, out = run("edge", "--player", "optimal", "--json")
    exact = json.loads(out)["house_edge"]
    lo, hi = sim["ci95"]
    assert lo <= exact <= hi
