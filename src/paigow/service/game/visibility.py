"""What each viewer may see of a round's event log.

A player sees their own seven cards and their own setting as soon as they exist; everyone sees the
public events (wagers, the dice or RNG number, which positions got packets, who has set, the
dragon hand's offer, each answer and its wager, the dealer's hand with its house-way rule, results
and commission); at the showdown (when the dealer sets) every player's setting and the dragon
hand's (set by the house way when it is accepted, face down until then) become public. At a
face-up table the dealer sets right after the deal, so its seven cards and setting are public
before any player sets, and each player's setting, and the dragon hand's, becomes public with
that spot's settlement. The deck order, the four leftover cards and the
packets discarded on empty spots are never shown (operators read the complete log, for game recall,
once the round is over).

Every event shown carries ``text``: the narrator's words for it (:mod:`paigow.narrator`), as that
viewer may read them (never naming cards the viewer may not see), and the dealer's hands carry
their names (``high_name``, ``low_name``), derived from the cards: the log stores no display text.

>>> log = [
...     {"type": "wager-placed", "spot": 2, "amount": 500},
...     {"type": "shuffled", "deck": ["As"] * 53, "source": "csprng"},
... ]
>>> [view_event(log, i, set()) for i in range(2)]  # doctest: +NORMALIZE_WHITESPACE
[{'type': 'wager-placed', 'spot': 2, 'amount': 500, 'text': 'spot 2 wagers $5.00'},
 {'type': 'shuffled', 'source': 'csprng',
  'text': "53 cards (52 and the joker) shuffled by the operating system's secure generator"}]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from paigow.bonus.marks import bonus_cards
from paigow.cards import parse_cards
from paigow.errors import PaigowError
from paigow.events import event_from_dict
from paigow.narrator import hand_names, narrate
from paigow.ranking import Wheel


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


def _dragon_before(log: Sequence[dict[str, Any]], i: int) -> dict[str, Any] | None:
    """The dragon hand's setting, if it was set before event ``i`` (its packet's spot, its
    hands and the house way's rule)."""
    for e in log[:i]:
        if e.get("type") == "dragon-set":
            return {"spot": e["spot"], "high": e["high"], "low": e["low"], "rule": e.get("rule")}
    return None


def _face_up(log: Sequence[dict[str, Any]]) -> bool:
    """Whether the round's dealer set face up right after the deal (before any player)."""
    try:
        return bool(log[0]["ruleset"].get("face_up"))
    except (IndexError, KeyError, TypeError, AttributeError):
        return False


def _wheel(log: Sequence[dict[str, Any]]) -> Wheel:
    try:
        return Wheel(log[0]["ruleset"]["wheel"])
    except (IndexError, KeyError, TypeError, ValueError):
        return Wheel.SECOND


