"""Test-only launcher: ``paigow serve`` with a fault injected from outside the service's code.

Run as ``python tests/service/fault_server.py serve ...`` with ``PAIGOW_TEST_FAULT`` set to the
dealer step to stop at and ``PAIGOW_TEST_FAULT_MARKER`` to a file to create when it stops:

- ``deal`` or ``dealer``: the dealer stops for good right after that step has committed; the
  process goes on serving the API (players can still act) until the test kills it;
- ``settle``: the settlement stops inside its transaction, after its statements have run and
  before it commits (the steps run on the event loop on SQLite, so there the whole process
  stops with it) until the test kills the process.

Nothing of this lives in ``src/``: the patches wrap the service's functions in this process
only.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paigow.service.store.unit import Tx


def install(step: str, marker: str) -> None:
    """Wrap the dealer's step (``deal``, ``dealer``) or the settlement (``settle``)."""
    from paigow.service.game import rounds
    from paigow.service.process import dealer

    if step in ("deal", "dealer"):
        look_step = dealer.Dealer._look_step

        async def look_then_stop(self: dealer.Dealer, free_seats: bool) -> dealer.Look:
            look = await look_step(self, free_seats)  # it has committed when this returns
            if look.done and look.step == step:
                Path(marker).write_text(step)
                await asyncio.Event().wait()  # this dealer never goes on; the API serves on
            return look

        # a patch for this process
        setattr(dealer.Dealer, "_look_step", look_then_stop)  # noqa: B010
    elif step == "settle":
        settle = rounds.settle

        def settle_then_stop(tx: Tx, table_id: int, round_id: str) -> bool:
            done = settle(tx, table_id, round_id)
            if done:  # inside the step: it never commits (the process is killed meanwhile)
                Path(marker).write_text(step)
                threading.Event().wait()
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
