"""Test-only launcher: ``paigow serve`` with a fault injected from outside the service's code.

Run as ``python tests/service/fault_server.py serve ...`` with ``PAIGOW_TEST_FAULT`` set to the
dealer step to stop at and ``PAIGOW_TEST_FAULT_MARKER`` to a file to create when it stops:

- ``deal`` or ``dealer``: the dealer stops for good right after that step has committed;
- ``settle``: the dealer stops inside the settlement transaction, after its statements have run
  and before it commits.

The process goes on serving the API (players can still act) until the test kills it. Nothing of
this lives in ``src/``: the patches wrap the service's functions in this process only.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from paigow.service.statuses import DealerStep


def _stop_here(step: str, marker: str) -> None:
    Path(marker).write_text(step)
    threading.Event().wait()  # this dealer thread never goes on (until the process is killed)


def install(step: str, marker: str) -> None:
    """Wrap the dealer's step (``deal``, ``dealer``) or the settlement (``settle``)."""
    from paigow.service import dealer, rounds

    if step in ("deal", "dealer"):
        act = dealer.Dealer._act

        def act_then_stop(self: dealer.Dealer, now: DealerStep, view: rounds.TableView) -> None:
            act(self, now, view)  # the step's transaction has committed when this returns
            if now == step:
                _stop_here(step, marker)

        setattr(dealer.Dealer, "_act", act_then_stop)  # noqa: B010 (a patch for this process)
    elif step == "settle":
        settle = rounds.settle

        def settle_then_stop(session: Session, table_id: int, round_id: str) -> bool:
            done = settle(session, table_id, round_id)
            if done:
                _stop_here(step, marker)  # inside the transaction: it never commits
            return done

        rounds.settle = settle_then_stop
    else:
        raise SystemExit(f"PAIGOW_TEST_FAULT must be deal, dealer or settle, not {step!r}")


def main() -> None:
    step = os.environ.get("PAIGOW_TEST_FAULT")
    marker = os.environ.get("PAIGOW_TEST_FAULT_MARKER")
    if step:
        if not marker:
            raise SystemExit("PAIGOW_TEST_FAULT_MARKER is needed with PAIGOW_TEST_FAULT")
        install(step, marker)
    from paigow.cli import main as cli

    sys.argv = ["paigow", *sys.argv[1:]]
    cli()


if __name__ == "__main__":
    main()
