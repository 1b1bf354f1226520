"""Exact analysis of a player's hand: every setting against every dealer hand.

For seven player cards, the dealer holds one of the C(46, 7) = 53,524,680 hands of the other
cards, set by the house way (read from the compiled table). Each of the player's 21 settings wins
when both of its hands beat the dealer's, loses when neither does (copies go to the banker), and
pushes otherwise. At a Face Up table, once the dealer's setting is exposed, each setting's outcome
is certain: :func:`analyze_against` prices the 21 settings against that one setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import CompiledHouseWay
from paigow.cards import Card, parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, PushRule
from paigow.setting import LOW_POSITIONS, Setting, all_settings
from paigow.settlement import Outcome, Settlement, settle

if TYPE_CHECKING:
    from paigow.analysis.optimal import Structures
    from paigow.analysis.pushed import DealerView

DEALER_HANDS: Final = comb(46, 7)


@dataclass(frozen=True)
class SettingResult:
    """One setting's exact counts and its expected value per unit wagered."""

    setting: Setting
    foul: bool
    win: int
    push: int
    loss: int
    ev: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "high": [c.code for c in self.setting.high],
            "low": [c.code for c in self.setting.low],
            "foul": self.foul,
            "win": self.win,
            "push": self.push,
            "loss": self.loss,
            "ev": float(self.ev),
        }


@dataclass(frozen=True)
class HandAnalysis:
    """The 21 settings of a hand, which one the house way plays and which one is optimal."""

    cards: tuple[Card, ...]
    settings: tuple[SettingResult, ...]
    house_way: int
    house_way_rule: str
    optimal: int
    commission: Commission
    dealer_hands: int = DEALER_HANDS
    """How many dealer hands the counts are over: all of them, or 1 against an exposed setting."""
    against: str = "all"
    """``all`` (every dealer hand of the other 46 cards) or ``exposed`` (the dealer's setting
    shown face up)."""

    @property
    def ev_given_up(self) -> Fraction:
        """What playing the house way costs against the optimal setting (per unit wagered)."""
        return self.settings[self.optimal].ev - self.settings[self.house_way].ev

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": [c.code for c in self.cards],
            "dealer_hands": self.dealer_hands,
            "against": self.against,
            "commission": self.commission.as_str(),
            "settings": [s.to_dict() for s in self.settings],
            "house_way": self.house_way,
            "house_way_rule": self.house_way_rule,
            "optimal": self.optimal,
            "ev_given_up": float(self.ev_given_up),
        }


def _balanced(tops: list[int], weights: list[int], parts: int) -> list[list[int]]:
    groups: list[list[int]] = [[] for _ in range(parts)]
    load = [0] * parts
    for t, w in sorted(zip(tops, weights, strict=True), key=lambda tw: -tw[1]):
        k = load.index(min(load))
        groups[k].append(t)
        load[k] += w
    return groups


def dealer_view(compiled: CompiledHouseWay, push: PushRule) -> DealerView | None:
    """The dealer's hands under the push rule ``push``
    (:func:`paigow.analysis.pushed.dealer_view`: every hand that triggers it at a point that
    pushes every setting); None without a push rule (the compiled table as it is)."""
    if push is PushRule.NONE:
        return None
    from paigow.analysis.pushed import dealer_view as view_of
    from paigow.analysis.runner import TableSpec

    return view_of(TableSpec.of(compiled.way, compiled.wheel, compiled.path.parent), push.value)


def dealer_histogram(
    compiled: CompiledHouseWay,
    cards: tuple[Card, ...],
    workers: int = 2,
    view: DealerView | None = None,
    deck: Sequence[int] | None = None,
) -> K.Arr:
    """Histogram over (dealer high rank, dealer low rank) of the hands of the other 46 cards
    (of ``deck``'s other cards, where a reduced deck is given), as ``view`` shows them where a
    push rule is given."""
    used = {c.index for c in cards}
    rem = np.array(sorted(i for i in (deck or range(53)) if i not in used), dtype=np.int64)
    n5, n2 = len(compiled.tables.five_keys), len(compiled.tables.two_keys)
    table = compiled.table
    if view is not None:
        n5, n2, table = view.n5, view.n2, view.table
    tops = list(range(6, len(rem)))
    groups = _balanced(tops, [comb(t, 6) for t in tops], max(1, workers))
    hists = [np.zeros((n5, n2), dtype=np.int64) for _ in groups]

    def run(k: int) -> int:
        return int(
            K.dealer_histogram(rem, np.array(groups[k], dtype=np.int64), table, hists[k], K.BINOM)
        )

    if len(groups) == 1:  # one worker: on this thread (a pricing pool's own, say)
        counted = run(0)
    else:
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            counted = sum(pool.map(run, range(len(groups))))
    if counted != comb(len(rem), 7):
        raise AssertionError(f"counted {counted} dealer hands, expected {comb(len(rem), 7)}")
    hist: K.Arr = sum(hists[1:], hists[0])
    return hist


