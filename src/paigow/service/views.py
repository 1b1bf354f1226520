"""What each viewer may see of a round's event log.

A player sees their own seven cards and their own setting as soon as they exist; everyone sees the
public events (wagers, the dice or RNG number, which positions got packets, who has set, the
dealer's hand with its house-way rule, results and commission); at the showdown (when the dealer
sets) every player's setting becomes public. The deck order, the four leftover cards and the
packets discarded on empty spots are never shown (operators read the complete log, for game recall,
once the round is over).

>>> log = [
...     {"type": "wager-placed", "spot": 2, "amount": 500},
...     {"type": "shuffled", "deck": ["As"] * 53, "source": "csprng"},
... ]
>>> [view_event(log, i, set()) for i in range(2)]
[{'type': 'wager-placed', 'spot': 2, 'amount': 500}, {'type': 'shuffled', 'source': 'csprng'}]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

ENDED_PHASES = ("settled", "voided")


def _settings_before(log: Sequence[dict[str, Any]], i: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in log[:i]:
        if e.get("type") == "hand-set":
            out[str(e["spot"])] = {
                "high": e["high"],
                "low": e["low"],
                "foul": e["foul"],
                "by": e["by"],
                "reason": e.get("reason"),
                "rule": e.get("rule"),
            }
    return out


def view_event(
    log: Sequence[dict[str, Any]], i: int, viewer_spots: Collection[int]
) -> dict[str, Any] | None:
    """Event ``i`` of ``log`` (the core's event dicts) as the viewer holding ``viewer_spots`` may
    see it (None: nothing to show)."""
    e = log[i]
    kind = e.get("type")
    if kind == "round-started":
        rs = e["ruleset"]
        return {
            "type": kind,
            "round_id": e["round_id"],
            "commission": rs["commission"],
            "min_wager": rs["min_wager"],
            "max_wager": rs["max_wager"],
            "start": rs["start"],
            "foul": rs["foul"],
            "wheel": rs["wheel"],
            "house_way": e["house_way"]["name"],
        }
    if kind == "shuffled":
        return {"type": kind, "source": e["source"]}
    if kind == "dealt":
        out: dict[str, Any] = {
            "type": kind,
            "order": e["order"],
            "positions": [p["position"] for p in e["packets"]],
            "spots": [p["spot"] for p in e["packets"] if p["spot"] is not None],
        }
        mine = {
            str(p["spot"]): p["cards"]
            for p in e["packets"]
            if p["spot"] is not None and p["spot"] in viewer_spots
        }
        if mine:
            out["your_cards"] = mine
        return out
    if kind == "hand-set":
        if e["spot"] in viewer_spots:
            return dict(e)
        return {"type": kind, "spot": e["spot"], "by": e["by"], "reason": e.get("reason")}
    if kind == "dealer-set":
        return {**e, "settings": _settings_before(log, i)}
    return dict(e)


def view_log(
    log: Sequence[dict[str, Any]], viewer_spots: Collection[int], *, full: bool = False
) -> list[dict[str, Any]]:
    """The whole log as the viewer may see it, each entry with its ``seq``; ``full``: the complete
    log (operators, once the round is over)."""
    out = []
    for i, e in enumerate(log):
        shown = dict(e) if full else view_event(log, i, viewer_spots)
        if shown is not None:
            out.append({"seq": i, **shown})
    return out
