"""The variants in the core: push rules (the triggers exactly, settlement, the log and its words),
face up (the order of events, the best setting against an exposed dealer) and the dragon hand
(its packet, the offer's order, refusals, settlement, replay and void)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.commission import Commission
from paigow.errors import RoundError, RulesetError
from paigow.events import DealerSet, Dealt, DragonSettled, RoundSettled, SpotSettled
from paigow.house_way import HouseWay
from paigow.narrator import narrate_log
from paigow.round import Phase, Round
from paigow.ruleset import VARIANTS, PushRule, Ruleset
from paigow.setting import Setting, all_settings
from paigow.settlement import Outcome, settle
from paigow.variants import (
    best_against,
    dragon_packet,
    is_nine_high_low,
    offer_order,
    pai_gow_top,
    push_triggered,
)

WAY = HouseWay.load("standard")


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def _stacked(packets: Sequence[str]) -> list[Card]:
    """A deck whose first packets are the given seven-card hands (dealt from position 1, the
    dealer, when the start number is 1), the rest of the deck after them."""
    first = [c for p in packets for c in _cards(p)]
    return first + [c for c in FULL_DECK if c not in first]


def _round(
    ruleset: Ruleset, wagers: Mapping[int, int], packets: Sequence[str], number: int = 1
) -> Round:
    r = Round(ruleset.with_(start="rng"), round_id="t")
    for spot, amount in wagers.items():
        r.wager(spot, amount)
    r.shuffle(deck=_stacked(packets))
    r.choose_start(number=number)
    r.deal_packets()
    return r


def _replays(r: Round) -> None:
    log = json.loads(json.dumps(r.log()))
    again = Round.replay(log)
    assert again.events == r.events
    assert again.log() == r.log()


# ------------------------------------------------------------------ the ruleset
def test_presets_and_posting() -> None:
    assert set(VARIANTS) == {"indiana", "ez", "commission-free", "face-up"}
    assert Ruleset.preset("indiana") == Ruleset()
    cf = Ruleset.preset("commission-free")
    assert cf.commission.rate == 0 and cf.push is PushRule.NINE_HIGH_LOW and not cf.face_up
    fu = Ruleset.preset("face-up", dragon=True)
    assert fu.push is PushRule.ACE_HIGH_PAI_GOW and fu.face_up and fu.dragon
    mixed = Ruleset(commission=Commission("0.03"), push="nine-high-low")
    assert mixed.posted_push() == "dealer's nine-high low hand: every wager pushes"
    assert Ruleset.from_dict(mixed.to_dict()) == mixed
    assert Ruleset().posted_push() is None
    assert set(Ruleset().to_dict()) == {
        "commission",
        "banker",
        "wheel",
        "foul",
        "start",
        "house_way",
        "set_time_limit",
        "min_wager",
        "max_wager",
    }  # the default ruleset records what it recorded before the variants
    with pytest.raises(RulesetError, match="push rule 'tiger' is not one of"):
        Ruleset(push="tiger")  # type: ignore[arg-type]
    with pytest.raises(RulesetError, match="face_up must be true or false"):
        Ruleset(face_up="yes")  # type: ignore[arg-type]


def test_an_older_log_version_cannot_record_a_variant() -> None:
    with pytest.raises(RoundError, match="version-3 log cannot record the variants"):
        Round(Ruleset.preset("ez"), log_version=3)


# ------------------------------------------------------------------ the triggers
@pytest.mark.parametrize(
    ("cards", "top"),
    [
        ("Qs Jd 9c 7h 5s 4d 2c", 12),
        ("Jk Jd 9c 7h 5s 4d 2c", 14),  # the joker plays as an ace: ace high, not jack high
        ("Qs Jd 9c 7h 5s 4d Jk", 14),  # never a queen-high pai gow with the joker
        ("Qs Qd 9c 7h 5s 4d 2c", None),  # a pair
        ("Qs Jd Tc 9h 8s 4d 2c", None),  # a straight
        ("Qs Jd Tc 9h Jk 4d 2c", None),  # the joker completes a straight
        ("Qs Js 9s 7s 4d 3d 2s", None),  # a flush
        ("Jk As 9s 7c 4d 3d 2h", None),  # the joker and an ace: a pair of aces
        ("As Kd 9c 7h 5s 4d 2c", 14),
        ("9s 8d 7c 5h 4s 3d 2c", 9),  # nine high, the lowest pai gow
    ],
)
def test_pai_gow_by_top_card(cards: str, top: int | None) -> None:
    assert pai_gow_top(_cards(cards)) == top


def test_push_triggers_exactly() -> None:
    q = _cards("Qs Jd 9c 7h 5s 4d 2c")
    qset = WAY.set_hand(q).setting
    assert push_triggered(PushRule.QUEEN_HIGH_PAI_GOW, q, qset)
    assert not push_triggered(PushRule.ACE_HIGH_PAI_GOW, q, qset)
    assert not push_triggered(PushRule.NONE, q, qset)
    a = _cards("Jk Qd 9c 7h 5s 4d 2c")
    aset = WAY.set_hand(a).setting
    assert push_triggered(PushRule.ACE_HIGH_PAI_GOW, a, aset)
    assert not push_triggered(PushRule.QUEEN_HIGH_PAI_GOW, a, aset)
    # nine-high low: after the house way, a nine and a lower card, not a pair of nines
    assert is_nine_high_low(_cards("9s 2d")) and not is_nine_high_low(_cards("9s 9d"))
    assert not is_nine_high_low(_cards("Jk 9d")) and not is_nine_high_low(_cards("Ts 9d"))
    n = _cards("Ks Kd 9c 4h 3s 8d 6c")
    nset = WAY.set_hand(n).setting
    assert {c.code for c in nset.low} == {"9c", "8d"}
    assert push_triggered(PushRule.NINE_HIGH_LOW, n, nset)
    assert not push_triggered(PushRule.NINE_HIGH_LOW, n, Setting.from_low(n, ["3s", "4h"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True))
def test_pai_gow_trigger_against_a_plain_reading(hand: list[Card]) -> None:
    """A pai gow by top card read another way: no five-card subset makes a pair, straight or
    flush (the best five of the seven are high card), and the top rank with the joker an ace."""
    from paigow.ranking import Category, evaluate_five

    cats = {evaluate_five(s.high).category for s in all_settings(tuple(hand))}
    natural = {c.rank for c in hand if not c.is_joker}
    joker = any(c.is_joker for c in hand)
    pai_gow = cats == {Category.HIGH_CARD}
    want = (14 if joker else max(natural)) if pai_gow else None
    assert pai_gow_top(hand) == want


# ------------------------------------------------------------------ settlement under a push
DEALER_Q = "Qs Jd 9c 7h 5s 4d 2c"  # the dealer's queen-high pai gow
STRONG = "As Ad Kc Kh 8s 8d 3c"  # wins both hands against it
FOULED = "Ah Ac 6c 6h Ts 9h 3d"


def test_a_queen_high_pai_gow_pushes_every_wager_but_a_foul() -> None:
    r = _round(Ruleset.preset("ez"), {1: 1000, 2: 2000}, [DEALER_Q, STRONG, FOULED])
    r.set_house_way(1)
    foul = Setting.from_low(r.hands[2], ["Ah", "Ac"])
    assert foul.is_foul
    r.set_hand(2, foul)
    emitted = r.finish()
    s1, s2 = r.results[1], r.results[2]
    assert (s1.outcome, s1.high, s1.low, s1.returned, s1.reason) == (
        "push",
        "win",
        "win",
        1000,
        "queen-high-pai-gow",
    )
    assert (s2.outcome, s2.returned, s2.foul, s2.reason) == ("loss", 0, True, None)
    assert r.pushed
    assert emitted[-1] == RoundSettled(3000, 1000, 0)
    lines = narrate_log(r.events)
    assert "dealer's queen-high pai gow: every wager pushes" in lines[0]
    assert "spot 1: push, $10.00 returned (dealer's queen-high pai gow: all wagers push)" in lines
    assert "spot 2: lost $20.00 (foul: loses)" in lines
    assert r.log()[0]["log_version"] == 6
    assert r.log()[0]["ruleset"]["push"] == "queen-high-pai-gow"
    _replays(r)
    # the same cards at an Indiana table: a win with commission
    plain = _round(Ruleset(), {1: 1000}, [DEALER_Q, STRONG])
    plain.set_house_way(1)
    plain.finish()
    assert plain.results[1].outcome == "win" and plain.results[1].reason is None
    assert "reason" not in plain.results[1].to_dict()


def test_a_dealer_hand_that_does_not_trigger_settles_as_usual() -> None:
    r = _round(Ruleset.preset("ez"), {1: 1000}, ["Jk Jd 9c 7h 5s 4d 2c", STRONG])
    r.set_house_way(1)
    r.finish()
    assert not r.pushed and r.results[1].outcome == "win"
    assert r.results[1].commission == 0 and r.results[1].returned == 2000


def test_a_tampered_push_is_refused() -> None:
    r = _round(Ruleset.preset("ez"), {1: 1000}, [DEALER_Q, STRONG])
    r.set_house_way(1)
    r.finish()
    log = r.log()
    for e in log:
        if e["type"] == "spot-settled":
            del e["reason"]
    from paigow.errors import ReplayMismatch

    with pytest.raises(ReplayMismatch):
        Round.replay(log)


# ------------------------------------------------------------------ face up
def test_face_up_order_of_events() -> None:
    r = _round(Ruleset.preset("face-up"), {1: 1000, 3: 1000}, ["Kd Ks 9c 7h 5s 4d 2c"])
    types = [e.type for e in r.events]
    assert types[-2:] == ["dealt", "dealer-set"]  # set before any player sets
    assert r.phase is Phase.SETTING and r.dealer_setting is not None
    with pytest.raises(RoundError, match="set face up right after the deal"):
        r.set_dealer()
    with pytest.raises(RoundError, match=r"spots \[1, 3\] have not set"):
        r.settle()
    r.set_house_way(1)
    r.set_house_way(3)
    r.finish()
    types = [e.type for e in r.events]
    assert types[types.index("dealt") :] == [
        "dealt",
        "dealer-set",
        "hand-set",
        "hand-set",
        "spot-settled",
        "spot-settled",
        "round-settled",
    ]
    _replays(r)
    # followed step by step as another process does: the deal's step holds the dealer's setting
    behind = Round.replay(r.events[:4])
    dealt = types.index("dealt")
    for a, b in [(4, dealt + 2), (dealt + 2, dealt + 3), (dealt + 3, dealt + 4)]:
        behind.follow(r.events[a:b])
        assert behind.events == r.events[:b]
    behind.follow(r.events[dealt + 4 :])
    assert behind.events == r.events


def test_a_normal_table_sets_the_dealer_after_the_players() -> None:
    r = _round(Ruleset(), {1: 1000}, ["Kd Ks 9c 7h 5s 4d 2c"])
    assert r.dealer_setting is None and not any(isinstance(e, DealerSet) for e in r.events)
    r.set_house_way(1)
    r.finish()
    types = [e.type for e in r.events]
    assert types.index("dealer-set") > types.index("hand-set")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=14, max_size=14, unique=True))
def test_best_against_an_exposed_dealer(cards: list[Card]) -> None:
    player, dealer_cards = tuple(cards[:7]), tuple(cards[7:])
    dealer = WAY.set_hand(dealer_cards).setting
    choice = best_against(player, dealer, WAY)
    rank = {Outcome.WIN: 2, Outcome.PUSH: 1, Outcome.LOSS: 0}
    best = max(rank[settle(s, dealer, 100, Commission("0")).outcome] for s in all_settings(player))
    assert rank[choice.settlement.outcome] == best
    assert choice.settlement == settle(choice.best, dealer, 100, Commission("0"))
    hw = WAY.set_hand(player).setting
    if rank[settle(hw, dealer, 100, Commission("0")).outcome] == best:
        assert choice.best.same_hands(hw)  # ties go to the house way
    pushed = best_against(player, dealer, WAY, pushes=True)
    assert pushed.best.same_hands(hw) and pushed.settlement.outcome is Outcome.PUSH


# ------------------------------------------------------------------ the dragon hand
def test_the_dragon_packet_and_the_offer_order() -> None:
    assert dragon_packet([4, 5, 6, 7, 1, 2, 3], [3, 4]) == 5  # position 6 is spot 5
    assert dragon_packet([1, 2, 3, 4, 5, 6, 7], [1, 2]) == 3
    assert dragon_packet([3, 4, 5, 6, 7, 1, 2], list(range(1, 7))) is None
    assert offer_order([4, 5, 6, 7, 1, 2, 3], [1, 2, 3, 4, 5]) == (3, 4, 5, 1, 2)


def _dragon_round(**changes: object) -> Round:
    # start at position 4 (spot 3): spots 3, 4 wager; spot 5 (position 6) is the first empty
    return _round(
        Ruleset(dragon=True).with_(**changes),
        {1: 1000, 3: 2000, 4: 1000},
        ["Ks Kd 9c 7h 5s 4d 2c", "Ac Ah Qd Jc 7s 6h 3h", "Tc Td 5c 5d 2s 2h 7c", STRONG],
        number=4,
    )


def test_the_dragon_hand_is_offered_in_order_and_refusals() -> None:
    r = _dragon_round()
    # dealing order from position 4: spot 3, spot 4, spot 5 (the first without a wager), ...
    assert r.dragon_spot == 5
    assert r.dragon_cards == _cards("Tc Td 5c 5d 2s 2h 7c")
    with pytest.raises(RoundError, match="no dragon hand is on offer"):
        r.accept_dragon(3, 1000)
    for spot in r.spots_to_set():
        r.set_house_way(spot)
    with pytest.raises(RoundError, match="the dragon hand must be offered first"):
        r.finish()
    (offered,) = r.offer_dragon()
    assert offered.to_dict() == {"type": "dragon-offered", "spot": 5, "order": [3, 4, 1]}
    with pytest.raises(RoundError, match="already been offered"):
        r.offer_dragon()
    with pytest.raises(RoundError, match="offered to spot 3 now, not to your spot 4"):
        r.accept_dragon(4, 1000)
    with pytest.raises(RoundError, match="offered to spot 3 now, not to your spot 1"):
        r.decline_dragon(1)
    r.decline_dragon(3)
    with pytest.raises(RoundError, match=r"outside \$5.00 \(the table minimum\) to \$10.00"):
        r.accept_dragon(4, 1500)  # above spot 4's own wager
    with pytest.raises(RoundError, match="outside"):
        r.accept_dragon(4, 400)  # below the table minimum
    with pytest.raises(RoundError, match="dragon hand must be"):
        r.finish()
    accepted = r.accept_dragon(4, 800)
    assert [e.type for e in accepted] == ["dragon-accepted", "dragon-set"]
    with pytest.raises(RoundError, match="no dragon hand is on offer"):
        r.decline_dragon(1)
    r.finish()
    settled = [e for e in r.events if isinstance(e, (SpotSettled, DragonSettled))]
    assert [(type(e).__name__, e.spot) for e in settled] == [
        ("SpotSettled", 1),
        ("SpotSettled", 3),
        ("SpotSettled", 4),
        ("DragonSettled", 5),  # settled like a spot, in its place
    ]
    dragon = r.dragon_result
    assert dragon is not None and dragon.by == 4 and dragon.wager == 800
    dealer = r.dealer_setting
    assert dealer is not None and r.dragon_setting is not None
    want = settle(r.dragon_setting, dealer, 800, r.ruleset.commission)
    assert (dragon.outcome, dragon.returned) == (want.outcome.value, want.returned)
    final = r.events[-1]
    assert isinstance(final, RoundSettled)
    assert (final.dragon_wagered, final.dragon_returned) == (800, want.returned)
    assert final.wagered == 4000  # the main wagers apart
    assert r.dragon_returned() == (4, want.returned)
    lines = narrate_log(r.events)
    assert "the dragon hand (the packet of spot 5) is offered, in turn, to spots 3, 4, 1" in lines
    assert "spot 3 declines the dragon hand" in lines
    assert "spot 4 wagers $8.00 on the dragon hand" in lines
    _replays(r)


def test_every_seat_declines_the_dragon() -> None:
    r = _dragon_round()
    r.offer_dragon()
    for spot in (3, 4, 1):
        r.decline_dragon(spot)
    assert not r.dragon_pending and r.dragon_turn is None
    for spot in r.spots_to_set():
        r.set_house_way(spot)
    r.finish()
    assert r.dragon_result is None and r.dragon_returned() is None
    assert "dragon_wagered" not in r.log()[-1]
    _replays(r)


def test_a_table_declines_for_a_player_on_a_timeout_or_a_leave() -> None:
    r = _dragon_round()
    r.offer_dragon()
    with pytest.raises(RoundError, match="'timeout' or 'left'"):
        r.decline_dragon(3, "bored")
    (late,) = r.decline_dragon(3, "timeout")
    assert late.to_dict() == {"type": "dragon-declined", "spot": 3, "reason": "timeout"}
    (gone,) = r.decline_dragon(4, "left")
    (own,) = r.decline_dragon(1)
    assert own.to_dict() == {"type": "dragon-declined", "spot": 1}  # no reason: the player's
    lines = narrate_log(r.events)
    assert "spot 3 declines the dragon hand (no answer in time)" in lines
    assert "spot 4 declines the dragon hand (the player left)" in lines
    assert gone.reason == "left" and not r.dragon_pending
    for spot in r.spots_to_set():
        r.set_house_way(spot)
    r.finish()
    _replays(r)


def test_the_dragon_hand_is_narrated_face_down_to_a_viewer() -> None:
    r = _dragon_round()
    r.offer_dragon()
    (_, dragon_set) = r.accept_dragon(3, 1000)
    shown = narrate_log([dragon_set])[0]
    assert "Tc" in shown or "Td" in shown
    hidden = narrate_log([dragon_set], viewer={3})[0]
    assert hidden == "the dragon hand (spot 5's packet) is set by the house way, face down"


def test_no_dragon_when_every_spot_wagers_or_the_table_does_not_deal_it() -> None:
    r = _round(Ruleset(dragon=True), dict.fromkeys(range(1, 7), 1000), [])
    assert r.dragon_spot is None and not r.dragon_pending
    with pytest.raises(RoundError, match="every spot has a wager"):
        r.offer_dragon()
    plain = _round(Ruleset(), {1: 1000}, [])
    with pytest.raises(RoundError, match="does not deal the dragon hand"):
        plain.offer_dragon()


def test_a_void_returns_the_dragon_wager() -> None:
    r = _dragon_round()
    r.offer_dragon()
    r.accept_dragon(3, 2000)
    (voided,) = r.void("dealer error")
    assert voided.to_dict()["dragon"] == [3, 2000]
    assert r.dragon_returned() == (3, 2000)
    assert "spot 3 dragon $20.00" in narrate_log(r.events)[-1]
    _replays(r)


def test_a_face_up_dragon_round_with_a_push() -> None:
    r = _round(
        Ruleset.preset("face-up", dragon=True),
        {2: 1000},
        ["Jk Jd 9c 7h 5s 4d 2c", STRONG, "Tc Td 5c 5d 2s 2h 7c"],
    )
    assert isinstance(r.events[-1], DealerSet) and isinstance(r.events[-2], Dealt)
    assert r.dragon_spot == 1
    r.offer_dragon()
    r.accept_dragon(2, 500)
    r.set_house_way(2)
    r.finish()
    assert r.pushed
    assert r.dragon_result is not None and r.dragon_result.reason == "ace-high-pai-gow"
    assert r.results[2].reason == "ace-high-pai-gow" and r.results[2].returned == 1000
    _replays(r)


def test_random_variant_rounds_replay() -> None:
    rng = random.Random(5)
    for i in range(40):
        name = ["ez", "commission-free", "face-up", "indiana"][i % 4]
        r = Round(Ruleset.preset(name, dragon=i % 3 == 0), round_id=f"r{i}")
        for spot in rng.sample(range(1, 7), rng.randrange(1, 6)):
            r.wager(spot, rng.randrange(500, 3000))
        r.deal(rng)
        if r.dragon_spot is not None:
            r.offer_dragon()
            while r.dragon_turn is not None:
                if rng.random() < 0.5:
                    r.accept_dragon(r.dragon_turn, 500)
                else:
                    r.decline_dragon(r.dragon_turn)
        for spot in r.spots_to_set():
            r.set_house_way(spot)
        r.finish()
        assert r.is_over
        _replays(r)
