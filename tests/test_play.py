"""The terminal game (paigow.cli.play), driven by scripted answers."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import pytest
from rich.console import Console

from paigow import FoulRule, HouseWay, Round, Ruleset, Setting, StartMethod, parse_cards, settle
from paigow.cli.play import format_net, parse_low_choice, parse_wager, run_game
from paigow.events import DealerSet, HandSet, Shuffled, SpotSettled
from paigow.money import format_money
from paigow.narrator import hand_names

SPOT = 3
STANDARD = HouseWay.preset("standard")

WAGER = "Your wager in dollars"
LOW = "Your two low cards"
HINT = "house way's setting?"
FOUL = "foul setting"
RESET = "let the house way"


class Script:
    """Answers by the kind of prompt (a substring of it); a kind with no answers left raises
    EOFError, as the end of input does."""

    def __init__(self, **answers: Iterable[str]) -> None:
        self.answers = {kind: list(values) for kind, values in answers.items()}
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        for kind, values in self.answers.items():
            if KINDS[kind] in prompt:
                if not values:
                    raise EOFError
                return values.pop(0)
        raise AssertionError(f"unexpected prompt {prompt!r}")

    def asked(self, kind: str) -> int:
        return sum(KINDS[kind] in p for p in self.prompts)


KINDS = {"wager": WAGER, "low": LOW, "hint": HINT, "foul": FOUL, "reset": RESET}


def play(
    script: Script,
    *,
    seed: int | None = 7,
    bankroll: int = 100_00,
    ruleset: Ruleset | None = None,
) -> tuple[int, str, list[Round]]:
    """Run a game; return the final bankroll, the screen as plain text and the rounds played."""
    console = Console(record=True, width=120, file=io.StringIO())
    rounds: list[Round] = []
    final = run_game(
        console,
        ruleset or Ruleset(),
        STANDARD,
        bankroll,
        seed,
        SPOT,
        script,
        on_round=rounds.append,
    )
    return final, console.export_text(), rounds


def flat(text: str) -> str:
    """The screen with line wraps undone."""
    return " ".join(text.split())


def my_net(rnd: Round) -> int:
    result = rnd.results[SPOT]
    return result.returned - result.wager


def hand_set(rnd: Round) -> HandSet:
    (event,) = [e for e in rnd.events if isinstance(e, HandSet) and e.spot == SPOT]
    return event


def foul_seed(ruleset: Ruleset | None = None) -> int:
    """A seed whose first hand fouls when its two highest cards (shown as 1 and 2) go low."""
    for seed in range(200):
        script = Script(wager=["5"], low=["1 2"], foul=["y"], reset=["y"])
        play(script, seed=seed, ruleset=ruleset)
        if script.asked("foul") or script.asked("reset"):
            return seed
    raise AssertionError("no seed found")


# ---------------------------------------------------------------------------------- parsing
def test_parse_wager_exact_cents() -> None:
    assert parse_wager("25") == 2500
    assert parse_wager("12.50") == 1250
    assert parse_wager("12.5") == 1250
    assert parse_wager("$1,000") == 100000
    assert parse_wager("0.07") == 7
    for bad in ("", "abc", "12.505", "-5", "1e3", "NaN", "Infinity", "1,00", "5 5", "9" * 40):
        with pytest.raises(ValueError):
            parse_wager(bad)


def test_format_net() -> None:
    assert (format_net(950), format_net(-1000), format_net(0)) == ("+$9.50", "-$10.00", "$0.00")


def test_parse_low_choice() -> None:
    hand = parse_cards("As Kd Qh Jc 9s 7d 2c")
    assert parse_low_choice("1 2", hand) == parse_cards("As Kd")
    assert parse_low_choice("17", hand) == parse_cards("As 2c")
    assert parse_low_choice("kd, 9S", hand) == parse_cards("Kd 9s")
    assert parse_low_choice("KdAs", hand) == parse_cards("Kd As")
    assert parse_low_choice("3 2c", hand) == parse_cards("Qh 2c")
    for bad, message in [
        ("1", "exactly two"),
        ("1 2 3", "exactly two"),
        ("4 4", "named twice"),
        ("0 3", "no card 0"),
        ("1 8", "no card 8"),
        ("Ah Kd", "Ah is not one of your cards"),
        ("Zz Kd", "'Zz' is not a card"),
        ("", "exactly two"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_low_choice(bad, hand)


# ---------------------------------------------------------------------------------- a round
def test_round_plays_through_and_bankroll_follows_the_events() -> None:
    script = Script(wager=["25", "", "12.50"], low=["1 2", "6 7", "h"], foul=["y"], hint=["y"])
    final, screen, rounds = play(script)
    text = flat(screen)
    assert len(rounds) == 3
    # the posted rules, the dice, the cards, the dealer's setting with its rule, the results
    assert "commission 5% of every winning wager" in text
    assert "wagers $5.00 to $1,000.00" in text
    assert "house way standard" in text
    assert "Dice " in text and "positions counterclockwise from the dealer as 1 reaches" in text
    assert text.count("Your cards: 1:") == 3
    assert "Best five-card hand:" in text
    assert "Dealer sets by the house way, rule " in text
    assert "Results, spot 1 to 6 (commission 5% of every win)" in screen
    assert "3 (you)" in screen
    for rnd in rounds:
        assert rnd.phase.value == "settled"
        assert sorted(rnd.results) == [1, 2, 3, 4, 5, 6]
        dealer = next(e for e in rnd.events if isinstance(e, DealerSet))
        high, low = hand_names(dealer.high, dealer.low)
        assert (
            f"rule {dealer.rule}: {' '.join(dealer.high)} ({high}) / {' '.join(dealer.low)} ({low})."
            in text
        )
        assert Round.replay(rnd.events).events == rnd.events
    assert [r.wagers[SPOT] for r in rounds] == [2500, 2500, 1250]  # Enter repeats the last wager
    # the bankroll moves by returned - wager of each round, as the events give it
    assert final == 100_00 + sum(my_net(r) for r in rounds)
    # re-derived independently of the round's own settlement
    for rnd in rounds:
        assert rnd.dealer_setting is not None
        s = settle(rnd.settings[SPOT], rnd.dealer_setting, rnd.wagers[SPOT], Ruleset().commission)
        assert s.net == my_net(rnd)
    assert f"Final bankroll: ${final // 100:,}.{final % 100:02d}" in text


def test_commission_is_shown_beside_a_win() -> None:
    for seed in range(50):
        script = Script(wager=["100"], low=["h"], hint=["y"])
        final, screen, (rnd,) = play(script, seed=seed)
        result = rnd.results[SPOT]
        if result.outcome == "win":
            break
    else:
        raise AssertionError("no winning round found")
    assert result.commission == 500
    assert "You win $100.00 less $5.00 commission (5%): +$95.00." in flat(screen)
    assert final == 100_00 + 9500


def test_house_way_players_fill_the_other_spots() -> None:
    _, screen, (rnd,) = play(Script(wager=["5"], low=["h"], hint=["y"]))
    assert sorted(rnd.wagers) == [1, 2, 3, 4, 5, 6]
    hw = Round(Ruleset(), STANDARD).house_way
    for spot in (1, 2, 4, 5, 6):
        assert rnd.settings[spot].same_hands(hw.set_hand(rnd.hands[spot]).setting)
        assert Ruleset().min_wager <= rnd.wagers[spot] <= Ruleset().max_wager
    assert "house-way players" in flat(screen)


# ---------------------------------------------------------------------------------- wagers
def test_wagers_out_of_limits_or_over_the_bankroll_are_refused_and_asked_again() -> None:
    script = Script(
        wager=["2000", "50", "1", "abc", "12.505", "-5", "", "10"], low=["h"], hint=["y"]
    )
    final, screen, rounds = play(script, bankroll=20_00)
    text = flat(screen)
    # the table's limits in the core's words (paigow.round.verify_wager_amount), not a copy
    assert "wager $2,000.00 is outside the table limits $5.00 to $1,000.00." in text
    assert "$50.00 is more than your bankroll $20.00." in text
    assert "wager $1.00 is outside the table limits $5.00 to $1,000.00." in text
    assert "'abc' is not an amount in dollars" in text
    assert "'12.505' is not an amount in dollars" in text
    assert "'-5' is not an amount in dollars" in text
    assert "Type a wager in dollars" in text
    assert script.asked("wager") == 9  # eight answers for the first round, then EOF
    assert "($5.00 to $20.00;" in script.prompts[0]
    (rnd,) = rounds
    assert rnd.wagers[SPOT] == 1000
    assert final == 20_00 + my_net(rnd)


def test_quit_at_the_wager_prompt() -> None:
    final, screen, rounds = play(Script(wager=["q"]))
    assert final == 100_00 and rounds == []
    assert "Final bankroll: $100.00" in screen


def test_eof_quits_cleanly() -> None:
    def eof(_: str) -> str:
        raise EOFError

    console = Console(record=True, width=120, file=io.StringIO())
    assert run_game(console, Ruleset(), STANDARD, 123_45, 1, 2, eof) == 123_45
    assert "Final bankroll: $123.45" in console.export_text()


def test_keyboard_interrupt_quits_like_eof() -> None:
    def interrupt(_: str) -> str:
        raise KeyboardInterrupt

    console = Console(record=True, width=120, file=io.StringIO())
    assert run_game(console, Ruleset(), STANDARD, 50_00, 1, 2, interrupt) == 50_00


def test_eof_while_setting_lets_the_house_way_set_and_settles_the_round() -> None:
    script = Script(wager=["25", "25"], low=[])
    final, screen, rounds = play(script)
    (rnd,) = rounds
    event = hand_set(rnd)
    assert (event.by, event.reason) == ("house-way", "timeout")
    assert "You leave the table: your hand is set by the house way" in flat(screen)
    assert script.asked("wager") == 1  # the game ends after that round
    assert final == 100_00 + my_net(rnd)


def test_bankroll_below_the_minimum_ends_the_game() -> None:
    final, screen, rounds = play(Script(), bankroll=4_99)
    assert (final, rounds) == (4_99, [])
    assert "below the table minimum $5.00: the game is over" in flat(screen)


# ---------------------------------------------------------------------------------- setting
def test_malformed_card_selections_are_asked_again() -> None:
    script = Script(wager=["5"], low=["1", "4 4", "1 8", "Zz Kd", "1 2 3", "h"], hint=["y"])
    _, screen, (rnd,) = play(script)
    text = flat(screen)
    assert "name exactly two cards for the low hand, got 1." in text
    assert "is named twice: choose two different cards." in text
    assert "there is no card 8: the cards are numbered 1 to 7." in text
    assert "'Zz' is not a card" in text
    assert "got 3." in text
    assert script.asked("low") == 6
    assert (hand_set(rnd).by, hand_set(rnd).reason) == ("house-way", "asked")


def test_set_by_card_codes() -> None:
    # Learn the hand of seed 7, then name the two lowest cards by their codes.
    _, _, (probe,) = play(Script(wager=["5"], low=["h"], hint=["y"]))
    lowest = sorted(probe.hands[SPOT])[:2]
    codes = f"{lowest[0].code.lower()} {lowest[1].code}"
    _, screen, (rnd,) = play(Script(wager=["5"], low=[codes], foul=["y"]))
    assert set(rnd.settings[SPOT].low) == set(lowest)
    assert "High: " in screen and "Low: " in screen


def test_house_way_hint() -> None:
    script = Script(wager=["5"], low=["h", "h"], hint=["n", "y"])
    _, screen, (rnd,) = play(script)
    suggestion = STANDARD.set_hand(rnd.hands[SPOT])
    text = flat(screen)
    assert f"House way setting (standard, rule {suggestion.rule}): high" in text
    assert text.count("House way setting (standard") == 2
    assert rnd.settings[SPOT].same_hands(suggestion.setting)
    # the player asked for the house way's setting: recorded as such
    assert (hand_set(rnd).by, hand_set(rnd).reason) == ("house-way", "asked")
    assert script.asked("hint") == 2


def test_a_foul_is_explained_and_needs_confirmation() -> None:
    seed = foul_seed()
    script = Script(wager=["5"], low=["1 2", "1 2"], foul=["n", "maybe", "y"])
    final, screen, (rnd,) = play(script, seed=seed, bankroll=5_00)
    text = flat(screen)
    assert "Foul: your low hand (" in text and ") outranks your high hand (" in text
    assert "Under the Indiana rule a foul hand loses" in text
    assert "Please answer y or n." in text
    assert script.asked("low") == 2  # "n" asks for the low cards again
    assert script.asked("foul") == 3
    event = hand_set(rnd)
    assert event.foul and event.by == "player"
    result: SpotSettled = rnd.results[SPOT]
    assert (result.outcome, result.foul, result.returned) == ("loss", True, 0)
    assert "Your hand fouled (foul: loses): -$5.00." in text
    assert "foul: loses" in text.split("Results, spot 1 to 6")[1]  # the narrator's words
    # the bankroll is spent: the game ends by itself
    assert final == 0
    assert "below the table minimum $5.00: the game is over" in text


def test_a_foul_under_the_reset_rule_is_set_by_the_house_way() -> None:
    reset = Ruleset(foul=FoulRule.RESET)
    seed = foul_seed(reset)
    script = Script(wager=["5"], low=["1 2"], reset=["y"])
    final, screen, (rnd,) = play(script, seed=seed, ruleset=reset)
    text = flat(screen)
    assert "Under this table's rule the house way sets a fouled hand instead." in text
    assert "The house way set your hand (rule" in text
    event = hand_set(rnd)
    assert (event.by, event.reason, event.foul) == ("house-way", "foul-reset", False)
    assert not rnd.settings[SPOT].is_foul
    assert rnd.settings[SPOT].same_hands(STANDARD.set_hand(rnd.hands[SPOT]).setting)
    assert final == 100_00 + my_net(rnd)


def test_a_setting_that_is_no_foul_needs_no_confirmation() -> None:
    _, _, (probe,) = play(Script(wager=["5"], low=["h"], hint=["y"]))
    hw = STANDARD.set_hand(probe.hands[SPOT]).setting
    codes = " ".join(c.code for c in hw.low)
    script = Script(wager=["5"], low=[codes])
    _, _, (rnd,) = play(script)
    assert not script.asked("foul")
    assert rnd.settings[SPOT] == Setting.from_low(rnd.hands[SPOT], hw.low)


# ---------------------------------------------------------------------------------- history
def test_history_shows_at_most_ten_rounds() -> None:
    script = Script(wager=["h", *["5"] * 12, "h"], low=["h"] * 12, hint=["y"] * 12)
    final, screen, rounds = play(script, bankroll=1000_00)
    assert len(rounds) == 12
    assert "No rounds played yet." in screen
    last = screen.rsplit("Last 10 rounds (most recent last)", 1)[1]
    ids = [r.round_id for r in rounds]
    for rid in ids[:2]:
        assert rid not in last
    for rid in ids[2:]:
        assert rid in last
    assert final == 1000_00 + sum(my_net(r) for r in rounds)


# ---------------------------------------------------------------------------------- the deal
def test_rng_start_is_shown() -> None:
    _, screen, (rnd,) = play(
        Script(wager=["5"], low=["h"], hint=["y"]), ruleset=Ruleset(start=StartMethod.RNG)
    )
    assert rnd.start is not None and rnd.start.dice is None
    n = rnd.start.number
    assert f"RNG number {n}: counting {n} position" in flat(screen)
    assert "starting position by an RNG number 1 to 7" in flat(screen)


def test_seed_reproduces_the_game_and_no_seed_uses_the_csprng() -> None:
    def run(seed: int | None) -> tuple[str, list[Round]]:
        _, screen, rounds = play(Script(wager=["5", "5"], low=["h"] * 2, hint=["y"] * 2), seed=seed)
        return screen, rounds

    first, a = run(11)
    second, b = run(11)
    assert first == second
    assert [r.events for r in a] == [r.events for r in b]
    _, (rnd, _) = run(None)
    shuffled = next(e for e in rnd.events if isinstance(e, Shuffled))
    assert shuffled.source == "csprng"


def test_bad_arguments_are_refused() -> None:
    console = Console(file=io.StringIO())
    with pytest.raises(ValueError, match="spot 7"):
        run_game(console, Ruleset(), STANDARD, 100, 1, 7, input)
    with pytest.raises(ValueError, match="bankroll"):
        run_game(console, Ruleset(), STANDARD, -1, 1, 1, input)


def test_the_bankroll_is_shown_once_a_round() -> None:
    script = Script(wager=["25", "", "10"], low=["1 2", "6 7", "3 4"], foul=["y"], hint=["y"])
    final, screen, rounds = play(script)
    assert len(rounds) == 3
    # before the first round, then once in each round (after its results)
    parts = re.split(r"\nRound \d+ \(", screen)
    assert len(parts) == 4
    assert parts[0].count("Bankroll:") == 1
    for part in parts[1:]:
        assert part.count("Bankroll:") == 1, part
    assert f"Bankroll: {format_money(final)}" in parts[-1]