def analyze(
    cards: str | tuple[Card, ...] | list[Card],
    compiled: CompiledHouseWay,
    commission: Commission | None = None,
    foul: FoulRule = FoulRule.LOSES,
    workers: int = 2,
    push: PushRule = PushRule.NONE,
    deck: Sequence[int] | None = None,
) -> HandAnalysis:
    """Exact win/push/loss counts and EV of all 21 settings of seven cards (every wager pushing
    on the dealer hands that trigger the push rule ``push``, but a foul), against every dealer
    hand of the other cards (of ``deck``, a reduced deck's card indices, where given)."""
    seven = parse_cards(cards, count=7)
    view = dealer_view(compiled, push)
    hist = dealer_histogram(compiled, seven, workers, view, deck)
    settings = all_settings(seven)
    t = compiled.tables
    up = 0 if view is None else 1  # the view's low ranks are moved up by one
    ph = np.array([t.rank5_of(s.high) for s in settings], dtype=np.int64)
    pl = np.array([t.rank2_of(s.low) + up for s in settings], dtype=np.int64)
    wins, losses = K.dominance_counts(hist, ph, pl)
    total = comb(len(deck) - 7, 7) if deck is not None else DEALER_HANDS
    return _from_counts(seven, compiled, wins, losses, commission, foul, total)


def _from_counts(
    seven: tuple[Card, ...],
    compiled: CompiledHouseWay,
    wins: K.Arr | Sequence[int],
    losses: K.Arr | Sequence[int],
    commission: Commission | None,
    foul: FoulRule,
    total: int = DEALER_HANDS,
) -> HandAnalysis:
    """The analysis from each setting's wins and losses (in the order of ``all_settings``) over
    ``total`` dealer hands."""
    return _priced(seven, compiled.way, compiled.wheel, wins, losses, commission, foul, total)


def _priced(
    seven: tuple[Card, ...],
    way: HouseWay,
    wheel: Wheel,
    wins: K.Arr | Sequence[int],
    losses: K.Arr | Sequence[int],
    commission: Commission | None,
    foul: FoulRule,
    total: int = DEALER_HANDS,
    against: str = "all",
) -> HandAnalysis:
    rate = (commission or Commission()).rate
    settings = all_settings(seven)
    hw = way.set_hand(seven, wheel)
    hw_index = next(i for i, s in enumerate(settings) if s.same_hands(hw.setting))
    results = []
    for i, s in enumerate(settings):
        is_foul = s.is_foul
        j = hw_index if is_foul and foul is FoulRule.RESET else i
        win, loss = int(wins[j]), int(losses[j])
        if is_foul and foul is FoulRule.LOSES:
            win, loss = 0, total
        push = total - win - loss
        ev = (Fraction(win) * (1 - rate) - loss) / total
        results.append(SettingResult(s, is_foul, win, push, loss, ev))
    optimal = max(range(len(results)), key=lambda i: (results[i].ev, i == hw_index, -i))
    return HandAnalysis(
        seven,
        tuple(results),
        hw_index,
        hw.rule,
        optimal,
        commission or Commission(),
        total,
        against,
    )


def analyze_against(
    cards: str | tuple[Card, ...] | list[Card],
    dealer: Setting,
    way: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    commission: Commission | None = None,
    foul: FoulRule = FoulRule.LOSES,
    *,
    pushes: bool = False,
) -> HandAnalysis:
    """The 21 settings of seven cards against one known dealer setting (a Face Up table's
    exposed setting): each setting's outcome is certain (a count of 1 over 1 dealer hand), its
    EV +1 less commission, 0 or -1. ``pushes``: the dealer's hand triggers the table's push rule
    (every setting but a foul pushes). A foul loses, or under ``reset`` plays the house way's
    setting.

    >>> from paigow.cards import parse_cards
    >>> dealer = Setting.from_low(parse_cards("Ks Kd 8c 6h 4s 3d 2c"), ["3d", "2c"])
    >>> a = analyze_against("As Ad Jc 9h 7s 5d 4c", dealer, HouseWay.load("standard"))  # 5%
    >>> str(a.settings[a.optimal].setting), a.settings[a.optimal].ev, a.dealer_hands, a.against
    ('As Ad 7s 5d 4c / Jc 9h', Fraction(19, 20), 1, 'exposed')
    """
    seven = parse_cards(cards, count=7)
    wins, losses = [], []
    for s in all_settings(seven):
        r = settle(s, dealer, 100, Commission("0"), wheel)
        if pushes and not r.foul:
            r = Settlement(Outcome.PUSH, r.high, r.low, r.wager, 0, 0)
        wins.append(int(r.outcome is Outcome.WIN))
        losses.append(int(r.outcome is Outcome.LOSS))
    return _priced(seven, way, wheel, wins, losses, commission, foul, 1, "exposed")


