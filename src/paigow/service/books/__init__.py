"""The house's books: the double-entry ledger (wallets and table accounts), the audit trail and
the gaming day."""
