"""``paigow house-way card``: the dealer's card (docs/house-way.md#the-dealers-card), a house
way's rules as a dealer learns them, numbered, in plain words generated from the rules
(:mod:`paigow.house_way.plain`), each with an example hand drawn as cards in its high and low
hands: one self-contained HTML page that prints on one or two A4 or Letter pages, or that page
printed to PDF by Chromium where it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess  # nosec B404  # Chromium prints the card to PDF, run without a shell
import tempfile
from html import escape
from pathlib import Path
from typing import Annotated, Final

import typer

from paigow.cards import Card
from paigow.cli.common import load_house_way
from paigow.cli.house_way_cases import fail
from paigow.house_way import HouseWay
from paigow.house_way.plain import PlainRule, plain_rules

_SUITS: Final = {0: ("♣", "black"), 1: ("♦", "red"), 2: ("♥", "red"), 3: ("♠", "black")}
_BROWSERS: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_CSS: Final = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 "DejaVu Sans","Liberation Sans",Arial,sans-serif;color:#111;
 background:#e9ecef}
main{max-width:1100px;margin:0 auto;padding:20px;background:#fff}
header{border-bottom:2px solid #111;padding-bottom:6px;margin-bottom:10px}
h1{font-size:1.35em;margin:0}
header p{margin:2px 0;font-size:.85em;color:#333;overflow-wrap:anywhere}
header .how{font-size:.95em;color:#111;font-weight:bold;margin-top:4px}
ol{list-style:none;margin:0;padding:0;columns:2 380px;column-gap:22px}
li{break-inside:avoid;display:flex;gap:8px;padding:5px 0;border-bottom:1px solid #ccc}
.n{flex:none;width:1.9em;height:1.9em;border-radius:50%;background:#111;color:#fff;
 font-weight:bold;display:flex;align-items:center;justify-content:center;font-size:.85em}
.body{min-width:0;flex:1}
.text{margin:0;overflow-wrap:anywhere}
.id{font:.78em "DejaVu Sans Mono",monospace;color:#555;white-space:nowrap}
.eg{display:flex;flex-wrap:wrap;align-items:center;gap:3px 10px;margin-top:3px}
.side{display:inline-flex;align-items:center;gap:2px;white-space:nowrap}
.label{font-size:.7em;font-weight:bold;letter-spacing:.04em;color:#444;margin-right:3px}
.c{display:inline-block;min-width:1.9em;padding:1px 2px;border:1px solid #777;border-radius:3px;
 background:#fff;text-align:center;font-weight:bold;font-size:.9em;line-height:1.3}
.red{color:#c00}.black{color:#111}.joker{color:#6a1b9a}
.tag{font-size:.75em;color:#555}
footer{margin-top:8px;font-size:.75em;color:#555;overflow-wrap:anywhere}
@media (max-width:600px){main{padding:12px}body{font-size:13px}h1{font-size:1.15em}ol{columns:1}}
@page{margin:9mm}
@media print{
 body{background:#fff;font-size:8.4pt;line-height:1.28;-webkit-print-color-adjust:exact;
  print-color-adjust:exact}
 main{max-width:none;padding:0}
 ol{columns:2;column-gap:6mm}
 li{padding:2.2pt 0}
 .c{border-color:#555}
}
"""


def card_html(way: HouseWay) -> str:
    """The dealer's card of ``way``: a self-contained HTML page, every rule numbered in plain
    words with an example hand (its high and low drawn as cards).

    >>> way = HouseWay.from_text('name = "mine"\\n[[rule]]\\nid = "mine.any"\\nchoose = "best-low"')
    >>> page = card_html(way)
    >>> page.startswith("<!DOCTYPE html>"), page.count('<li id="rule-'), "[mine.any]" in page
    (True, 1, True)
    """
    rules = plain_rules(way)
    head = f"The {way.name} house way" + (f": {way.title}" if way.title else "")
    meta = [f"Source: {way.source}"] if way.source else []
    meta.append(f"Rules: {len(rules)} &middot; digest {escape(way.digest[:12])}")
    items = "\n".join(_rule(r) for r in rules)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(head)} — dealer's card</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<header>
