"""``paigow strategy``: the compiled strategy (the optimal setting of every seven-card hand):
build, explain; and its answers for ``paigow hand --strategy optimal``."""

from __future__ import annotations

import json
import sys

import typer
from rich.table import Table

from paigow.cards import parse_cards
from paigow.cli.common import (
    DEFAULT_COMMISSION,
    AnalysisJsonOpt,
    ClusterOpt,
    CommissionOpt,
    HouseWayOpt,
    PushOpt,
    SchedulerOpt,
    VariantCommissionOpt,
    VariantOpt,
    WheelOpt,
    WorkersOpt,
    out_console,
    terminal_err_console,
    variant_rules,
)
from paigow.cli.jobs import (
    load_house_way,
    make_runner,
    open_strategy,
    parse_commission,
    table_spec,
)
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

strategy_app = typer.Typer(
    help="The compiled strategy: the optimal setting of every seven-card hand.",
    no_args_is_help=True,
)


@strategy_app.command("build")
def strategy_build(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: VariantCommissionOpt = None,
    variant: VariantOpt = None,
    push: PushOpt = None,
    workers: WorkersOpt = 2,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    as_json: AnalysisJsonOpt = False,
) -> None:
    """Compute the optimal setting of every hand and the exact optimal edge (resumable); with a
    push rule, against a dealer whose hands that trigger it push every wager."""
    way = load_house_way(house_way)
    rate, rule, _ = variant_rules(variant, push, commission, err=terminal_err_console)
    runner = make_runner(workers, scheduler, cluster)
    from paigow.analysis.edge import save_result

    strat = open_strategy(
        way, wheel, rate, runner, build_missing=True, house_way=house_way, push=rule.value
    )
    meta = strat.meta
    save_result(table_spec(way, wheel, workers), strat.edge())
    edge = strat.edge().to_dict()
    if as_json:
        print(
            json.dumps(
                {
                    "path": str(strat.path),
                    **{
                        k: meta[k]
                        for k in (
                            "classes",
                            "hands",
                            "built_at",
                            "build_seconds",
                            "compute_seconds",
                        )
                    },
                    "edge": edge,
                }
            )
        )
        return
    out_console().print(
        f"{strat.path}\n  house way {way.name}, wheel {wheel.value}, commission {rate}"
        f"{', ' + rule.words + ' pushes' if rule.value != 'none' else ''}: "
        f"{meta['classes']:,} classes, {meta['hands']:,} hands, built {meta['built_at']} "
        f"in {meta['build_seconds']} s\n  optimal player's house edge "
        f"{100 * edge['house_edge']:.6f}% (= {edge['house_edge_exact']})"
    )


@strategy_app.command("explain")
def strategy_explain(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    commission: CommissionOpt = DEFAULT_COMMISSION,
    as_json: AnalysisJsonOpt = False,
) -> None:
    """What the house way costs against the optimal strategy, rule by rule."""
    way = load_house_way(house_way)
    rate = parse_commission(commission)
    strat = open_strategy(way, wheel, rate, house_way=house_way)
    costs = strat.rule_costs()
    edge = strat.edge()
    if as_json:
        print(json.dumps({"house_way": way.name, "commission": rate.as_str(),
                          "optimal_edge": edge.to_dict(),
                          "rules": [c.to_dict() for c in costs]}))  # fmt: skip
        return
    from paigow.analysis.compiled import HANDS

    table = Table(
        title=f"The cost of the house way ({way.name}, commission {rate}) against the optimal "
        f"setting, over all {HANDS:,} hands",
        title_justify="left",
    )
    for col in ("rule", "hands", "optimal differs", "%", "EV given up", "per hand set"):
        table.add_column(col, justify="left" if col == "rule" else "right")
    for c in costs:
        if not c.hands:
            continue
        table.add_row(
            c.rule, f"{c.hands:,}", f"{c.differ:,}", f"{100 * c.differ / c.hands:.2f}",
            f"{float(c.given_up):,.1f}", f"{float(c.per_hand):.6f}",
        )  # fmt: skip
    total = sum(c.given_up for c in costs)
    table.add_row(
        "all", f"{HANDS:,}", f"{sum(c.differ for c in costs):,}",
        f"{100 * sum(c.differ for c in costs) / HANDS:.2f}", f"{float(total):,.1f}",
        f"{float(total) / HANDS:.6f}",
    )  # fmt: skip
    console = out_console()
    console.print(table)
    console.print(
        f"optimal player's house edge {100 * float(edge.house_edge):.6f}% "
        f"(= {edge.house_edge}); EV given up by the house way, per hand dealt, "
        f"{float(total) / HANDS:.6f}"
    )