def analyze_fast(
    cards: str | tuple[Card, ...] | list[Card],
    compiled: CompiledHouseWay,
    commission: Commission | None = None,
    foul: FoulRule = FoulRule.LOSES,
    push: PushRule = PushRule.NONE,
) -> HandAnalysis | None:
    """The same answer as :func:`analyze` in a millisecond or two, from the optimal player's
    dominance structures when they are on disk (built by ``paigow strategy build``, under the
    push rule ``push``); None when they are not (never builds them)."""
    from paigow.analysis.edge import FULL_DECK_INDICES
    from paigow.analysis.optimal import structures, structures_folder
    from paigow.analysis.runner import TableSpec

    spec = TableSpec.of(compiled.way, compiled.wheel, compiled.path.parent)
    if not (structures_folder(spec, FULL_DECK_INDICES, push.value) / "done").exists():
        return None
    st = structures(spec, FULL_DECK_INDICES, True, push.value)
    return analyze_with(cards, compiled, st, commission, foul, push)


def analyze_with(
    cards: str | tuple[Card, ...] | list[Card],
    compiled: CompiledHouseWay,
    st: Structures,
    commission: Commission | None = None,
    foul: FoulRule = FoulRule.LOSES,
    push: PushRule = PushRule.NONE,
) -> HandAnalysis:
    """:func:`analyze` of seven cards of the deck of the optimal player's structures ``st``
    (built under the push rule ``push``): against every dealer hand of the deck's other cards."""
    from paigow.analysis.kernels.optimal_counts import hand_counts
    from paigow.analysis.kernels.strategy_classes import setting_ranks

    seven = parse_cards(cards, count=7)
    view = dealer_view(compiled, push)
    order = sorted(range(7), key=lambda k: seven[k].index)
    p = np.array([seven[k].index for k in order], dtype=np.int64)
    t = compiled.tables
    table = compiled.table if view is None else view.table
    rank2 = t.rank2 if view is None else view.rank2
    ph = np.empty(21, dtype=np.int64)
    pl = np.empty(21, dtype=np.int64)
    setting_ranks(p, K.BINOM, t.rank5, rank2, ph, pl)
    w = np.zeros(21, dtype=np.int64)
    lo = np.zeros(21, dtype=np.int64)
    hand_counts(
        p, table, K.BINOM, *st.kernel_args(), ph, pl, np.arange(21, dtype=np.int64), 21, w, lo
    )
    # the kernel's settings are over the cards sorted by index; map them to all_settings(seven)
    pos = {seven[k].index: k for k in range(7)}
    wins = np.zeros(21, dtype=np.int64)
    losses = np.zeros(21, dtype=np.int64)
    for q, (i, j) in enumerate(LOW_POSITIONS):
        a, b = sorted((pos[int(p[i])], pos[int(p[j])]))
        r = LOW_POSITIONS.index((a, b))
        wins[r], losses[r] = w[q], lo[q]
    total = comb(len(st.deck) - 7, 7)
    return _from_counts(seven, compiled, wins, losses, commission, foul, total)


@dataclass(frozen=True)
class AnalyzeChunk:
    """One hand to analyze on a worker (picklable)."""

    spec: Any  # paigow.analysis.runner.TableSpec (kept loose to avoid an import cycle)
    cards: tuple[str, ...]
    commission: str
    foul: str
    push: str = PushRule.NONE.value


def analyze_chunk(chunk: AnalyzeChunk) -> dict[str, Any]:
    """``analyze`` of one hand as a JSON-ready dict (for batches on a cluster)."""
    compiled = chunk.spec.open()
    result = analyze(
        parse_cards(chunk.cards),
        compiled,
        Commission(chunk.commission),
        FoulRule(chunk.foul),
        push=PushRule(chunk.push),
    )
    return result.to_dict()
