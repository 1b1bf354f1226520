"""Write docs/settings.md: the table of every setting of the table service, generated from
``paigow.service.config.ServiceConfig`` (tests/service/test_config.py checks that it is current).

Run: python scripts/make_settings_doc.py
"""

from __future__ import annotations

from pathlib import Path

from paigow.service.config import settings_doc

DOC = Path(__file__).resolve().parents[1] / "docs" / "settings.md"


def main() -> None:
    DOC.write_text(settings_doc(), encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
