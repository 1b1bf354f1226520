"""Usernames and passwords: the username rule (:data:`USERNAME_PATTERN`, the one definition the
API's bodies and paths and the command line use), one key per name whatever its case or Unicode
compatibility form, and the password rules (not only spaces, not one of the most commonly used).

>>> is_username("ann.b-1"), is_username("ab"), is_username("ann\\n"), is_username("ann b")
(True, False, False, False)
>>> username_key("Case1") == username_key("case1") == username_key("CASE1")
True
>>> username_key("\\uff23\\uff41\\uff53\\uff45\\uff11")  # fullwidth "Case1"
'case1'
>>> password_problem("          ")
'the password is only spaces; choose one with letters, digits or symbols'
>>> password_problem("password123")
'this password is one of the most commonly used; choose another'
>>> password_problem("Password123")
'this password is one of the most commonly used; choose another'
>>> password_problem("a long and personal phrase") is None
True
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib.resources import files
from typing import Final

COMMON_FILE: Final = "common_passwords.txt"
"""The list shipped with the package (scripts/make_common_passwords.py writes it)."""

USERNAME_PATTERN: Final = r"^[A-Za-z0-9_.\-]{3,32}$"
"""A username: 3 to 32 ASCII letters, digits, ``_``, ``.`` or ``-`` (a new name must match it)."""
USERNAME_RULE: Final = "3-32 letters, digits, '_', '.', '-'"
""":data:`USERNAME_PATTERN` in words, for the API's documentation and refusals."""
_USERNAME: Final = re.compile(USERNAME_PATTERN)


def is_username(name: str) -> bool:
    """Whether ``name`` may be a new user's name (:data:`USERNAME_PATTERN`)."""
    return _USERNAME.fullmatch(name) is not None


def username_key(name: str) -> str:
    """The name as it is compared for uniqueness and log-in: NFKC, case-folded, NFKC again (so
    ``Case1``, ``case1``, ``CASE1`` and the fullwidth forms are one name)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """The commonly used passwords (case-folded)."""
    text = files("paigow.service.accounts").joinpath(COMMON_FILE).read_text(encoding="utf-8")
    return frozenset(
        line.strip().casefold() for line in text.splitlines() if line and not line.startswith("#")
    )


def password_problem(password: str, username: str | None = None) -> str | None:
    """Why ``password`` is refused, or None when it may be used."""
    if not password.strip():
        return "the password is only spaces; choose one with letters, digits or symbols"
    folded = unicodedata.normalize("NFKC", password).casefold()
    if folded.strip() in common_passwords():
        return "this password is one of the most commonly used; choose another"
    if username is not None and folded.strip() == username_key(username):
        return "the password is the username; choose another"
    return None
