"""Issue 45: the browser and the command line show the core's message for a core error's code,
never their own copy of it (docs/rulebook.md#error-codes)."""

from __future__ import annotations

import re
from pathlib import Path

from paigow.errors import CODES

WEB = Path(__file__).resolve().parents[1] / "src" / "paigow" / "service" / "web"


def test_the_pages_own_words_are_for_the_services_codes_only() -> None:
    text = (WEB / "dom.js").read_text("utf-8")
    table = text.split("const MESSAGES = {", 1)[1].split("\n};", 1)[0]
    keys = set(re.findall(r'^\s*"([a-z-]+)":', table, re.M))
    assert len(keys) > 10  # the table was read
    assert keys & set(CODES) == set(), "a core code with the page's own words"


def test_no_page_words_a_core_code_itself() -> None:
    """No module branches on a core code to print its own sentence instead of the answer's."""
    found = []
    for path in sorted(WEB.glob("*.js")):
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for code in re.findall(r'err\.code === "([a-z-]+)"', line):
                if code in CODES and "new Error(" in line:
                    found.append(f"{path.name}:{n}: {code}")
            for code in re.findall(r'\{ code: "([a-z-]+)" \}', line):  # a core error made up
                if code in CODES:
                    found.append(f"{path.name}:{n}: {code}")
    assert found == []
