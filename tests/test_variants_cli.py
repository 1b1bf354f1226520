"""The variants on the command line (deal, play, simulate; edge's and report's options), and the
full-deck exact figures recorded in the README against a Monte Carlo of the same rules."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.runner import Runner, TableSpec
from paigow.analysis.simulate import simulate
from paigow.cli import app
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import PushRule

runner = CliRunner()

#: The exact counts of `paigow edge --variant NAME` over all 8,250,459,031,214,400 deals (house
#: way against house way, standard house way, commission 0), as the README records them.
EXACT = {
    PushRule.QUEEN_HIGH_PAI_GOW: (2_231_196_776_738_748, 2_463_082_830_550_964),
    PushRule.NINE_HIGH_LOW: (2_255_932_016_236_580, 2_462_509_178_584_844),
    PushRule.ACE_HIGH_PAI_GOW: (1_879_847_282_188_332, 2_390_183_860_193_684),
}
DEALS = 8_250_459_031_214_400


def test_deal_with_a_variant_and_the_dragon_hand() -> None:
    result = runner.invoke(
        app, ["deal", "--seed", "3", "--spots", "1,3", "--variant", "face-up", "--dragon", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    types = [e["type"] for e in data["events"]]
    assert types[types.index("dealt") + 1] == "dealer-set"  # face up: set right after the deal
    assert "dragon-offered" in types and "dragon-accepted" in types
    assert data["events"][0]["ruleset"]["push"] == "ace-high-pai-gow"
    assert data["events"][0]["ruleset"]["commission"] == "0"
    assert data["dragon"]["wager"] == 500  # the first spot offered takes it at the minimum
    text = runner.invoke(app, ["deal", "--seed", "3", "--spots", "1,3", "--variant", "face-up"])
    assert "dealer's ace-high pai gow: all wagers push" in text.stdout


def test_commission_and_push_override_the_variant() -> None:
    result = runner.invoke(
        app,
        ["deal", "--seed", "1", "--variant", "ez", "--commission", "0.03", "--push",
         "nine-high-low", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    ruleset = json.loads(result.stdout)["events"][0]["ruleset"]
    assert (ruleset["commission"], ruleset["push"]) == ("0.03", "nine-high-low")
    bad = runner.invoke(app, ["deal", "--variant", "vegas"])
    assert bad.exit_code == 2 and "vegas" in bad.output


def test_play_face_up_shows_the_dealer_first() -> None:
    answers = "10\nh\ny\nq\n"
    result = runner.invoke(
        app, ["play", "--seed", "4", "--variant", "face-up", "--bankroll", "100"], input=answers
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "face up: the dealer's cards are dealt face up" in out
    assert out.index("Dealer's cards:") < out.index("Your cards:")


def test_the_optimal_player_under_a_push_rule_has_its_own_strategy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from paigow.analysis import edge as E
    from paigow.analysis import strategy
    from paigow.cli import analysis

    seen: dict[str, object] = {}

    class Strat:
        def edge(self) -> E.EdgeResult:
            return E.EdgeResult("optimal", 100, 40, 30, 30, Commission("0"), 0.1, {})

    def fake_open(*a: object, **kw: object) -> Strat:
        seen.update(kw)
        return Strat()

    monkeypatch.setattr(analysis, "open_strategy", fake_open)
    monkeypatch.setattr(E, "save_result", lambda spec, r: "saved")
    monkeypatch.setattr(analysis, "prepare_job", lambda *a: ("spec", None))
    monkeypatch.setattr(strategy, "strategy_path", lambda *a: tmp_path / "s.bin")
    result = runner.invoke(app, ["edge", "--variant", "ez", "--player", "optimal"])
    assert result.exit_code == 0, result.output
    assert seen["push"] == "queen-high-pai-gow"
    assert "house edge per hand -10.000000%" in result.output


def test_a_missing_strategy_under_a_push_rule_names_its_build(compiled: CompiledHouseWay) -> None:
    missing = runner.invoke(
        app, ["simulate", "--variant", "commission-free", "--player", "optimal", "--rounds", "9"]
    )
    assert missing.exit_code != 0  # no compiled strategy: the error names the build
    assert "paigow strategy build --commission 0 --push nine-high-low" in " ".join(
        missing.output.split()
    )


def test_strategy_paths_and_identities_of_a_push_rule() -> None:
    from paigow.analysis.strategy import strategy_identity, strategy_path

    spec = TableSpec.of(HouseWay.preset("standard"), Wheel.SECOND)
    plain = strategy_path(spec, Commission("0"))
    pushed = strategy_path(spec, Commission("0"), "queen-high-pai-gow")
    assert plain != pushed and "queen-high-pai-gow" in pushed.name
    assert "push" not in strategy_identity(spec, Commission("0"))  # the plain file's name as before


@pytest.mark.parametrize("rule", list(EXACT))
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_the_exact_figures_lie_inside_a_monte_carlo(
    compiled: CompiledHouseWay, rule: PushRule
) -> None:
    spec = TableSpec.of(HouseWay.preset("standard"), Wheel.SECOND)
    win, loss = EXACT[rule]
    edge = Fraction(loss - win, DEALS)
    sim = simulate(
        spec, 3_000_000, Runner(workers=2), seed=7, commission=Commission("0"), push=rule
    )
    sd = (sim.house_edge - sim.ci95[0]) / 1.96
    assert abs(sim.house_edge - float(edge)) < 4 * sd, (rule, sim.house_edge, float(edge))
    assert sim.extra["pushed_by_rule"] > 0


#: ``paigow edge --variant face-up --player face-up``: each hand set best against the dealer's
#: exposed setting, the dealer's ace-high pai gow pushing (README).
FACE_UP_EXACT = (2_046_094_029_053_608, 2_193_924_130_716_692)


@pytest.mark.slow  # 8.5 s: the full suite's
def test_the_face_up_players_exact_edge_lies_inside_a_monte_carlo(
    compiled: CompiledHouseWay,
) -> None:
    spec = TableSpec.of(HouseWay.preset("standard"), Wheel.SECOND)
    win, loss = FACE_UP_EXACT
    sim = simulate(
        spec,
        1_000_000,
        Runner(workers=2),
        seed=3,
        commission=Commission("0"),
        player="face-up",
        push=PushRule.ACE_HIGH_PAI_GOW,
    )
    sd = (sim.house_edge - sim.ci95[0]) / 1.96
    assert abs(sim.house_edge - (loss - win) / DEALS) < 4 * sd
    assert sim.win / sim.rounds > 0.24  # better than the house-way player's 0.227848
