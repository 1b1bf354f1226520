"""The dealer's hands as the optimal player's and the face-up player's counts read them, with a
push rule folded in (docs/rulebook.md#push-rules): a copy of the compiled table in which every
dealer hand that triggers the rule sits at a point no setting beats on both hands nor loses to on
both (high rank n5, low rank 0), the other low ranks moved up by one, with the player's rank
tables moved to match (:func:`paigow.analysis.kernels.trigger.shift_table`). Without a push rule the
view is the compiled table itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.edge import push_mask
from paigow.analysis.kernels import trigger as KT
from paigow.analysis.runner import TableSpec
from paigow.ruleset import PushRule


@dataclass(frozen=True)
class DealerView:
    """What the counting kernels read: the table (3 bytes a hand), the player's rank tables
    (rank5, rank2) and the keys of the dense ranks (five_keys, two_keys), and the dimensions
    of the rank space (n5 high ranks, n2 low ranks)."""

    push: str
    table: K.Arr
    rank5: K.Arr
    rank2: K.Arr
    five_keys: K.Arr
    two_keys: K.Arr
    n5: int
    n2: int
    moved: int = 0


@lru_cache(maxsize=2)
def dealer_view(spec: TableSpec, push: str = PushRule.NONE.value) -> DealerView:
    """The view of ``spec``'s table under the push rule ``push`` (a copy of the table, about
    460 MB, for a push rule), once per process."""
    compiled = spec.open()
    t = compiled.tables
    n5, n2 = len(t.five_keys), len(t.two_keys)
    if PushRule(push) is PushRule.NONE:
        return DealerView(push, compiled.table, t.rank5, t.rank2, t.five_keys, t.two_keys, n5, n2)
    mode, bits, low_trig = push_mask(spec, push)
    table = np.empty(len(compiled.table), dtype=np.uint8)
    moved = KT.shift_table(compiled.table, mode, bits, low_trig, n5, table)
    rank2 = (t.rank2.astype(np.int64) + 1).astype(np.uint8)
    two_keys = np.concatenate([t.two_keys[:1] * 0, t.two_keys])
    five_keys = np.concatenate([t.five_keys, t.five_keys[-1:] + 1])
    for a in (table, rank2, two_keys, five_keys):  # read-only as the plain view's (the file's):
        a.flags.writeable = False  # each kernel is compiled for one kind of array, not two
    return DealerView(push, table, t.rank5, rank2, five_keys, two_keys, n5 + 1, n2 + 1, int(moved))