<h1>{escape(head)}</h1>
{"".join(f"<p>{m if m.startswith('Rules') else escape(m)}</p>" for m in meta)}
<p class="how">Try the rules in order: the first that fits sets the hand.</p>
</header>
<ol>
{items}
</ol>
<footer>Generated from the rules themselves by <code>paigow house-way card</code>
({escape(way.origin or way.name)}); each example is a hand that rule sets.</footer>
</main>
</body>
</html>
"""


def _rule(r: PlainRule) -> str:
    text = f'<p class="text">{escape(r.text)} <span class="id">[{escape(r.id)}]</span></p>'
    if r.example is None:
        eg = '<div class="eg"><span class="tag">(no example hand found)</span></div>'
    else:
        _, setting, rid = r.example
        tag = f'<span class="tag">set as {escape(rid)}</span>' if rid != r.id else ""
        eg = (
            '<div class="eg">'
            f'<span class="side"><span class="label">HIGH</span>{_cards(setting.high)}</span>'
            f'<span class="side"><span class="label">LOW</span>{_cards(setting.low)}</span>'
            f"{tag}</div>"
        )
    return (
        f'<li id="rule-{r.number}"><span class="n">{r.number}</span>'
        f'<div class="body">{text}{eg}</div></li>'
    )


def _cards(cards: tuple[Card, ...]) -> str:
    """Cards drawn as small faces: rank and suit symbol, hearts and diamonds red.

    >>> from paigow.cards import parse_cards
    >>> _cards(parse_cards("Th Jk"))
    '<span class="c red" title="Th">T♥</span><span class="c joker" title="Jk">JK</span>'
    """
    out = []
    for c in cards:
        if c.is_joker:
            out.append(f'<span class="c joker" title="{c.code}">JK</span>')
        else:
            symbol, colour = _SUITS[c.suit]
            out.append(f'<span class="c {colour}" title="{c.code}">{c.code[0]}{symbol}</span>')
    return "".join(out)


def find_browser() -> str | None:
    """The Chromium (or Chrome) on the ``PATH`` that prints the PDF, or None."""
    return next((b for b in map(shutil.which, _BROWSERS) if b), None)


def print_pdf(html: str, out: Path, browser: str | None = None, timeout: float = 120) -> None:
    """Print ``html`` to the PDF ``out`` with headless Chromium; :class:`RuntimeError` saying
    why where it cannot (no Chromium found, or it wrote no PDF)."""
    found = browser or find_browser()
    if found is None:
        raise RuntimeError("no Chromium found to print a PDF")
    with tempfile.TemporaryDirectory(prefix="paigow-card-") as folder:
        page = Path(folder) / "card.html"
        page.write_text(html, "utf-8")
        target = out.resolve()
        target.unlink(missing_ok=True)
        command = [found, "--headless", "--disable-gpu", "--no-first-run", "--disable-extensions",
                   f"--user-data-dir={folder}/profile", "--no-pdf-header-footer",
                   "--print-to-pdf-no-header", f"--print-to-pdf={target}", page.as_uri()]  # fmt: skip
        if os.geteuid() == 0:  # Chromium will not start as root inside its sandbox
            command.insert(1, "--no-sandbox")
        try:
            done = subprocess.run(command, capture_output=True, timeout=timeout, check=False)  # nosec B603  # our own arguments, no shell
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"{found} did not print the PDF: {exc}") from None
        if not target.is_file() or target.read_bytes()[:5] != b"%PDF-":
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            raise RuntimeError(f"{found} wrote no PDF" + (f" ({said[0]})" if said else ""))


def card_command(
    house_way: Annotated[
        str, typer.Argument(metavar="NAME|FILE", help="A preset's name or a house-way file.")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the card: a .html file, or .pdf (printed by Chromium where it is "
            "installed). Left out: the HTML on standard output.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """The dealer's card: the house way's rules numbered, in plain words generated from the
    rules, each with an example hand drawn as cards in its high and low; one HTML page that
    prints on one or two A4 or Letter pages (or a PDF of it)."""
    suffix = output.suffix.lower() if output is not None else ".html"
    if suffix not in (".html", ".htm", ".pdf"):
        raise fail(f"the card is written as .html or .pdf, not {suffix or 'a file without one'!r}")
    browser = find_browser() if suffix == ".pdf" else None
    html = output.with_suffix(".html").name if output is not None else ""
    if suffix == ".pdf" and browser is None:  # said before the card is drawn
        raise fail(f"cannot write {output}: no Chromium found to print a PDF; write the HTML "
                   f"(-o {html}) and print it from a browser")  # fmt: skip
    way = load_house_way(house_way)
    page = card_html(way)
    if output is None:
        print(page, end="")
        return
    if suffix == ".pdf":
        try:
            print_pdf(page, output, browser)
        except RuntimeError as exc:
            raise fail(f"cannot write {output}: {exc}; write the HTML (-o {html}) and print it "
                       "from a browser") from None  # fmt: skip
        return
    try:
        output.write_text(page, "utf-8")
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror}") from None
