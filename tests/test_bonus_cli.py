"""``paigow bonus``: list and analyze, on the counts of a reduced deck (the full deck's are
checked in test_bonus_analysis's exhaustive test)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.analysis.bonus_counts import BonusCounts, deck_counts
from paigow.analysis.bonus_return import analyze
from paigow.bonus import BONUS_PRESETS, PayTable
from paigow.cards import parse_cards
from paigow.cli import app
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

runner = CliRunner()
DECK = parse_cards("8s 9s Ts Js Qs Ks As 8h 9h Th Jh Qh Kh Ah Ac Ad Jk")
COUNTS = deck_counts(DECK, HouseWay.load("standard"))

PROGRESSIVE = """name = "my-progressive"
title = "A progressive"
target = "player"

[pays]
seven-card-straight-flush = "100% of meter"
royal-match = "10% of meter"
royal-flush = "$2"

[progressive]
share = "10%"
seed = "$10"
wager = "$1"
"""


@pytest.fixture(autouse=True)
def reduced_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(way: HouseWay, wheel: Wheel, workers: int) -> BonusCounts:
        return COUNTS

    monkeypatch.setattr("paigow.cli.bonus_commands.bonus_counts", fake)


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_list() -> None:
    code, out, _ = run("bonus", "list")
    assert code == 0
    for name in BONUS_PRESETS:
        assert name in out
    code, out, _ = run("bonus", "list", "--json")
    assert [t["name"] for t in json.loads(out)] == list(BONUS_PRESETS)


def test_analyze_text() -> None:
    code, out, _ = run("bonus", "analyze", "fortune-a", "--players", "3")
    assert code == 0, out
    expected = analyze(PayTable.load("fortune-a"), COUNTS)
    assert "royal match" in out and "2000 to 1" in out and "not paid" in out
    assert f"{COUNTS.hands:,}" in out
    assert f"exactly {expected.paid_return}" in out
    assert "players at the table" in out and "with 3 players at the table" in out


def test_analyze_json_holds_the_exact_figures() -> None:
    code, out, _ = run("bonus", "analyze", "fortune-a", "--json", "--players", "6")
    assert code == 0, out
    data = json.loads(out)
    expected = analyze(PayTable.load("fortune-a"), COUNTS)
    assert Fraction(data["return_exact"]) == expected.paid_return
    assert Fraction(data["total_return_exact"]) == expected.total_return(6)
    assert (
        data["hands"]
        == COUNTS.hands
        == sum(line["hands"] for line in data["lines"]) + (data["losing_hands"])
    )
    assert set(data["envy"]["by_players"]) == {"1", "2", "3", "4", "5", "6"}
    assert data["wager"] == "$5.00"


def test_analyze_a_progressive_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(PROGRESSIVE)
    code, out, _ = run("bonus", "analyze", str(path), "--meter", "1234.50", "--json")
    assert code == 0, out
    data = json.loads(out)
    table = PayTable.load(str(path))
    expected = analyze(table, COUNTS, meter=123_450)
    assert data["meter"] == "$1,234.50" and data["wager"] == "$1.00"
    assert Fraction(data["return_exact"]) == expected.paid_return
    assert Fraction(data["break_even_meter_exact_cents"]) == expected.break_even
    code, out, _ = run("bonus", "analyze", str(path))
    assert code == 0 and "break-even meter" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-table"], "unknown pay table"),
        (["fortune-a", "--meter", "100"], "has no progressive meter"),
        (["fortune-a", "--wager", "ten"], "--wager"),
        (["fortune-a", "--wager", "0"], "more than $0"),
        (["fortune-a", "--house-way", "nowhere"], "nowhere"),
    ],
)
def test_analyze_errors(args: list[str], message: str) -> None:
    code, _, err = run("bonus", "analyze", *args)
    assert code == 2
    assert message in " ".join(err.split())


def test_a_bad_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(PROGRESSIVE.replace('royal-flush = "$2"', 'royal-flush = "two dollars"'))
    code, _, err = run("bonus", "analyze", str(path))
    assert code == 2
    assert "line 8" in " ".join(err.split()) and "royal-flush" in err
    code, _, err = run("bonus", "analyze", "--players", "7", "fortune-a")
    assert code == 2


def test_help_reads_well() -> None:
    code, out, _ = run("bonus", "analyze", "--help")
    assert code == 0
    assert "PAYTABLE|FILE" in out and "DOLLARS" in out and "TEXT" not in out


def test_par_sheet_side_wager_section() -> None:
    from paigow.analysis.par_sheet import bonus_section

    analyses = [analyze(PayTable.load(n), COUNTS) for n in ("fortune-a", "tiger-9")]
    analyses.append(analyze(PayTable.from_toml(PROGRESSIVE), COUNTS))
    html = bonus_section(analyses)
    assert html.count("<h3>") == 3 and "royal match" in html and "not paid" in html
    assert "house edge with Envy" in html and "Break-even meter" in html
    assert f"{COUNTS.hands - analyses[0].paid_hands:,}" in html
    assert "No side wager" in bonus_section([])


def test_cache_clear_removes_the_bonus_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    (tmp_path / "bonus-standard-second-v2-000000000000.json").write_text("{}")
    code, out, _ = run("cache", "clear")
    assert code == 0 and "1 other file" in out
    assert not list(tmp_path.glob("bonus-*"))
