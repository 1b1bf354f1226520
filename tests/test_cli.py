"""The ``paigow`` command line: hand, deal (play is covered in test_play.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.cli import app
from paigow.round import Round

runner = CliRunner()

CATEGORY_NAMES = {
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


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=stdin)
    return result.exit_code, result.output


def test_hand_text_shows_best_and_house_way() -> None:
    code, out = run("hand", "Qs", "Qh", "9c", "9d", "5s", "3h", "2c")
    assert code == 0
    assert "two pair, queens and nines" in out
    assert "two-pair.split" in out
    assert "Qs Qh 5s 3h 2c" in out


def test_hand_all_marks_fouls_and_house_way() -> None:
    code, out = run("hand", "Qs Qh 9c 9d 5s 3h 2c", "--all")
    assert code == 0
    assert out.count("FOUL") == 1  # only the queens low over the nines high
    assert out.count("← house way") == 1


def test_hand_json_schema() -> None:
    code, out = run("hand", "as kd qh jc 9s 7d joker", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["cards"] == ["As", "Kd", "Qh", "Jc", "9s", "7d", "Jk"]
    assert data["best"]["category"] == "straight"
    assert sorted(data["best"]["cards"]) == sorted(["As", "Kd", "Qh", "Jc", "Jk"])
    assert set(data["house_way"]) >= {"high", "low", "rule"}
    assert data["house_way"]["rule"] == "straight"
    assert len(data["settings"]) == 21
    for s in data["settings"]:
        assert len(s["high"]) == 5 and len(s["low"]) == 2 and isinstance(s["foul"], bool)
        assert sorted(s["high"] + s["low"]) == sorted(data["cards"])
    assert data["best"]["category"] in CATEGORY_NAMES


def test_hand_stdin_one_per_line_with_errors() -> None:
    text = "Qs Qh 9c 9d 5s 3h 2c\nAs Kd Zz 2c 3c 4c 5c\n\nJk As Ad Ac Ah Kd Ks\n"
    code, out = run("hand", "-", "--json", stdin=text)
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert code == 1
    assert len(lines) == 3
    assert lines[0]["house_way"]["rule"] == "two-pair.split"
    assert "Zz" in lines[1]["error"] and "unknown rank" in lines[1]["error"]
    assert lines[2]["best"]["category"] == "five aces"
    assert lines[2]["house_way"]["rule"] == "five-aces.kings"


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("As Kd Qh Jc 9s 7d", "expected 7 cards, got 6"),
        ("As Kd Qh Jc 9s 7d As", "duplicate card 'As'"),
        ("As Kd Qh Jc 9s 7d 1c", "unknown rank '1'"),
        ("As Kd Qh Jc 9s 7d 2x", "unknown suit 'x'"),
    ],
)
def test_hand_bad_input_names_the_problem(cards: str, message: str) -> None:
    code, out = run("hand", cards)
    assert code == 2
    assert message in out


def test_hand_house_way_preset_and_file(tmp_path: Path) -> None:
    cards = "Qs Qh 4c 4d As 9h 3c"
    assert json.loads(run("hand", cards, "--json")[1])["house_way"]["rule"] == "two-pair.keep-ace"
    assert (
        json.loads(run("hand", cards, "--json", "--house-way", "foxwoods")[1])["house_way"]["rule"]
        == "two-pair.split"
    )
    preset = tmp_path / "always-keep.toml"
    preset.write_text(
        'name = "always-keep"\n[two_pair]\nhigh_high = "keep"\nhigh_middle = "keep"\n'
        'high_low = "keep"\nmiddle_middle = "keep"\nmiddle_low = "keep"\nlow_low = "keep"\n'
        '[quads]\nlow = "keep"\nmiddle = "keep"\nhigh = "keep"\n'
    )
    data = json.loads(run("hand", cards, "--json", "--house-way", str(preset))[1])
    assert data["house_way"]["rule"] == "two-pair.keep"
    assert data["house_way"]["preset"] == "always-keep"
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[two_pair]\nhigh_hi = "keep"\n')
    code, out = run("hand", cards, "--house-way", str(bad))
    assert code == 2 and "high_hi" in out
    code, out = run("hand", cards, "--house-way", "nonesuch")
    assert code == 2 and "nonesuch" in out


def test_hand_wheel_option() -> None:
    # 2-3-4-5 with the joker: the ace (wheel) under "second", the six under "lowest".
    cards = "Jk 2h 3c 4d 5s 9h Kc"
    second = json.loads(run("hand", cards, "--json")[1])["best"]
    lowest = json.loads(run("hand", cards, "--json", "--wheel", "lowest")[1])["best"]
    assert second["name"] == "straight, ace to five"
    assert lowest["name"] == "straight, two to six"


def test_deal_seed_is_reproducible_and_replays() -> None:
    a = json.loads(run("deal", "--seed", "11", "--spots", "1,3,4", "--json")[1])
    b = json.loads(run("deal", "--seed", "11", "--spots", "1,3,4", "--json")[1])
    assert a == b
    assert a["phase"] == "settled"
    assert [r["spot"] for r in a["results"]] == [1, 3, 4]
    types = [e["type"] for e in a["events"]]
    assert types[:5] == [
        "round-started",
        "wager-placed",
        "wager-placed",
        "wager-placed",
        "shuffled",
    ]
    assert types[-1] == "round-settled"
    replayed = Round.replay(a["events"])
    assert [e.to_dict() for e in replayed.events] == [
        {k: v for k, v in e.items() if k != "seq"} for e in a["events"]
    ]
    c = json.loads(run("deal", "--seed", "12", "--spots", "1,3,4", "--json")[1])
    assert c["events"] != a["events"]


def test_deal_text_and_rng_start() -> None:
    code, out = run("deal", "--seed", "3", "--start", "rng", "--spots", "2")
    assert code == 0
    assert "RNG number " in out
    assert "discarded unseen" in out
    assert "dealer sets by the house way, rule" in out
    assert "Results (commission 5%, posted)" in out


def test_deal_dice_start_shown() -> None:
    data = json.loads(run("deal", "--seed", "5", "--json")[1])
    start = next(e for e in data["events"] if e["type"] == "start-chosen")
    assert start["method"] == "dice" and len(start["dice"]) == 3
    assert start["position"] == (sum(start["dice"]) - 1) % 7 + 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--spots", "0,7"], "spot numbers 1..6"),
        (["--spots", "a"], "spot numbers"),
        (["--commission", "0.06"], "exceeds the 5% maximum"),
        (["--wager", "1"], "outside the table limits"),
        (["--wager", "abc"], "not an amount"),
    ],
)
def test_deal_bad_options(args: list[str], message: str) -> None:
    code, out = run("deal", "--seed", "1", *args)
    assert code == 2
    assert message in out


def test_deal_with_side_wagers() -> None:
    data = json.loads(run("deal", "--seed", "3", "--side", "fortune-a=5", "--json")[1])
    side = data["side_results"]
    assert [(e["spot"], e["name"], e["wager"]) for e in side] == [
        (s, "fortune-a", 500) for s in range(1, 7)
    ]
    assert all(e["returned"] in (0, e["wager"] + e["win"]) for e in side)
    hands = data["bonus_hands"]
    assert set(hands) == {"dealer", *map(str, range(1, 7))}
    won = [e for e in side if e["win"]]
    assert won and all(e["hand"] in hands[str(e["spot"])]["held"] for e in won)
    settled = data["events"][-1]
    assert settled["side_wagered"] == 3000
    assert settled["side_returned"] == sum(e["returned"] for e in side)
    replayed = Round.replay(data["events"])
    assert [e.to_dict() for e in replayed.side_results.values()] == side
    code, out = run("deal", "--seed", "3", "--side", "fortune-a=5")
    assert code == 0
    assert "Side wagers (settled on the seven cards)" in out
    assert "spot 5 fortune-a: straight pays 2 to 1, won $10.00, returned $15.00" in out


def test_deal_with_a_progressive_and_dealer_bets() -> None:
    args = ["--side", "fortune-progressive=1", "--side", "queens-dragon=5", "--side", "tiger=5"]
    data = json.loads(run("deal", "--seed", "8", *args, "--meter", "20000", "--json")[1])
    bank = "fortune-progressive"
    assert data["meters"] == {bank: 2_000_000 + 6 * 15}  # the meter and this round's shares
    jackpot = [e for e in data["side_results"] if e["name"] == bank]
    assert jackpot[0]["meter"] == data["meters"][bank]
    assert all(a["meter_after"] == b["meter"] for a, b in itertools.pairwise(jackpot))
    dealer = [e for e in data["side_results"] if e["name"] != bank]
    assert (
        len({(e["name"], e["hand"], e["win"] // e["wager"]) for e in dealer}) == 2
    )  # same for all
    assert Round.replay(data["events"]).meters_after == data["meters_after"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--side", "fortune-a"], "NAME=DOLLARS"),
        (["--side", "nope=5"], "no such pay table"),
        (["--side", "fortune=5"], "which one: fortune-a, fortune-b, fortune-progressive?"),
        (["--side", "tiger=abc"], "not an amount"),
        (["--side", "fortune-a=5000"], "outside its limits"),
        (["--side", "fortune-progressive=5"], "outside its limits $1.00 to $1.00"),
        (["--side", "tiger=5", "--side", "tiger-9=5"], "given twice"),
        (["--side", "tiger=5", "--meter", "x"], "not an amount"),
    ],
)
def test_deal_bad_side_wagers(args: list[str], message: str) -> None:
    code, out = run("deal", "--seed", "1", *args)
    assert code == 2
    assert message in out


def test_console_script_runs() -> None:
    exe = Path(sys.executable).with_name("paigow")
    out = subprocess.run(
        [str(exe), "hand", "Jk As Ad Ac Ah Kd Ks", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out)["house_way"]["rule"] == "five-aces.kings"
