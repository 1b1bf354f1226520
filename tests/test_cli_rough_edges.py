"""Issue 49's rough edges of the command line (edge 13)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.analysis.bonus_counts import BonusCounts, deck_counts
from paigow.bonus import BONUS_PRESETS, PayTable
from paigow.cards import parse_cards
from paigow.cli import app
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

runner = CliRunner()
DECK = parse_cards("8s 9s Ts Js Qs Ks As 8h 9h Th Jh Qh Kh Ah Ac Ad Jk")


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_deal_side_takes_a_pay_table_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(PayTable.preset_text("fortune-a").replace('"fortune-a"', '"mine"'), "utf-8")
    code, out = run("deal", "--seed", "3", "--side", f"{path}=5", "--json")
    assert code == 0, out
    assert {e["name"] for e in json.loads(out)["side_results"]} == {"mine"}


def test_deal_side_error_suggests_a_name_that_works() -> None:
    code, out = run("deal", "--side", "fortune")
    assert code == 2
    assert "fortune-a=5" in out and "fortune=5" not in out


def test_deal_names_the_cards_of_each_bonus_hand() -> None:
    args = ["deal", "--seed", "3", "--spots", "1", "--side", "fortune-a=5"]
    code, out = run(*args, "--json")
    dealt = next(e for e in json.loads(out)["events"] if e["type"] == "dealt")
    spot1 = next(p["cards"] for p in dealt["packets"] if p["spot"] == 1)
    code, text = run(*args)
    assert code == 0
    assert " ".join(spot1) in text


def test_hand_help_promises_all_settings_only_with_all() -> None:
    code, out = run("hand", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "and all 21 settings" not in flat
    assert "with --all, all 21" in flat


def test_bonus_show_prints_a_presets_toml() -> None:
    for name in BONUS_PRESETS:
        code, out = run("bonus", "show", name)
        assert code == 0
        assert out == PayTable.preset_text(name)
        assert PayTable.from_toml(out, name).name == name
    code, out = run("bonus", "show", "nope")
    assert code != 0 and "unknown pay table" in out


def test_bonus_list_counts_one_hand_in_the_singular() -> None:
    code, out = run("bonus", "list")
    assert code == 0
    assert not re.search(r"\b1 hands", out) and re.search(r"\b1 hand,", out)


def test_the_envy_tables_star_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = deck_counts(DECK, HouseWay.load("standard"))

    def fake(way: HouseWay, wheel: Wheel, workers: int) -> BonusCounts:
        return counts

    monkeypatch.setattr("paigow.cli.bonus_commands.bonus_counts", fake)
    code, out = run("bonus", "analyze", "fortune-a", "--players", "3")
    assert code == 0, out
    assert "3 *" in out
    assert "* 3 players at the table (--players)" in " ".join(out.split())
