"""The par sheet: one self-contained HTML file with the rules in force, hand frequencies, the
dealer's settings, the house edge, the side wagers offered with their exact returns and charts
(matplotlib, embedded as PNG)."""

from __future__ import annotations

import base64
import html
import io
import json
import time
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paigow.analysis.compiled import cache_dir
from paigow.analysis.extras import require
from paigow.analysis.simulate import SimResult
from paigow.analysis.stats import HandStats
from paigow.house_way import HouseWay
from paigow.ruleset import Ruleset

if TYPE_CHECKING:
    from paigow.analysis.bonus_return import BonusAnalysis

CSS = """
body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#111}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3;text-align:left}
.posted{font-size:1.3em;font-weight:bold;border:2px solid #a00;display:inline-block;padding:.3em .8em}
img{max-width:100%}.note{color:#555;font-size:.9em}
"""


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _bar_chart(labels: list[str], series: dict[str, list[int]], title: str, log: bool) -> str:
    matplotlib: Any = require("matplotlib", "analysis")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(series)
    for k, (name, values) in enumerate(series.items()):
        ax.bar([i + k * width for i in range(len(labels))], values, width=width, label=name)
    ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(labels))])
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    if len(series) > 1:
        ax.legend()
    src = _png(fig)
    plt.close(fig)
    return src


def _barh_chart(labels: list[str], values: list[float], title: str, xlabel: str) -> str:
    """A horizontal bar chart (labels stay legible however many there are)."""
    matplotlib: Any = require("matplotlib", "analysis")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, max(2.5, 0.28 * len(labels) + 1)))
    ax.barh(range(len(labels)), values, color="#4a72b0")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    src = _png(fig)
    plt.close(fig)
    return src


