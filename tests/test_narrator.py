"""The narrator: every event of a round in words, derived from the facts of the log (hand names
from the cards, under the round's wheel), and never naming cards a viewer may not see."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from paigow.cards import FULL_DECK, parse_cards
from paigow.events import DealerSet, Dealt, HandSet, SpotSettled, StartChosen, Voided
from paigow.narrator import hand_names, narrate, narrate_log, settlement_line, wheel_of
from paigow.ranking import Wheel, best_five
from paigow.round import Round
from paigow.ruleset import FoulRule, Ruleset, StartMethod
from paigow.service.game.visibility import view_event, view_log
from paigow.setting import all_settings

CARD = re.compile(r"\b(?:Jk|[2-9TJQKA][cdhs])\b")
LOG_V1 = Path(__file__).parent / "data" / "log_v1.json"


def played(ruleset: Ruleset | None = None, seed: int = 7) -> Round:
    r = Round(ruleset or Ruleset(), round_id=f"n{seed}")
    for spot, amount in ((1, 1000), (3, 2500), (6, 500)):
        r.wager(spot, amount)
    r.deal(random.Random(seed))
    spots = r.spots_to_set()
    r.set_house_way(spots[0])
    r.time_out(spots[1])
    r.set_hand(spots[2], all_settings(r.hands[spots[2]])[0])
    r.finish()
    return r


def test_every_event_has_its_own_words() -> None:
    r = played()
    lines = narrate_log(r.events)
    assert len(lines) == len(r.events)
    assert all(line and line != e.type for line, e in zip(lines, r.events, strict=True))
    assert lines[0].startswith("round n7 opens: commission 5% (posted), limits $5.00-$1,000.00")
    assert lines[1:4] == ["spot 1 wagers $10.00", "spot 3 wagers $25.00", "spot 6 wagers $5.00"]
    assert (
        lines[4]
        == "53 cards (52 and the joker) shuffled by a seeded generator, for simulation and replay"
    )
    assert lines[5].startswith("dice ") and "where the first packet goes" in lines[5]
    assert lines[6].startswith("seven packets dealt counterclockwise from position ")
    assert "is set by the house way (time-out), rule " in lines[8]
    assert lines[10].startswith("dealer sets by the house way, rule ")
    assert lines[-1].startswith("round settled: wagered $40.00, returned ")


def test_hand_names_are_derived_from_the_cards() -> None:
    r = played()
    dealer = next(e for e in r.events if isinstance(e, DealerSet))
    assert r.dealer_setting is not None
    value = r.dealer_setting.value()
    assert hand_names(dealer.high, dealer.low) == (value.high.name, value.low.name)
    assert f"({value.high.name}) / " in narrate(dealer)
    for e in r.events:
        if isinstance(e, HandSet):
            hn, ln = hand_names(e.high, e.low)
            assert f"{' '.join(e.high)} ({hn}) / {' '.join(e.low)} ({ln})" in narrate(e)


def test_the_wheel_of_the_round_names_its_straights() -> None:
    high, low = ["Ah", "2c", "3d", "4s", "5h"], ["Kd", "9c"]
    assert hand_names(high, low, Wheel.SECOND)[0] == hand_names(high, low, Wheel.LOWEST)[0]
    joker = ["Jk", "2c", "3d", "4s", "5h"]  # the joker completes A-5 (second) or 2-6 (lowest)
    assert hand_names(joker, low, Wheel.SECOND)[0] == "straight, ace to five"
    assert hand_names(joker, low, Wheel.LOWEST)[0] == "straight, two to six"
    r = Round(Ruleset(wheel=Wheel.LOWEST), round_id="w")
    assert wheel_of(r.events) is Wheel.LOWEST
    e = DealerSet(tuple(joker), tuple(low), "straight")
    assert "straight, two to six" in narrate(e, Wheel.LOWEST)
    assert "straight, ace to five" in narrate(e)


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (SpotSettled(1, "win", "win", "win", 1000, 1000, 50, 1950, False), "spot 1: won $10.00, commission $0.50, returned $19.50 (high win, low win)"),
        (SpotSettled(2, "win", "win", "copy", 2500, 2500, 125, 4875, False), "spot 2: won $25.00, commission $1.25, returned $48.75 (high win, low copy)"),
        (SpotSettled(3, "push", "loss", "win", 1000, 0, 0, 1000, False), "spot 3: push, $10.00 returned (high loss, low win)"),
        (SpotSettled(4, "loss", "copy", "loss", 1000, 0, 0, 0, False), "spot 4: lost $10.00 (high copy, low loss)"),
        (SpotSettled(5, "loss", "win", "win", 700, 0, 0, 0, True), "spot 5: lost $7.00 (foul: loses)"),
    ],
)  # fmt: skip
def test_settlement_lines(event: SpotSettled, line: str) -> None:
    assert settlement_line(event) == line == narrate(event)


def test_dice_rng_and_voids() -> None:
    assert narrate(StartChosen("dice", (6, 5, 3), 14, 7)).startswith(
        "dice 6 + 5 + 3 = 14: counting 14 positions counterclockwise from the dealer as 1 "
        "reaches position 7 (spot 6)"
    )
    assert narrate(StartChosen("rng", None, 3, 3)).startswith("RNG number 3: counting 3 positions")
    assert narrate(Voided("table closed", ((2, 500), (4, 1000)))) == (
        "round void (table closed): every wager returned (spot 2 $5.00, spot 4 $10.00)"
    )
    assert narrate(Voided("table closed", ())) == "round void (table closed): no wager to return"
    r = Round(round_id="v")
    r.wager(3, 700)
    r.shuffle(deck=list(FULL_DECK[:52]))
    assert (
        narrate_log(r.events)[-1]
        == "round void (irregular deck): every wager returned (spot 3 $7.00)"
    )


def test_a_foul_and_its_reset() -> None:
    r = Round(Ruleset(foul=FoulRule.RESET, start=StartMethod.RNG), round_id="f")
    r.wager(1, 1000)
    r.deal(random.Random(2))
    foul = next(s for s in all_settings(r.hands[1]) if s.is_foul)
    (e,) = r.set_hand(1, foul)
    assert isinstance(e, HandSet) and e.reason == "foul-reset"
    assert narrate(e).startswith("spot 1 submits a foul (")
    assert "the house way sets it instead, rule " in narrate(e)
    r2 = Round(round_id="g")
    r2.wager(1, 1000)
    r2.deal(random.Random(2))
    (e2,) = r2.set_hand(1, next(s for s in all_settings(r2.hands[1]) if s.is_foul))
    assert narrate(e2).endswith("; FOUL: the low hand outranks the high hand")


def test_a_viewer_reads_no_cards_but_their_own() -> None:
    r = played()
    dealt = next(e for e in r.events if isinstance(e, Dealt))
    mine = {p.spot: set(p.cards) for p in dealt.packets if p.spot is not None}
    dealer_cards = {c for p in dealt.packets if p.spot is None for c in p.cards}
    for viewer in ({1}, {3}, {6}, set()):
        seen = set(mine.get(next(iter(viewer)), set())) if viewer else set()
        for e in r.events:
            named = set(CARD.findall(narrate(e, viewer=viewer)))
            if isinstance(e, DealerSet):
                assert named == dealer_cards  # the showdown is public
            else:
                assert named <= seen, (viewer, e.type, named - seen)
        if viewer:
            assert f"your cards (spot {next(iter(viewer))})" in narrate(dealt, viewer=viewer)
    # without a viewer (the complete log) every setting is shown
    for e in r.events:
        if isinstance(e, HandSet):
            assert set(CARD.findall(narrate(e))) == set(e.high) | set(e.low)


def _card_words(obj: Any) -> set[str]:
    return set(CARD.findall(json.dumps(obj)))


def test_views_send_text_that_never_reveals_hidden_cards() -> None:
    r = played()
    log = [e.to_dict() for e in r.events]
    dealt = next(e for e in r.events if isinstance(e, Dealt))
    hidden = set(dealt.leftover) | {c for p in dealt.discarded for c in p.cards}
    for viewer in ({1}, {3}, set()):
        for i in range(len(log)):
            shown = view_event(log, i, viewer)
            assert shown is not None and shown["text"]
            in_text = set(CARD.findall(shown["text"]))
            # the words name no card the rest of the view does not show
            assert in_text <= _card_words({k: v for k, v in shown.items() if k != "text"})
            assert not in_text & hidden
        shown_log = view_log(log, viewer)
        assert [e["text"] for e in shown_log] == narrate_log(r.events, viewer)
    full = view_log(log, set(), full=True)
    assert [e["text"] for e in full] == narrate_log(r.events)
    dealer = next(e for e in full if e["type"] == "dealer-set")
    assert (dealer["high_name"], dealer["low_name"]) == hand_names(dealer["high"], dealer["low"])


def test_a_version_1_log_is_narrated_with_derived_names() -> None:
    """Old logs stored the dealer's hand names; what is shown is derived from the cards."""
    log = json.loads(LOG_V1.read_text())["deal-seed-7"]
    stored = next(e for e in log if e["type"] == "dealer-set")
    altered = [dict(e) for e in log]
    for e in altered:
        if e["type"] == "dealer-set":
            e.update(high_name="reworded", low_name="reworded too")
    for view in (view_log(altered, {1}), view_log(altered, set(), full=True)):
        dealer = next(e for e in view if e["type"] == "dealer-set")
        assert (dealer["high_name"], dealer["low_name"]) == (
            stored["high_name"],
            stored["low_name"],
        )  # today's names of those cards are what the old engine wrote
        assert "reworded" not in json.dumps(view)
    assert narrate_log(Round.replay(log).events)[-1].startswith("round settled")


def test_best_five_names_agree_with_the_narrator() -> None:
    rng = random.Random(1)
    for _ in range(50):
        seven = rng.sample(list(FULL_DECK), 7)
        value, five = best_five(seven)
        setting_low = [c for c in seven if c not in five]
        assert hand_names(five, setting_low)[0] == value.name
    assert hand_names(parse_cards("Jk As Ks Kd 2c"), parse_cards("2d 2h")) == (
        "two pair, aces and kings",
        "one pair, twos",
    )
