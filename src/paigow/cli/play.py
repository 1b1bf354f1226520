"""The terminal game: you and five house-way players at a table of six spots against the dealer.

Every round posts the table's rules (the commission, the wager limits, the house way, how the
starting position is chosen), takes your wager within the limits and your bankroll, deals with the
dice or the RNG shown, lets you set your seven cards by choosing the two low cards (a foul is
explained and needs confirmation), has the dealer set the bank's hand by the house way with the rule
that set it, and settles every spot with the commission shown beside every win. ``h`` at the wager
prompt shows the last ten rounds.

All input comes through ``read`` and all output goes to the console, so a script can play:

>>> import io
>>> from rich.console import Console
>>> answers = iter(["q"])
>>> out = Console(file=io.StringIO(), width=100)
>>> run_game(out, Ruleset(), HouseWay.preset("standard"), 10_000, 1, 3, lambda _: next(answers))
10000

Money is always integer cents; amounts are typed and shown in dollars (``12.50``, ``$12.50``).
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from rich.console import Console
from rich.table import Table
from rich.text import Text

from paigow.cards import Card, format_cards, parse_cards, sort_cards
from paigow.errors import CardError, RoundError
from paigow.events import DealerSet, Event, HandSet, SpotSettled, Voided
from paigow.house_way import HouseWay
from paigow.money import format_money, parse_money
from paigow.narrator import (
    FOUL_LOSES,
    hand_names,
    hands_compared,
    narrate,
    push_words,
    start_line,
)
from paigow.ranking import best_five
from paigow.round import Phase, Round, verify_wager_amount
from paigow.ruleset import FoulRule, Ruleset, StartMethod
from paigow.setting import Setting
from paigow.variants import best_against

__all__ = [
    "HISTORY_SIZE",
    "RoundRecord",
    "format_net",
    "parse_low_choice",
    "parse_wager",
    "run_game",
]

SPOTS: Final = range(1, 7)
HISTORY_SIZE: Final = 10
"""How many past rounds ``h`` shows."""

_MONEY: Final = re.compile(r"\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?")
_MAX_DIGITS: Final = 12
_HOUSE_MULTIPLES: Final = (1, 1, 2, 2, 3, 4, 5)
_YES: Final = frozenset({"y", "yes"})
_NO: Final = frozenset({"n", "no"})
_QUIT: Final = frozenset({"q", "quit", "exit"})
_CARD_CODE: Final = re.compile(r"\b(?:Jk|[2-9TJQKA][cdhs])\b")
_CARD_LEGEND: Final = (
    "Cards: rank 2-9, T ten, J jack, Q queen, K king, A ace; suit c clubs, d diamonds, "
    "h hearts, s spades; Jk the joker."
)


# ---------------------------------------------------------------------------------- money
def parse_wager(text: str) -> int:
    """A wager in dollars as a player types it -> integer cents. Only plain amounts are taken
    (digits, optional thousands commas, at most two decimals), so nothing like ``1e9`` or ``NaN``
    reaches the conversion, which is exact (``Decimal``, never ``float``).

    >>> parse_wager("25"), parse_wager("12.50"), parse_wager("$1,000.5"), parse_wager(" 7.05 ")
    (2500, 1250, 100050, 705)
    >>> parse_wager("12.505")
    Traceback (most recent call last):
    ...
    ValueError: '12.505' is not an amount in dollars (e.g. 25 or 12.50, at most two decimals)
    """
    shown = text.strip()
    match = _MONEY.fullmatch(shown)
    if match is None:
        raise ValueError(
            f"{shown!r} is not an amount in dollars (e.g. 25 or 12.50, at most two decimals)"
        )
    if len(match.group(1).replace(",", "").lstrip("0")) > _MAX_DIGITS:
        raise ValueError(f"{shown!r} is far too large an amount")
    return parse_money(shown)


def format_net(cents: int) -> str:
    """A gain or loss with its sign: ``+$9.50``, ``-$10.00``, ``$0.00``."""
    return ("+" if cents > 0 else "") + format_money(cents)


# ---------------------------------------------------------------------------------- cards
def parse_low_choice(text: str, cards: Sequence[Card]) -> tuple[Card, Card]:
    """The two low cards a player names, by their numbers 1..7 as shown (``"3 5"``, ``"35"``) or
    by their codes (``"Kd 9h"``), or a mix; raise ``ValueError`` with a message that says why not.

    >>> hand = parse_cards("As Kd Qh Jc 9s 7d 2c")
    >>> parse_low_choice("2 6", hand), parse_low_choice("qh,as", hand)
    ((Card('Kd'), Card('7d')), (Card('Qh'), Card('As')))
    >>> parse_low_choice("1 8", hand)
    Traceback (most recent call last):
    ...
    ValueError: there is no card 8: the cards are numbered 1 to 7
    """
    tokens = text.replace(",", " ").replace(";", " ").split()
    if len(tokens) == 1:
        only = tokens[0]
        if only.isdigit() and len(only) == 2:
            tokens = list(only)
        elif not only.isdigit():
            try:
                tokens = [c.code for c in parse_cards(only)]
            except CardError as exc:
                raise ValueError(str(exc)) from None
    if len(tokens) != 2:
        raise ValueError(f"name exactly two cards for the low hand, got {len(tokens)}")
    chosen: list[Card] = []
    for token in tokens:
        if token.isdigit():
            number = int(token)
            if not 1 <= number <= len(cards):
                raise ValueError(
                    f"there is no card {number}: the cards are numbered 1 to {len(cards)}"
                )
            card = cards[number - 1]
        else:
            try:
                (card,) = parse_cards([token])
            except CardError as exc:
                raise ValueError(str(exc)) from None
            if card not in cards:
                raise ValueError(f"{card.code} is not one of your cards")
        if card in chosen:
            raise ValueError(f"{card.code} is named twice: choose two different cards")
        chosen.append(card)
    return chosen[0], chosen[1]


def _card_text(card: Card) -> Text:
    """A card's code, coloured as an extra (hearts and diamonds red, the joker magenta)."""
    if card.is_joker:
        return Text(card.code, style="bold magenta")
    return Text(card.code, style="red" if card.suit in (1, 2) else "bold")


