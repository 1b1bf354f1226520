"""Accounts: passwords and tokens, the token signing secret, log-in throttles, users and
operators."""