def strategy_hands(
    lines: list[str],
    way: HouseWay,
    wheel: Wheel,
    commission: str,
    as_json: bool,
    house_way: str = "standard",
) -> int:
    """``paigow hand --strategy optimal``: the compiled strategy's answer for each line; returns
    the number of lines that failed to parse (``house_way``: the ``--house-way`` given)."""
    import numpy as np

    from paigow.cards import FULL_DECK

    rate = parse_commission(commission)
    strat = open_strategy(way, wheel, rate, house_way=house_way)
    codes = {c.code.lower(): c.index for c in FULL_DECK}
    good: list[int] = []
    idx: list[list[int]] = []
    errors: dict[int, str] = {}
    failures = 0
    for n, line in enumerate(lines):
        parts = line.replace(",", " ").lower().split()
        try:
            row = [codes[p] for p in parts]
            if len(row) != 7 or len(set(row)) != 7:
                raise KeyError
        except KeyError:
            try:  # the core's parser says what is wrong
                parse_cards(line, count=7)
                msg = "not seven distinct cards"
            except PaigowError as exc:
                msg = str(exc)
            failures += 1
            errors[n] = json.dumps({"input": line, "error": msg})
            if not as_json:
                terminal_err_console().print(f"[bold red]error:[/] {line!r}: {msg}")
            continue
        good.append(n)
        idx.append(row)
    if not idx:
        if as_json and errors:
            sys.stdout.write("\n".join(errors.values()) + "\n")
        return failures
    hands = np.array(idx, dtype=np.int64)
    rows = strat.lookup_indices(hands)
    srt = np.sort(hands, axis=1)
    names = [c.code for c in FULL_DECK]
    low_i = np.array([i for i, _ in _low_positions()])
    low_j = np.array([j for _, j in _low_positions()])
    pay = float(1 - rate.rate)
    from paigow.analysis.strategy import DEALER_HANDS

    ev = (rows[:, 3] * pay - rows[:, 4]) / DEALER_HANDS
    hw_ev = (rows[:, 5] * pay - rows[:, 6]) / DEALER_HANDS
    rule_ids = strat.rule_ids

    out = []
    for k in range(len(idx)):
        h = srt[k]
        q, hq = rows[k, 0], rows[k, 1]
        lo = f"{names[h[low_i[q]]]} {names[h[low_j[q]]]}"
        hi = " ".join(names[h[m]] for m in range(7) if m != low_i[q] and m != low_j[q])
        hlo = f"{names[h[low_i[hq]]]} {names[h[low_j[hq]]]}"
        hhi = " ".join(names[h[m]] for m in range(7) if m != low_i[hq] and m != low_j[hq])
        if as_json:
            out.append(
                f'{{"cards": "{lines[good[k]]}", "high": "{hi}", "low": "{lo}", '
                f'"ev": {ev[k]:.9f}, "house_way_high": "{hhi}", "house_way_low": "{hlo}", '
                f'"house_way_rule": "{rule_ids[rows[k, 2]]}", "house_way_ev": {hw_ev[k]:.9f}, '
                f'"ev_given_up": {ev[k] - hw_ev[k]:.9f}}}'
            )
        else:
            out.append(
                f"{lines[good[k]]}  optimal {hi} / {lo}  EV {ev[k]:+.6f}  house way {hhi} / "
                f"{hlo} ({rule_ids[rows[k, 2]]})  gives up {ev[k] - hw_ev[k]:.6f}"
            )
    if as_json and errors:  # each answer or error in the order of the input
        merged = dict(zip(good, out, strict=True)) | errors
        out = [merged[n] for n in sorted(merged)]
    sys.stdout.write("\n".join(out) + "\n")
    return failures


def _low_positions() -> tuple[tuple[int, int], ...]:
    from paigow.setting import LOW_POSITIONS

    return LOW_POSITIONS