def _cards_text(cards: Sequence[Card]) -> Text:
    """Cards highest first, coloured."""
    return Text(" ").join(_card_text(c) for c in sort_cards(cards))


def _setting_str(setting: Setting) -> str:
    """``high / low``, each hand highest card first."""
    return f"{format_cards(sort_cards(setting.high))} / {format_cards(sort_cards(setting.low))}"


def _told(line: str) -> Text:
    """A narrator's line as a sentence, its cards coloured."""
    text = Text(line[:1].upper() + line[1:] + ".")
    for m in _CARD_CODE.finditer(text.plain):
        text.stylize(_card_text(parse_cards(m.group())[0]).style, m.start(), m.end())
    return text


_E = TypeVar("_E", bound=Event)


def _one(events: Sequence[Event], kind: type[_E]) -> _E:
    """The one event of ``kind`` among those a command returned."""
    (event,) = [e for e in events if isinstance(e, kind)]
    return event


# ---------------------------------------------------------------------------------- history
@dataclass(frozen=True)
class RoundRecord:
    """One finished round as the history shows it (money in cents)."""

    number: int
    round_id: str
    cards: str
    setting: str
    set_by: str
    foul: bool
    dealer_setting: str
    dealer_rule: str
    outcome: str
    wager: int
    net: int
    commission: int


