"""The analysis commands of the CLI, and the same jobs on a local Dask cluster."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from paigow.analysis.compiled import CompiledHouseWay
from paigow.bonus import PayTable
from paigow.cli import app
from paigow.ranking import Wheel
from paigow.ruleset import Ruleset, SideWagerOffer

runner = CliRunner()


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout


def test_analyze_json(compiled: CompiledHouseWay) -> None:
    code, out = run("analyze", "Ts 5h 5c Kd 9h Th Jk", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["cards"] == ["Ts", "5h", "5c", "Kd", "9h", "Th", "Jk"]
    assert data["dealer_hands"] == 53_524_680
    assert len(data["settings"]) == 21
    for s in data["settings"]:
        assert s["win"] + s["push"] + s["loss"] == 53_524_680
    assert 0 <= data["house_way"] < 21 and 0 <= data["optimal"] < 21
    best = max(s["ev"] for s in data["settings"])
    assert data["settings"][data["optimal"]]["ev"] == best


def test_analyze_text_and_commission(compiled: CompiledHouseWay) -> None:
    code, out = run("analyze", "Ks", "Qd", "9h", "7c", "5s", "4d", "2h", "--commission", "0.04")
    assert code == 0, out
    assert "commission 4%" in out and "house way (pai-gow)" in out and "optimal" in out
    code, _ = run("analyze", "Ks Qd 9h 7c 5s 4d", "--json")
    assert code == 2
    code, _ = run("analyze", "Ks Qd 9h 7c 5s 4d 2h", "--commission", "0.07")
    assert code == 2


@pytest.fixture(scope="module")
def local_stats(compiled: CompiledHouseWay) -> dict[str, Any]:
    """``stats --json`` in this process (seconds over every hand): counted once for the two
    tests that read it."""
    code, out = run("stats", "--json")
    assert code == 0, out
    return dict(json.loads(out))


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_stats_json(local_stats: dict[str, Any]) -> None:
    data = local_stats
    assert data["total"] == 154_143_080
    assert sum(data["categories"].values()) == data["total"]
    assert set(data["categories"]) == {
        "five aces",
        "royal flush",
        "straight flush",
        "four of a kind",
        "full house",
        "flush",
        "straight",
        "three of a kind",
        "two pair",
        "one pair",
        "high card",
    }
    assert sum(data["dealer_low"].values()) == data["total"]


def test_simulate_json_and_reproducible(compiled: CompiledHouseWay) -> None:
    args = ("simulate", "--rounds", "1500000", "--seed", "3", "--json")
    a = json.loads(run(*args)[1])
    b = json.loads(run(*args, "--workers", "1")[1])
    for key in ("rounds", "win", "push", "loss", "house_edge", "ci95"):
        assert a[key] == b[key]
    assert set(a) >= {"rounds", "win", "push", "loss", "house_edge", "ci95", "rounds_per_second"}
    assert a["ci95"][0] < a["house_edge"] < a["ci95"][1]
    code, out = run("simulate", "--rounds", "200000", "--seed", "3")
    assert code == 0 and "house edge per hand" in out and "rounds per second" in out


def test_cache_info_and_verify(compiled: CompiledHouseWay) -> None:
    code, out = run("cache", "info", "--json")
    assert code == 0
    files = json.loads(out)["files"]
    assert any(f["path"] == str(compiled.path) for f in files)
    code, out = run("cache", "verify", "--json")
    assert code == 0
    assert all(r["ok"] for r in json.loads(out)["files"])


def test_cache_verify_and_clear_on_a_damaged_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    (tmp_path / "houseway-broken-second-v1-000000000000.bin").write_bytes(b"junk")
    code, out = run("cache", "verify")
    assert code == 1 and "BAD" in out
    code, out = run("cache", "info")
    assert "damaged" in out
    code, out = run("cache", "clear")
    assert code == 0 and "removed 1" in out
    assert not list(tmp_path.glob("*.bin"))


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
def test_report_html(compiled: CompiledHouseWay, tmp_path: Path) -> None:
    out_file = tmp_path / "par.html"
    offer = SideWagerOffer("dragon", PayTable.preset("queens-dragon"), 500, 10_000)
    ruleset = tmp_path / "table.json"
    ruleset.write_text(json.dumps(Ruleset(side_wagers=(offer,)).to_dict()))
    code, out = run(
        "report", "--out", str(out_file), "--rounds", "300000", "--ruleset", str(ruleset)
    )
    assert code == 0, out
    text = out_file.read_text()
    # the table's side wager, from its ruleset, with its limits and its exact return
    assert "Offered as dragon: $5.00 to $100.00." in text
    assert "<td>10.0222%</td>" in text and "exactly -6491/64766" in text
    for section in (
        "Rules in force",
        "Hand frequencies",
        "The dealer&#x27;s setting",
        "House edge",
    ):
        assert section.replace("&#x27;", "'") in text or section in text
    assert "Commission: 5%" in text
    assert text.count("data:image/png;base64,") >= 2
    assert not re.search(r'(src|href)="https?://', text)  # self-contained
    assert "154,143,080" in text
    assert "<th></th>" not in text  # every table header names its column
    assert "The cost of the house way, rule by rule" in text
    assert "each pair, and the other hands by their top card" in text  # the grouped chart
    assert text.count("data:image/png;base64,") >= 2


@pytest.mark.slow
def test_jobs_on_a_dask_cluster_equal_single_process(
    compiled: CompiledHouseWay, local_stats: dict[str, Any]
) -> None:
    """``--cluster local`` (a cluster the command starts and closes) and ``--scheduler`` (a
    running cluster, started here once for two jobs rather than one a job) give this process's
    results."""
    import distributed

    sim = ("simulate", "--rounds", "2500000", "--seed", "11", "--json")
    local = json.loads(run(*sim)[1])
    code, out = run(*sim, "--cluster", "local")
    assert code == 0, out
    cluster = json.loads(out)
    for key in ("win", "push", "loss", "house_edge", "ci95"):
        assert cluster[key] == local[key]
    hands = "Ts 5h 5c Kd 9h Th Jk\nKs Qd 9h 7c 5s 4d 2h\n"
    a = [json.loads(x) for x in run("analyze", "-", "--json", stdin=hands)[1].splitlines()]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as running:
        at = ("--scheduler", running.scheduler_address)
        code, out = run("stats", "--json", *at)
        assert code == 0, out
        assert json.loads(out) == local_stats
        code, out = run("analyze", "-", "--json", *at, stdin=hands)
        assert code == 0, out
        b = [json.loads(x) for x in out.splitlines()]
    assert a == b and len(a) == 2


def test_report_ruleset_must_agree_with_the_options(tmp_path: Path) -> None:
    ruleset = tmp_path / "table.json"
    ruleset.write_text(json.dumps(Ruleset(wheel=Wheel.LOWEST).to_dict()))
    args = ("report", "--out", str(tmp_path / "p.html"), "--ruleset", str(ruleset))
    # an option at its default is taken from the ruleset; one given otherwise must agree
    result = runner.invoke(app, [*args, "--commission", "0.04"])
    assert result.exit_code == 2 and "--commission 4% disagrees with the ruleset" in result.output
    ruleset.write_text('{"wheel": "sideways"}')
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2 and "--ruleset" in result.output and "sideways" in result.output
