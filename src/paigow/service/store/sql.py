"""The statement layer's public names in one place, for modules that still import them from
here: :class:`Sql`, :class:`Compiled`, :func:`dumps` (:mod:`.statements`) and :class:`Tx`
(:mod:`.unit`). New code imports them from those modules."""

from paigow.service.store.statements import Compiled, Row, Sql, dumps
from paigow.service.store.unit import Tx

__all__ = ["Compiled", "Row", "Sql", "Tx", "dumps"]