# ---------------------------------------------------------------------------------- the game
class _Game:
    """The state of one session at the table: your bankroll, the seats and the history."""

    def __init__(
        self,
        console: Console,
        ruleset: Ruleset,
        house_way: HouseWay,
        bankroll: int,
        seed: int | None,
        spot: int,
        read: Callable[[str], str],
        on_round: Callable[[Round], None] | None,
    ) -> None:
        self.console = console
        self.ruleset = ruleset
        self.house_way = house_way
        self.bankroll = bankroll
        self.seed = seed
        self.spot = spot
        self.read = read
        self.on_round = on_round
        self.rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()  # nosec B311
        self.history: deque[RoundRecord] = deque(maxlen=HISTORY_SIZE)
        self.rounds_played = 0
        self.start_bankroll = bankroll
        self.last_wager: int | None = None
        self.leaving = False
        self.session = f"{self.rng.getrandbits(32):08x}"
        lo, hi = ruleset.min_wager, ruleset.max_wager
        self.seat_wagers: dict[int, int] = {
            s: min(hi, lo * self.rng.choice(_HOUSE_MULTIPLES)) for s in SPOTS if s != spot
        }

    # ------------------------------------------------------------------ output and input
    def say(self, text: str | Text = "", style: str | None = None) -> None:
        """Print plain text (never read as markup) or a styled Text."""
        self.console.print(text, style=style, markup=False, highlight=False)

    def ask(self, prompt: str) -> str:
        """One line from the player, stripped; EOFError propagates (it means quit), and an
        interrupt (Ctrl-C) is taken the same way."""
        try:
            return self.read(prompt).strip()
        except KeyboardInterrupt:
            self.say()
            raise EOFError from None

    def ask_yes_no(self, prompt: str) -> bool:
        while True:
            answer = self.ask(prompt).lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            self.say("Please answer y or n.", style="yellow")

    # ------------------------------------------------------------------ the session
    def run(self) -> int:
        self.welcome()
        while not self.leaving:
            if self.bankroll < self.ruleset.min_wager:
                self.say(
                    f"Your bankroll {format_money(self.bankroll)} is below the table minimum "
                    f"{format_money(self.ruleset.min_wager)}: the game is over.",
                    style="yellow",
                )
                break
            self.post_rules()
            try:
                wager = self.ask_wager()
            except EOFError:
                wager = None
            if wager is None:
                break
            self.play_round(wager)
        self.farewell()
        return self.bankroll

    def welcome(self) -> None:
        self.say("Pai gow poker, 68 IAC 10-9 (Indiana) - practice table", style="bold")
        seats = ", ".join(
            f"spot {s} {format_money(w)}" for s, w in sorted(self.seat_wagers.items())
        )
        self.say(
            f"You sit on spot {self.spot} of six. The other spots are house-way players, each "
            f"with a fixed wager: {seats}. The house banks every wager."
        )
        if self.seed is None:
            self.say("Cards and dice come from the operating system's secure generator.")
        else:
            self.say(
                f"Seed {self.seed}: a seeded generator makes this game reproducible "
                "(practice and replay only, never at a real table)."
            )
        self.say(_CARD_LEGEND)
        self.say(f"Bankroll: {format_money(self.bankroll)}", style="bold")

    def post_rules(self) -> None:
        r = self.ruleset
        start = "three dice (the shaker)" if r.start is StartMethod.DICE else "an RNG number 1 to 7"
        foul = (
            "a foul hand loses (68 IAC 10-9-13(a))"
            if r.foul is FoulRule.LOSES
            else "a foul hand is set by the house way"
        )
        self.say()
        extra = ""
        if r.posted_push():
            extra += f" | {r.posted_push()}"
        if r.face_up:
            extra += " | face up: the dealer's cards are dealt face up and set before you set"
        self.say(
            f"Posted rules: commission {r.commission} of every winning wager | wagers "
            f"{format_money(r.min_wager)} to {format_money(r.max_wager)} | house way "
            f"{self.house_way.name} | starting position by {start} | {foul} | copies go to "
            f"the banker{extra}",
            style="cyan",
        )

    def ask_wager(self) -> int | None:
        """Your wager in cents, or None to quit; ``h`` shows the history."""
        r = self.ruleset
        top = min(r.max_wager, self.bankroll)
        default = (
            self.last_wager
            if self.last_wager is not None and r.min_wager <= self.last_wager <= top
            else None
        )
        enter = f", Enter = {format_money(default)}" if default is not None else ""
        prompt = (
            f"Your wager in dollars ({format_money(r.min_wager)} to {format_money(top)}{enter}; "
            "h = last ten rounds, q = quit): "
        )
        while True:
            answer = self.ask(prompt)
            key = answer.lower()
            if key in _QUIT:
                return None
            if key in ("h", "history"):
                self.show_history()
                continue
            if not answer:
                if default is not None:
                    return default
                self.say("Type a wager in dollars, e.g. 25 or 12.50.", style="yellow")
                continue
            try:
                cents = parse_wager(answer)
            except ValueError as exc:
                self.say(f"{exc}.", style="yellow")
                continue
            try:
                verify_wager_amount(r, cents)  # the table's limits: the core's rule and words
            except RoundError as exc:
                self.say(f"{exc}.", style="yellow")
                continue
            if cents > self.bankroll:
                self.say(
                    f"{format_money(cents)} is more than your bankroll {format_money(self.bankroll)}.",
                    style="yellow",
                )
            else:
                return cents

    # ------------------------------------------------------------------ one round
    def play_round(self, wager: int) -> None:
        self.rounds_played += 1
        number = self.rounds_played
        rnd = Round(self.ruleset, self.house_way, f"{self.session}-{number:03d}")
        rnd.wager(self.spot, wager)
        self.bankroll -= wager  # reserved when the wager is accepted
        self.last_wager = wager
        for s, amount in sorted(self.seat_wagers.items()):
            rnd.wager(s, amount)
        self.say(
            f"Round {number} ({rnd.round_id}): your wager {format_money(wager)} on spot "
            f"{self.spot} is reserved; bankroll {format_money(self.bankroll)}.",
            style="bold",
        )
        dealt = rnd.deal(self.rng)
        if rnd.phase is Phase.VOIDED:
            self.say(_told(narrate(_one(dealt, Voided))), style="yellow")
            self.bankroll += rnd.returned()[self.spot]
            self.say(f"Bankroll: {format_money(self.bankroll)}", style="bold")
            return
        self.show_deal(rnd)
        face_up = self.ruleset.face_up
        if face_up:  # the dealer's cards face up, set before you set yours
            dealer = _one(dealt, DealerSet)
            self.show_dealer(rnd, dealer)
        mine = self.set_your_hand(rnd)
        for s in rnd.spots_to_set():  # the other players set their own hands the house's way
            rnd.set_hand(s, self.house_way.set_hand(rnd.hands[s], self.ruleset.wheel).setting)
        if not face_up:
            dealer = _one(rnd.set_dealer(), DealerSet)
            self.show_dealer(rnd, dealer)
        rnd.settle()
        if rnd.pushed:
            self.say(push_words(self.ruleset.push.value), style="bold cyan")
        self.show_results(rnd)
        result = rnd.results[self.spot]
        self.bankroll += result.returned
        self.say(f"Bankroll: {format_money(self.bankroll)}", style="bold")
        self.record(number, rnd, result, mine, dealer)
        if self.on_round is not None:
            self.on_round(rnd)

    def show_deal(self, rnd: Round) -> None:
        source = (
            "the operating system's secure generator"
            if self.seed is None
            else f"a generator seeded with {self.seed}"
        )
        self.say(f"Shuffle: 53 cards (52 and the joker), Fisher-Yates, from {source}.")
        start = rnd.start
        assert start is not None
        self.say(
            _told(
                f"{start_line(start)}, the rest counterclockwise; the four cards left over are "
                "discarded unseen"
            ),
            style="bold",
        )

    def show_your_cards(self, cards: Sequence[Card]) -> None:
        line = Text("Your cards: ", style="bold")
        for i, card in enumerate(cards, start=1):
            line.append(f" {i}:")
            line.append_text(_card_text(card))
            line.append(" ")
        self.say(line)
        value, _ = best_five(cards, self.ruleset.wheel)
        self.say(f"Best five-card hand: {value.name}")

    def set_your_hand(self, rnd: Round) -> HandSet:
        """Ask for the two low cards until a setting is accepted; on quit or end of input the
        house way sets the hand (as when the time limit runs out) and the game ends after the
        round. The event that set your hand."""
        dealt = rnd.hands[self.spot]
        cards = sort_cards(dealt)
        self.show_your_cards(cards)
        wheel = self.ruleset.wheel
        prompt = (
            "Your two low cards (numbers like '3 5' or codes like 'Kd 9h'; h = house way hint): "
        )
        try:
            while True:
                answer = self.ask(prompt)
                key = answer.lower()
                if key in _QUIT:
                    raise EOFError
                if key in ("h", "hint"):
                    hinted = self.offer_hint(rnd, cards)
                    if hinted is not None:
                        return hinted
                    continue
                try:
                    low = parse_low_choice(answer, cards)
                except ValueError as exc:
                    self.say(f"{exc}.", style="yellow")
                    continue
                setting = Setting.from_low(dealt, low)
                high_name, low_name = hand_names(setting.high, setting.low, wheel)
                self.say(
                    Text.assemble(
                        "High: ",
                        _cards_text(setting.high),
                        f" ({high_name})   Low: ",
                        _cards_text(setting.low),
                        f" ({low_name})",
                    )
                )
                if setting.is_foul and not self.confirm_foul(high_name, low_name):
                    continue
                hs = _one(rnd.set_hand(self.spot, setting), HandSet)
                self.report_reset(rnd, hs)
                return hs
        except EOFError:
            self.leaving = True
            hs = _one(rnd.time_out(self.spot), HandSet)
            self.say(
                f"You leave the table: your hand is set by the house way ({hs.rule}), as when "
                f"the time limit runs out: {_setting_str(rnd.settings[self.spot])}.",
                style="yellow",
            )
            return hs

    def offer_hint(self, rnd: Round, cards: Sequence[Card]) -> HandSet | None:
        """Show the house way's setting (face up: and the setting that does best against the
        dealer's); the event that set your hand when the player plays one of them."""
        if self.ruleset.face_up and rnd.dealer_setting is not None:
            best = best_against(
                rnd.hands[self.spot], rnd.dealer_setting, self.house_way, self.ruleset.wheel
            )
            if not best.best.same_hands(best.house_way):
                numbers = " ".join(str(cards.index(c) + 1) for c in best.best.low)
                self.say(
                    Text.assemble(
                        "Best against the dealer's setting: high ",
                        _cards_text(best.best.high),
                        " / low ",
                        _cards_text(best.best.low),
                        f" ({best.settlement.outcome.value} for certain); low cards {numbers}.",
                    ),
                    style="green",
                )
        hw = self.house_way.set_hand(rnd.hands[self.spot], self.ruleset.wheel)
        high_name, low_name = hand_names(hw.setting.high, hw.setting.low, self.ruleset.wheel)
        numbers = " ".join(str(cards.index(c) + 1) for c in hw.setting.low)
        self.say(
            Text.assemble(
                f"House way setting ({self.house_way.name}, rule {hw.rule}): high ",
                _cards_text(hw.setting.high),
                f" ({high_name}) / low ",
                _cards_text(hw.setting.low),
                f" ({low_name}); low cards {numbers}.",
            ),
            style="green",
        )
        if not self.ask_yes_no("Play the house way's setting? (y/n): "):
            return None
        hs = _one(rnd.set_house_way(self.spot), HandSet)
        return hs

    def confirm_foul(self, high_name: str, low_name: str) -> bool:
        """Explain the foul; True when the player submits it anyway."""
        self.say(
            f"Foul: your low hand ({low_name}) outranks your high hand ({high_name}). The high "
            "hand must outrank the low hand (68 IAC 10-9-1(d)(9), 10-9-13(a)).",
            style="bold red",
        )
        if self.ruleset.foul is FoulRule.LOSES:
            self.say(
                "Under the Indiana rule a foul hand loses: your wager is lost whatever the "
                "dealer holds."
            )
            return self.ask_yes_no("Keep this foul setting and lose the wager? (y/n): ")
        self.say("Under this table's rule the house way sets a fouled hand instead.")
        return self.ask_yes_no("Submit it anyway and let the house way set your hand? (y/n): ")

    def report_reset(self, rnd: Round, hs: HandSet) -> None:
        if hs.reason == "foul-reset":
            s = rnd.settings[self.spot]
            self.say(
                f"The house way set your hand (rule {hs.rule}): {_setting_str(s)}.",
                style="green",
            )

    def show_dealer(self, rnd: Round, dealer: DealerSet) -> None:
        assert rnd.dealer_cards is not None
        self.say(Text.assemble("Dealer's cards: ", _cards_text(rnd.dealer_cards)))
        self.say(_told(narrate(dealer, self.ruleset.wheel)), style="bold")

    def show_results(self, rnd: Round) -> None:
        rate = str(self.ruleset.commission)
        table = Table(title=f"Results, spot 1 to 6 (commission {rate} of every win)")
        for name in ("Spot", "Hand (high / low)", "Against the dealer", "Outcome", "Wager"):
            table.add_column(name)
        for name in ("Commission", "Returned", "Net"):
            table.add_column(name, justify="right")
        for s in SPOTS:
            e = rnd.results.get(s)
            if e is None:
                continue
            setting = rnd.settings[s]
            outcome = e.outcome.upper() if e.outcome == "win" else e.outcome
            table.add_row(
                f"{s} (you)" if s == self.spot else str(s),
                _setting_str(setting),
                hands_compared(e),
                outcome,
                format_money(e.wager),
                format_money(e.commission) if e.outcome == "win" else "-",
                format_money(e.returned),
                format_net(e.returned - e.wager),
                style="bold" if s == self.spot else None,
            )
        self.console.print(table)
        mine = rnd.results[self.spot]
        net = mine.returned - mine.wager
        if mine.outcome == "win":
            text = (
                f"You win {format_money(mine.win)} less {format_money(mine.commission)} "
                f"commission ({rate}): {format_net(net)}."
            )
        elif mine.outcome == "push":
            text = "Push: your wager is returned."
        elif mine.foul:
            text = f"Your hand fouled ({FOUL_LOSES}): {format_net(net)}."
        else:
            text = f"You lose: {format_net(net)}."
        self.say(text, style="bold")

    def record(
        self, number: int, rnd: Round, result: SpotSettled, hs: HandSet, dealer: DealerSet
    ) -> None:
        if hs.by == "player":
            set_by = "you"
        elif hs.reason == "foul-reset":
            set_by = "house way (foul reset)"
        else:
            set_by = "house way (left)"
        ds = rnd.dealer_setting
        assert ds is not None
        setting = rnd.settings[self.spot]
        self.history.append(
            RoundRecord(
                number=number,
                round_id=rnd.round_id,
                cards=format_cards(sort_cards(rnd.hands[self.spot])),
                setting=_setting_str(setting),
                set_by=set_by,
                foul=result.foul,
                dealer_setting=_setting_str(ds),
                dealer_rule=dealer.rule,
                outcome=result.outcome,
                wager=result.wager,
                net=result.returned - result.wager,
                commission=result.commission,
            )
        )

    def show_history(self) -> None:
        if not self.history:
            self.say("No rounds played yet.")
            return
        table = Table(
            title=f"Last {len(self.history)} round{'s' if len(self.history) != 1 else ''} (most recent last)"
        )
        for name in ("Round", "Your cards", "Your setting", "Dealer", "Rule", "Outcome"):
            table.add_column(name)
        for name in ("Net", "Commission"):
            table.add_column(name, justify="right")
        for rec in self.history:
            setting = rec.setting if rec.set_by == "you" else f"{rec.setting} ({rec.set_by})"
            outcome = rec.outcome + (f" ({FOUL_LOSES})" if rec.foul else "")
            table.add_row(
                rec.round_id,
                rec.cards,
                setting,
                rec.dealer_setting,
                rec.dealer_rule,
                outcome,
                format_net(rec.net),
                format_money(rec.commission) if rec.outcome == "win" else "-",
            )
        self.console.print(table)

    def farewell(self) -> None:
        self.say()
        self.say(
            f"Rounds played: {self.rounds_played}. Net: "
            f"{format_net(self.bankroll - self.start_bankroll)}."
        )
        self.say(f"Final bankroll: {format_money(self.bankroll)}", style="bold")


def run_game(
    console: Console,
    ruleset: Ruleset,
    house_way: HouseWay,
    bankroll: int,
    seed: int | None,
    spot: int,
    read: Callable[[str], str] = input,
    *,
    on_round: Callable[[Round], None] | None = None,
) -> int:
    """Play pai gow poker at the terminal until the player quits, input ends, or the bankroll
    falls below the table minimum; return the final bankroll in cents.

    ``bankroll`` is in cents; ``seed`` makes the game reproducible (a seeded generator, for
    practice and replay), None draws from the operating system's secure generator; ``spot`` is
    your spot 1..6 (the other five are house-way players); ``read(prompt)`` returns one line typed
    by the player (EOFError means quit). ``on_round`` receives every finished :class:`Round`, its
    event log included.
    """
    if not isinstance(spot, int) or isinstance(spot, bool) or spot not in SPOTS:
        raise ValueError(f"spot {spot!r} does not exist (spots are 1..6)")
    if not isinstance(bankroll, int) or isinstance(bankroll, bool) or bankroll < 0:
        raise ValueError(f"a bankroll is a non-negative whole number of cents, got {bankroll!r}")
    game = _Game(console, ruleset, house_way, bankroll, seed, spot, read, on_round)
    return game.run()
