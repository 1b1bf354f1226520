"""The table service: an HTTP and WebSocket adapter around the pure rules engine.

The core (:mod:`paigow.round` and friends) does no I/O; this package keeps everything else: the
database (the only source of truth), wallets and the double-entry ledger, accounts and tokens, the
virtual dealer of each table, the event bus that carries table events to WebSocket clients of every
process, recovery after a crash, the audit log and the load client. Modules are imported lazily by
the CLI (``paigow serve``, ``paigow admin``, ``paigow audit``, ``paigow bots``).
"""
