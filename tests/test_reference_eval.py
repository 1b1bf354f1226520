"""Hand-picked checks of the test-only reference evaluator (tests/helpers/reference_eval.py) itself.

The reference is the yardstick for the exhaustive production check, so it gets its own small,
readable tests against docs/rulebook.md#cards-and-the-joker and docs/rulebook.md#ranking.
"""

from __future__ import annotations

import itertools

import pytest

from tests.helpers import reference_eval as ref


def five(text: str, wheel: str = "second") -> tuple[int, ...]:
    value: tuple[int, ...] = ref.reference_five(text.split(), wheel)
    return value


def plain(text: str, wheel: str = "second") -> tuple[int, ...]:
    value: tuple[int, ...] = ref.plain_five(text.split(), wheel)
    return value


def two(text: str) -> tuple[int, ...]:
    value: tuple[int, ...] = ref.reference_two(text.split())
    return value


# ---------------------------------------------------------------- plain 52-card poker


@pytest.mark.parametrize(
    ("hand", "category"),
    [
        ("Ah Kh Qh Jh Th", ref.ROYAL_FLUSH),
        ("9c 8c 7c 6c 5c", ref.STRAIGHT_FLUSH),
        ("Ad 2d 3d 4d 5d", ref.STRAIGHT_FLUSH),
        ("7s 7h 7d 7c Kd", ref.FOUR_OF_A_KIND),
        ("7s 7h 7d Kc Kd", ref.FULL_HOUSE),
        ("2s 7s 9s Js Ks", ref.FLUSH),
        ("Ts Jh Qd Kc Ad", ref.STRAIGHT),
        ("As 2h 3d 4c 5d", ref.STRAIGHT),
        ("7s 7h 7d 2c Kd", ref.THREE_OF_A_KIND),
        ("7s 7h 2d 2c Kd", ref.TWO_PAIR),
        ("7s 7h 3d 2c Kd", ref.ONE_PAIR),
        ("7s 8h 3d 2c Kd", ref.HIGH_CARD),
        ("Qs Kh Ad 2c 3d", ref.HIGH_CARD),  # no wrap-around straight
    ],
)
def test_plain_categories(hand: str, category: int) -> None:
    assert plain(hand)[0] == category


@pytest.mark.parametrize("wheel", ref.WHEELS)
def test_plain_standard_order(wheel: str) -> None:
    ladder = [
        "7s 5h 4d 3c 2d",  # worst high card
        "As Kh Qd Jc 9d",  # best high card
        "2s 2h 3d 4c 5d",
        "As Ah Kd Qc Jd",
        "3s 3h 2d 2c 4d",
        "As Ah Kd Kc Qd",
        "2s 2h 2d 3c 4d",
        "As Ah Ad Kc Qd",
        "2s 3h 4d 5c 6d",
        "Ts Jh Qd Kc Ad",
        "2s 3s 4s 5s 7s",
        "As Ks Qs Js 9s",
        "2s 2h 2d 3c 3d",
        "As Ah Ad Kc Kd",
        "2s 2h 2d 2c 3d",
        "As Ah Ad Ac Kd",
        "2s 3s 4s 5s 6s",
        "9s Ts Js Qs Ks",
        "Ts Js Qs Ks As",
    ]
    values = [plain(h, wheel) for h in ladder]
    assert values == sorted(values)
    assert len(set(values)) == len(values)


def test_plain_suits_never_break_ties() -> None:
    assert plain("As Kh Qd Jc 9d") == plain("Ad Kd Qh Jh 9c")
    assert plain("2s 3s 4s 5s 7s") == plain("2h 3h 4h 5h 7h")
    assert plain("Ts Jh Qd Kc Ad") == plain("Th Jd Qc Ks As")


def test_plain_kickers() -> None:
    assert plain("Ks Kh 9d 9c 3d") > plain("Ks Kh 9d 9c 2d")  # two pair, kicker
    assert plain("Ks Kh Qd Qc 2d") > plain("Ks Kh Jd Jc Ad")  # second pair before kicker
    assert plain("3s 3h 3d 2c 2d") > plain("2s 2h 2d Ac Ad")  # full house: trips first
    assert plain("As Qs 9s 5s 3s") > plain("As Qs 9s 5s 2s")  # flush, fifth card


