"""The repository stands alone: its text cites only its own documents (docs/), every cited
``docs/<file>.md#<anchor>`` exists, and the documents agree with the code they describe."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import paigow
from paigow.house_way import RULE_IDS, legacy_params

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCANNED = ("src", "tests", "benchmarks", "scripts", "docs")

# Built from pieces so that this file does not match itself.
OUTSIDE = {
    "the developers' rule book": re.compile(r"\bSP" r"EC\b"),
    "the developers' house way": re.compile(r"\bHOUSE_" r"WAY\.md\b", re.I),
    "a shared folder beside the repository": re.compile(r"\.\./sha" r"red\b|/\s*\"sha" r"red\""),
    "a path of the machine it was written on": re.compile(r"/wo" r"rk/"),
}
CITATION = re.compile(r"\bdocs/([\w./-]+?\.md)(?:#([\w-]+))?")
LINK = re.compile(r"\]\(([^)\s#]*)(?:#([^)\s]+))?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _text_files() -> Iterator[Path]:
    yield ROOT / "README.md"
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            parts = path.relative_to(ROOT).parts
            if any(
                p.startswith(".") or p == "__pycache__" or p.endswith(".egg-info") for p in parts
            ):
                continue
            if path.is_file() and not path.is_symlink():
                yield path


def _read(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


FILES = {p.relative_to(ROOT).as_posix(): text for p in _text_files() if (text := _read(p))}


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets on GitHub: lower case, punctuation dropped, spaces to
    hyphens.

    >>> slug("The house way (how the dealer sets)"), slug("The dealer's hand"), slug("`quads`")
    ('the-house-way-how-the-dealer-sets', 'the-dealers-hand', 'quads')
    """
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """Every heading anchor of ``doc`` (GitHub numbers repeated headings: ``x``, ``x-1``, ...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in doc.read_text("utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m is None:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_the_text_scan_sees_the_repository() -> None:
    assert "README.md" in FILES
    assert "src/paigow/house_way/way.py" in FILES
    assert "docs/rulebook.md" in FILES
    assert "tests/data/house_way_examples.tsv" in FILES


@pytest.mark.parametrize("what", sorted(OUTSIDE))
def test_nothing_cites_a_file_outside_the_repository(what: str) -> None:
    pattern = OUTSIDE[what]
    found = [
        f"{name}:{n}: {line.strip()}"
        for name, text in FILES.items()
        for n, line in enumerate(text.splitlines(), start=1)
        if pattern.search(line)
    ]
    assert found == [], f"{what} is cited:\n" + "\n".join(found)


def test_every_cited_document_and_anchor_exists() -> None:
    missing = []
    cache: dict[Path, set[str]] = {}
    for name, text in FILES.items():
        for n, line in enumerate(text.splitlines(), start=1):
            for m in CITATION.finditer(line):
                doc = DOCS / m.group(1)
                if not doc.is_file():
                    missing.append(f"{name}:{n}: no file docs/{m.group(1)}")
                elif m.group(2) and m.group(2) not in cache.setdefault(doc, anchors(doc)):
                    missing.append(f"{name}:{n}: no heading #{m.group(2)} in docs/{m.group(1)}")
    assert missing == [], "\n".join(missing)


def test_src_cites_the_documents() -> None:
    cited = {
        m.group(1) for n, t in FILES.items() if n.startswith("src/") for m in CITATION.finditer(t)
    }
    assert {"rulebook.md", "house-way.md"} <= cited


@pytest.mark.parametrize("doc", ["README.md", *sorted(f"docs/{p.name}" for p in DOCS.glob("*.md"))])
def test_links_between_the_documents_resolve(doc: str) -> None:
    path = ROOT / doc
    broken = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        for m in LINK.finditer(line):
            target, anchor = m.group(1), m.group(2)
            if re.match(r"^[a-z]+://", target):
                continue
            dest = (path.parent / target).resolve() if target else path
            if not dest.is_relative_to(ROOT) or not dest.exists():
                broken.append(f"{doc}:{n}: {target} does not exist in the repository")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{doc}:{n}: no heading #{anchor} in {target or doc}")
    assert broken == [], "\n".join(broken)


def test_the_served_rules_are_the_players_rules() -> None:
    served = Path(paigow.__file__).parent / "service" / "web" / "rules.md"
    assert served.read_text("utf-8") == (DOCS / "rules.md").read_text("utf-8")


# ---------------------------------------------------------------- the documents against the code


def _table_after(doc: Path, heading: str) -> list[list[str]]:
    """The rows (header and separator left out) of the first table after ``heading``."""
    text = doc.read_text("utf-8").split(f"\n{heading}\n", 1)[1]
    rows, started = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            started = True
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif started:
            break
    return rows[2:]


def test_the_rule_id_table_is_the_codes_list_in_order() -> None:
    rows = _table_after(DOCS / "house-way.md", "## Rule ids")
    assert [r[0].strip("`") for r in rows] == list(RULE_IDS)


def test_every_rule_id_is_explained_in_the_rules() -> None:
    text = (DOCS / "house-way.md").read_text("utf-8")
    rules = text.split("## The rules in order", 1)[1].split("\n## ", 1)[0]
    assert [i for i in RULE_IDS if f"`{i}`" not in rules] == []
    players = (DOCS / "rules.md").read_text("utf-8")
    assert [i for i in RULE_IDS if f"`{i}`" not in players] == []


def test_the_preset_table_is_the_presets() -> None:
    rows = _table_after(DOCS / "house-way.md", "### The built-in presets")
    shown = {
        name: {r[0].split()[0].strip("`"): r[i].strip("`") for r in rows}
        for i, name in ((2, "standard"), (3, "foxwoods"))
    }
    for name, params in shown.items():
        way = legacy_params(name)
        want = {f"{table}.{k}": v for table in ("two_pair", "quads") for k, v in way[table].items()}
        del want["two_pair.aces"]
        assert params == want