def _pays(log: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each side wager's pays by category, from the round's ruleset (its first event)."""
    try:
        return {o["name"]: o["table"]["pays"] for o in log[0]["ruleset"].get("side_wagers", ())}
    except (IndexError, KeyError, TypeError, AttributeError):
        return {}


def _seven(log: Sequence[dict[str, Any]], i: int, spot: int | None) -> list[str]:
    """A spot's seven cards as set (None: the dealer's), once shown before event ``i``."""
    if spot is None:
        for e in log[:i]:
            if e.get("type") == "dealer-set":
                return [*e["high"], *e["low"]]
        return []
    s = _settings_before(log, i).get(str(spot))
    return [*s["high"], *s["low"]] if s else []


def _marks(log: Sequence[dict[str, Any]], i: int) -> dict[str, Any]:
    """What the showdown marks beside a settled side wager or an Envy paid: the cards that make
    each bonus hand (``cards``; an Envy's ``marks`` by spot), derived, never logged."""
    e = log[i]
    try:
        if e["type"] == "envy-paid":
            return {
                "marks": {
                    str(spot): [c.code for c in bonus_cards(parse_cards(_seven(log, i, spot)), cat)]
                    for spot, cat in e["hands"]
                }
            }
        if not e.get("hand"):
            return {}
        offers = {o["name"]: o for o in log[0]["ruleset"].get("side_wagers", ())}
        target = offers[e["name"]]["table"].get("target", "player")
        if target == "dealer-low":
            dealer = _seven(log, i, None)
            return {"cards": dealer[5:], "target": target}
        seven = _seven(log, i, None if target == "dealer" else int(e["spot"]))
        marked = bonus_cards(parse_cards(seven), e["hand"]) if len(seven) == 7 else ()
        return {"cards": [c.code for c in marked], "target": target}
    except (PaigowError, KeyError, TypeError, ValueError):
        return {}


def _text(log: Sequence[dict[str, Any]], i: int, viewer_spots: Collection[int] | None) -> str:
    """The narration of event ``i`` for the viewer (None: the complete log); a settled side
    wager says what its hand pays, as the complete log's narration does."""
    try:
        pays = _pays(log) if log[i].get("type") == "side-wager-settled" else None
        dragon = log[i].get("type") == "dealt" and bool(log[0]["ruleset"].get("dragon"))
        return narrate(event_from_dict(log[i]), _wheel(log), viewer_spots, pays, dragon)
    except (PaigowError, KeyError, TypeError, ValueError):  # an unreadable entry: its type
        return str(log[i].get("type", "event"))


def _dealer_names(e: dict[str, Any], log: Sequence[dict[str, Any]]) -> dict[str, str]:
    try:
        high, low = hand_names(e["high"], e["low"], _wheel(log))
    except (PaigowError, KeyError, TypeError):
        return {}
    return {"high_name": high, "low_name": low}


def view_event(
    log: Sequence[dict[str, Any]], i: int, viewer_spots: Collection[int]
) -> dict[str, Any] | None:
    """Event ``i`` of ``log`` (the core's event dicts) as the viewer holding ``viewer_spots`` may
    see it, with its ``text`` (None: nothing to show)."""
    shown = _shown(log, i, viewer_spots)
    if shown is not None:
        shown["text"] = _text(log, i, viewer_spots)
    return shown


def _shown(
    log: Sequence[dict[str, Any]], i: int, viewer_spots: Collection[int]
) -> dict[str, Any] | None:
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
            **({"house_way_digest": e["house_way_digest"]} if e.get("house_way_digest") else {}),
            **({"side_wagers": list(rs["side_wagers"])} if rs.get("side_wagers") else {}),
            **({"push": rs["push"]} if rs.get("push", "none") != "none" else {}),
            **({"face_up": True} if rs.get("face_up") else {}),
            **({"dragon": True} if rs.get("dragon") else {}),
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
        dragon = _dragon_before(log, i)
        return {
            **_public(e),
            **_dealer_names(e, log),
            "settings": _settings_before(log, i),
            **({"dragon": dragon} if dragon is not None and not _face_up(log) else {}),
        }
    if kind == "spot-settled" and _face_up(log):  # a face-up table's showdown is settlement
        setting = _settings_before(log, i).get(str(e["spot"]))
        return {**_public(e), **({"setting": setting} if setting else {})}
    if kind == "dragon-set":  # face down, like a spot's setting, until the showdown
        return {"type": kind, "spot": e["spot"]}
    if kind == "dragon-settled" and _face_up(log):  # shown with its settlement
        dragon = _dragon_before(log, i)
        return {**_public(e), **({"setting": dragon} if dragon else {})}
    if kind in ("side-wager-settled", "envy-paid"):  # the cards that make each bonus hand
        return {**_public(e), **_marks(log, i)}
    if kind == "wager-placed":  # who holds the spot is the operator's to read (recall), by id
        return {k: v for k, v in _public(e).items() if k != "player"}
    return _public(e)


def private_spots(event: dict[str, Any]) -> frozenset[int]:
    """The spots whose holders see ``event`` otherwise than everyone else (the packets dealt
    to them, their own settings: what :func:`view_event` shows them apart); every other
    viewer sees the same.

    >>> sorted(private_spots({"type": "hand-set", "spot": 3}))
    [3]
    >>> private_spots({"type": "wager-placed", "spot": 3})
    frozenset()
    """
    kind = event.get("type")
    if kind == "dealt":
        return frozenset(p["spot"] for p in event.get("packets", ()) if p.get("spot") is not None)
    if kind == "hand-set":
        return frozenset((int(event["spot"]),))
    return frozenset()


def _public(e: dict[str, Any]) -> dict[str, Any]:
    """An event as stored, less any display text an old (version 1) log stored in it."""
    return {k: v for k, v in e.items() if k not in ("high_name", "low_name", "text")}


def view_log(
    log: Sequence[dict[str, Any]], viewer_spots: Collection[int], *, full: bool = False
) -> list[dict[str, Any]]:
    """The whole log as the viewer may see it, each entry with its ``seq``; ``full``: the complete
    log (operators, once the round is over)."""
    out = []
    for i, e in enumerate(log):
        shown: dict[str, Any] | None
        if full:
            shown = {**_public(e), "text": _text(log, i, None)}
            if e.get("type") == "dealer-set":
                shown.update(_dealer_names(e, log))
        else:
            shown = view_event(log, i, viewer_spots)
        if shown is not None:
            out.append({"seq": i, **shown})
    return out