def test_plain_wheel_settings() -> None:
    wheel = "As 2h 3d 4c 5d"
    six_high = "2s 3h 4d 5c 6d"
    king_high = "9s Th Jd Qc Kd"
    ace_high = "Ts Jh Qd Kc Ad"
    # "second": A-2-3-4-5 is below A-K-Q-J-T and above K-Q-J-T-9.
    assert plain(king_high) < plain(wheel) < plain(ace_high)
    assert plain(six_high) < plain(wheel)
    # "lowest": A-2-3-4-5 is the lowest straight.
    assert plain(wheel, "lowest") < plain(six_high, "lowest") < plain(king_high, "lowest")
    # The same for straight flushes.
    sf_wheel, sf_king = "As 2s 3s 4s 5s", "9s Ts Js Qs Ks"
    assert plain(sf_king) < plain(sf_wheel) < plain("Ts Js Qs Ks As")
    assert plain(sf_wheel, "lowest") < plain("2h 3h 4h 5h 6h", "lowest")


def test_plain_rejects_joker_and_bad_input() -> None:
    with pytest.raises(ValueError):
        plain("Jk Kh Qh Jh Th")
    with pytest.raises(ValueError):
        plain("As As Kd Qc Jd")
    with pytest.raises(ValueError):
        plain("As Kd Qc Jd")
    with pytest.raises(ValueError):
        plain("As Kd Qc Jd Td", "middle")


# ---------------------------------------------------------------- the joker (rulebook.md#the-joker)


def test_joker_royal_flush_is_a_copy_of_a_natural_one() -> None:
    assert five("Jk Kh Qh Jh Th") == (ref.ROYAL_FLUSH,)
    assert five("Jk Ah Qh Jh Th") == five("As Ks Qs Js Ts")


def test_five_aces() -> None:
    assert five("As Ad Ac Ah Jk") == (ref.FIVE_ACES,)
    assert five("As Ad Ac Ah Jk") > five("As Ks Qs Js Ts")


@pytest.mark.parametrize("wheel", ref.WHEELS)
def test_joker_is_an_ace_for_pairs_trips_quads(wheel: str) -> None:
    assert five("As Jk 7d 4c 2d", wheel) == plain("As Ah 7d 4c 2d", wheel)  # pair of aces
    assert five("As Ad Jk 7c 2d", wheel) == plain("As Ad Ah 7c 2d", wheel)  # three aces
    assert five("As Ad Ac Jk 2d", wheel) == plain("As Ad Ac Ah 2d", wheel)  # four aces
    assert five("As Ad Kc Kd Jk", wheel) == plain("As Ad Ah Kc Kd", wheel)  # aces full
    assert five("Ks Kd Kc Kh Jk", wheel) == plain("Ks Kd Kc Kh As", wheel)  # quads, ace kicker
    assert five("Ks Kd Kc 2h Jk", wheel) == plain("Ks Kd Kc 2h As", wheel)  # trips, ace kicker
    assert five("Ks Kd Qc Qh Jk", wheel) == plain("Ks Kd Qc Qh As", wheel)  # two pair, ace kicker
    assert five("Ks Kd As 2h Jk", wheel) == plain("Ks Kd As Ah 2h", wheel)  # aces up
    assert five("Ks Kd 9s 2h Jk", wheel) == plain("Ks Kd 9s 2h As", wheel)  # pair, ace kicker
    assert five("Jk 2c 5d 9h Ks", wheel) == plain("Ad 2c 5d 9h Ks", wheel)  # ace high


def test_joker_completes_a_straight_with_the_highest_card() -> None:
    assert five("Jk Kd Qc Jh Ts") == plain("Ad Kd Qc Jh Ts")
    assert five("Jk 9d 8c 7h 6s") == plain("Td 9d 8c 7h 6s")  # T-high, not 5-9
    assert five("Jk 9d 8c 6h 5s") == plain("7d 9d 8c 6h 5s")  # inside
    # A straight beats the pair of aces the joker could make.
    assert five("As Kd Qc Jh Jk") == plain("As Kd Qc Jh Td")