def group_low_hands(dealer_low: dict[str, int]) -> dict[str, int]:
    """The dealer's low hands grouped for a chart: each pair, and the non-pairs by their top card.

    >>> group_low_hands({"one pair, aces": 5, "high card, ace-king": 2, "high card, ace-two": 1})
    {'pair of aces': 5, 'ace high': 3}
    """
    out: dict[str, int] = {}
    for name, n in dealer_low.items():
        if name.startswith("one pair, "):
            label = "pair of " + name.removeprefix("one pair, ")
        else:
            label = name.removeprefix("high card, ").split("-")[0] + " high"
        out[label] = out.get(label, 0) + n
    return out


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for v in row:
            if isinstance(v, int):
                cells.append(f'<td class="n">{v:,}</td>')
            elif isinstance(v, float):
                cells.append(f'<td class="n">{v:.4f}</td>')
            else:
                cells.append(f"<td>{html.escape(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def exact_edges(way: HouseWay, ruleset: Ruleset) -> list[dict[str, Any]]:
    """Exact edges computed by ``paigow edge`` for this house way with the current compiled
    table and counting code (read from the cache folder) under the ruleset's push rule, at its
    commission."""
    from fractions import Fraction

    from paigow.analysis.compiled import cache_path
    from paigow.analysis.edge import is_current

    table = cache_path(way, ruleset.wheel).name
    found = []
    folder = cache_dir()
    for path in sorted(folder.glob("edge-*.json")) if folder.exists() else []:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if (
            HouseWay.identity_of(data.get("house_way") or {})["digest"] == way.digest
            and data.get("table") == table
            and is_current(data)
            and data.get("push_rule", "none") == ruleset.push.value
        ):
            rate = ruleset.commission.rate
            edge = (data["loss"] - Fraction(data["win"]) * (1 - rate)) / data["deals"]
            found.append({**data, "house_edge": float(edge)})
    return found


def _cost_section(costs: list[Any] | None, total_hands: int) -> str:
    if not costs:
        return (
            '<p class="note">The optimal strategy has not been compiled for this house way and '
            "commission (run <code>paigow strategy build</code>).</p>"
        )
    used = [c for c in costs if c.hands]
    rows = [
        [
            c.rule,
            c.hands,
            c.differ,
            f"{100 * c.differ / c.hands:.2f}%",
            f"{float(c.given_up):,.1f}",
            f"{float(c.per_hand):.6f}",
        ]
        for c in used
    ]
    total = sum(c.given_up for c in used)
    rows.append(
        [
            "all rules",
            total_hands,
            sum(c.differ for c in used),
            f"{100 * sum(c.differ for c in used) / total_hands:.2f}%",
            f"{float(total):,.1f}",
            f"{float(total) / total_hands:.6f}",
        ]
    )
    chart = _barh_chart(
        [c.rule for c in used],
        [float(c.given_up) / total_hands * 100 for c in used],
        "House edge added by each house way rule (vs the optimal setting)",
        "% of the wager, per hand dealt",
    )
    return (
        "<p>For each rule of the house way: the hands it sets (of all "
        f"{total_hands:,}), those where the optimal setting (highest EV against the dealer's "
        "house way, a foul losing) differs, and the EV given up by playing the house way there, "
        "in units wagered: in total and per hand the rule sets.</p>"
        + _table(
            ["rule", "hands set", "optimal differs", "share", "EV given up", "per hand set"],
            rows,
        )
        + f'<img alt="house edge added by each rule, chart" src="{chart}">'
    )


def _pct(value: Fraction, places: int = 4) -> str:
    from paigow.analysis.bonus_return import decimal

    return f"{decimal(100 * value, places)}%"


def bonus_section(analyses: Sequence[BonusAnalysis], notes: Sequence[str | None] = ()) -> str:
    """The side wagers offered, each with the exact count of every hand it pays, its return,
    Envy by the number of players and a progressive's break-even meter; ``notes[i]``, when
    given, says how the table offers the i-th (its name there and its limits)."""
    from paigow.analysis.bonus_return import MAX_PLAYERS, decimal
    from paigow.money import format_money

    if not analyses:
        return '<p class="note">No side wager is offered at this table.</p>'
    summary: list[list[Any]] = []
    for a in analyses:
        extra = ""
        if a.envy_per_other is not None:
            extra = f"{_pct(-a.total_return(MAX_PLAYERS))} with Envy, {MAX_PLAYERS} players"
        elif a.break_even is not None and a.meter is not None:
            even = format_money(int(-(-a.break_even // 1)))
            extra = f"at a {format_money(a.meter)} meter; break-even meter {even}"
        summary.append(
            [f"{a.table.title} ({a.table.name})", a.table.target.value, _pct(-a.paid_return), extra]
        )
    parts = [_table(["side wager", "settles on", "house edge", "with Envy or the meter"], summary)]
    for i, a in enumerate(analyses):
        t = a.table
        note = notes[i] if i < len(notes) else None
        rows: list[list[Any]] = [
            [line.category.label, line.pays, line.hands, decimal(line.contribution(a.hands))]
            for line in a.lines
        ]
        lost = a.hands - a.paid_hands
        rows.append(["not paid", "loses", lost, decimal(Fraction(-lost, a.hands))])
        rows.append(["total", "", a.hands, decimal(a.paid_return)])
        meter = f", meter {format_money(a.meter)}" if a.meter is not None else ""
        parts.append(
            f"<h3>{html.escape(t.title)} ({html.escape(t.name)})</h3>"
            + (f"<p><b>{html.escape(note)}.</b></p>" if note else "")
            + f"<p>Settles on: {html.escape(t.target.value)}; figures at a wager of "
            f"{format_money(a.wager)}{meter}. House edge <b>{_pct(-a.paid_return)}</b> "
            f"(return {decimal(a.paid_return, 8)} per unit, exactly {a.paid_return}).</p>"
            + (f'<p class="note">Source: {html.escape(t.source)}</p>' if t.source else "")
            + _table(["hand", "pays", "hands", "return"], rows)
        )
        if a.envy_per_other is not None and t.envy is not None:
            envy_rows: list[list[Any]] = [
                [n, _pct(-a.total_return(n))] for n in range(1, MAX_PLAYERS + 1)
            ]
            parts.append(
                f"<p>Envy (a bonus wager of {format_money(t.envy.minimum)} or more): "
                f"{decimal(a.envy_per_other, 4)} cents per other player's hand.</p>"
                + _table(["players at the table", "house edge with Envy"], envy_rows)
            )
        if a.break_even is not None:
            parts.append(
                f"<p>Break-even meter: {format_money(int(-(-a.break_even // 1)))} "
                f"(above it the wager returns more than it costs).</p>"
            )
    return "".join(parts)


def render(
    ruleset: Ruleset,
    way: HouseWay,
    stats: HandStats,
    sim: SimResult,
    edges: list[dict[str, Any]],
    costs: list[Any] | None = None,
    bonus: Sequence[BonusAnalysis] = (),
    bonus_notes: Sequence[str | None] = (),
) -> str:
    """The par sheet as one HTML document; ``costs`` are the compiled strategy's
    :class:`paigow.analysis.strategy.RuleCost` rows, when it has been built; ``bonus`` the
    side wagers offered, analyzed (:func:`paigow.analysis.bonus_return.analyze`), and
    ``bonus_notes`` how the table offers each (see :func:`bonus_section`)."""
    total = stats.total
    rules = [
        [
            "commission (posted, 68 IAC 10-9-1(f))",
            f"{ruleset.commission} of every winning wager, rounded down",
        ],
        ["banker", "the house (9-1(e): no player-banker, no co-bank)"],
        ["push rule", ruleset.posted_push() or "none"],
        [
            "dealer's cards",
            "face up, set before the players set" if ruleset.face_up else "face down",
        ],
        [
            "foul hand",
            "loses (9-13(a))" if ruleset.foul.value == "loses" else "set by the house way",
        ],
        [
            "A-2-3-4-5",
            "second-highest straight" if ruleset.wheel.value == "second" else "lowest straight",
        ],
        ["five aces", "above a royal flush"],
        [
            "starting position",
            "three dice" if ruleset.start.value == "dice" else "random number 1..7",
        ],
        ["house way", way.name],
        [
            "side wagers offered",
            ", ".join(f"{a.table.title} ({a.table.name})" for a in bonus) or "none",
        ],
    ]
    params: list[list[Any]] = [
        [rule.id, rule.text.get("when", "always"), rule.action_text()] for rule in way.rules
    ]
    cat_rows = [
        [name, n, 100 * n / total, stats.dealer_high[name], 100 * stats.dealer_high[name] / total]
        for name, n in stats.categories.items()
    ]
    low_rows = [[name, n, 100 * n / total] for name, n in stats.dealer_low.items()]
    chart_cats = _bar_chart(
        list(stats.categories),
        {
            "best five cards": list(stats.categories.values()),
            "dealer's high hand (house way)": list(stats.dealer_high.values()),
        },
        "Seven-card hands by category (log scale)",
        log=True,
    )
    grouped = group_low_hands(stats.dealer_low)
    chart_low = _barh_chart(
        list(grouped),
        [100 * n / total for n in grouped.values()],
        "Dealer's low hand (pairs, and the other hands by their top card)",
        "% of hands",
    )
    lo, hi = sim.ci95
    sim_rows: list[list[Any]] = [
        ["rounds simulated", sim.rounds],
        [
            "win / push / loss",
            f"{sim.win / sim.rounds:.5f} / {sim.push / sim.rounds:.5f} / {sim.loss / sim.rounds:.5f}",
        ],
        [
            "house edge per hand",
            f"{100 * sim.house_edge:.4f}% (95% CI {100 * lo:.4f}% .. {100 * hi:.4f}%)",
        ],
        ["house edge per resolved hand", f"{100 * sim.house_edge_resolved:.4f}%"],
        ["seed", sim.seed],
    ]
    if edges:
        edge_html = _table(
            ["player", "deals", "win", "push", "loss", "house edge"],
            [
                [
                    e["player"],
                    e["deals"],
                    e["win"],
                    e["push"],
                    e["loss"],
                    f"{100 * e['house_edge']:.6f}%",
                ]
                for e in edges
            ],
        )
    else:
        edge_html = '<p class="note">The exact edge has not been computed for this house way (run <code>paigow edge</code>).</p>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pai gow poker par sheet: {html.escape(way.name)}</title>
<style>{CSS}</style></head><body>
<h1>Pai gow poker par sheet &mdash; {html.escape(way.name)} house way</h1>
<p>Indiana Administrative Code 68 IAC 10-9. Generated {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())} by paigow.</p>
<p class="posted">Commission: {ruleset.commission}</p>
<h2>Rules in force</h2>{_table(["rule", "value"], rules)}
<h3>House way rules, tried in order</h3>{_table(["rule", "when", "sets"], params)}
<h2>Hand frequencies</h2>
<p>All {total:,} seven-card hands of the 53-card deck: the best five-card hand, and the dealer's high hand as the house way sets it.</p>
{_table(["hand", "best five", "%", "dealer's high", "%"], cat_rows)}
<img alt="hand frequencies chart" src="{chart_cats}">
<h2>The dealer's setting</h2>
{_table(["low hand", "count", "%"], low_rows)}
<img alt="dealer's low hand chart: each pair, and the other hands by their top card" src="{chart_low}">
<h2>House edge</h2>
<h3>Exact</h3>{edge_html}
<h3>Simulated (house way against house way)</h3>{_table(["measure", "value"], sim_rows)}
<h2>The cost of the house way, rule by rule</h2>
{_cost_section(costs, total)}
<h2>Side wagers</h2>
<p>Exact, over all {total:,} seven-card hands; bets on the dealer's low hand under the {html.escape(way.name)} house way.</p>
{bonus_section(bonus, bonus_notes)}
</body></html>
"""


def write_report(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