def test_joker_low_straight_depends_on_wheel_setting() -> None:
    # "second": the joker is an ace, A-5 beats 6-high.
    assert five("Jk 2h 3c 4d 5s") == plain("Ah 2h 3c 4d 5s")
    assert five("Jk 2h 3c 4d 5s") > plain("2h 3c 4d 5s 6h")
    # "lowest": the joker plays as a 6.
    assert five("Jk 2h 3c 4d 5s", "lowest") == plain("2h 3c 4d 5s 6h", "lowest")
    assert five("Jk 2h 3c 4d 5s", "lowest") < plain("3c 4d 5s 6h 7h", "lowest")


def test_joker_straight_flush() -> None:
    assert five("Jk 9h Th Jh Qh") == plain("9h Th Jh Qh Kh")  # K-high, not 8-high
    assert five("Jk 3h 4h 5h 6h") == plain("3h 4h 5h 6h 7h")
    assert five("Jk 2h 3h 4h 5h") == plain("Ah 2h 3h 4h 5h")  # wheel SF (second highest)
    assert plain("9h Th Jh Qh Kh") < five("Jk 2h 3h 4h 5h") < (ref.ROYAL_FLUSH,)
    assert five("Jk 2h 3h 4h 5h", "lowest") == plain("2h 3h 4h 5h 6h", "lowest")


def test_joker_flush_takes_highest_missing_rank_of_the_suit() -> None:
    assert five("Jk Kh 9h 5h 2h") == plain("Ah Kh 9h 5h 2h")
    assert five("Jk Ah 9h 5h 2h") == plain("Ah Kh 9h 5h 2h")  # ace held: joker is the king
    assert five("Jk Ah Kh 5h 2h") == plain("Ah Kh Qh 5h 2h")
    # A flush beats the pair of aces the joker would otherwise make.
    assert five("Jk Ah Kh 5h 2h")[0] == ref.FLUSH


def test_joker_as_ace_has_no_suit() -> None:
    # Three spades, an offsuit card and the joker: the joker-as-ace is no spade.
    assert five("Jk As Ks Qs 2d") == plain("Ah As Ks Qs 2d")
    assert five("Jk As Ks Qs 2d")[0] == ref.ONE_PAIR


def test_joker_not_wild_for_pairs_or_full_houses() -> None:
    # A fully wild joker would make four sevens / a full house here; the bug does not.
    assert five("7s 7h 7d Jk 2c")[0] == ref.THREE_OF_A_KIND
    assert five("7s 7h 2d 2c Jk")[0] == ref.TWO_PAIR
    assert five("7s 7h 2d 3c Jk")[0] == ref.ONE_PAIR


def test_reference_five_matches_plain_without_joker() -> None:
    for hand in itertools.islice(itertools.combinations(ref.REAL_CARDS, 5), 0, 200_000, 997):
        for wheel in ref.WHEELS:
            assert ref.reference_five(hand, wheel) == ref.plain_five(hand, wheel)


# ---------------------------------------------------------------- two-card hands


def test_two_card_hands() -> None:
    assert two("Jk As") == (1, 14)  # joker + ace = pair of aces
    assert two("Jk As") == two("Ad As")
    assert two("Jk 9c") == two("Ah 9d")  # joker + 9 = ace-nine
    assert two("2c 2d") > two("As Kd")  # any pair beats any non-pair
    assert two("Ac Ad") > two("Kc Kd")
    assert two("As Kd") > two("As Qd") > two("Ks Qd")
    assert two("3s 2d") == min(ref.reference_two(h) for h in itertools.combinations(ref.DECK, 2))
    assert two("Jk As") == max(ref.reference_two(h) for h in itertools.combinations(ref.DECK, 2))
    assert two("Kh Ad") == two("As Kd")  # order and suits do not matter


def test_two_card_value_count() -> None:
    values = {ref.reference_two(h) for h in itertools.combinations(ref.DECK, 2)}
    assert len(values) == 13 + 13 * 12 // 2  # 13 pairs + 78 non-pairs
