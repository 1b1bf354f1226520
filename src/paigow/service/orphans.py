"""Child processes that end with the process that started them.

A process killed with ``kill -9`` runs no exit handlers, so its children are not told to stop:
a ``serve --workers N`` worker whose supervisor was killed would go on serving with no one to
replace it if it died (and keep the port from a restarted server), and an exact-edge pool worker
would wait on its task queue forever (the queue it was handed holds a write end of its own
pipe). Each such child watches its parent and goes when the parent does.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable


def watch_parent(
    parent: int, on_gone: Callable[[], None], every_s: float = 0.5
) -> threading.Thread:
    """Call ``on_gone`` (on a daemon thread) once this process's parent is no longer
    ``parent`` (it died: the process was handed to another). The thread, started.

    >>> import threading
    >>> gone = threading.Event()
    >>> t = watch_parent(-1, gone.set)  # -1 is no one's pid: as if the parent had died
    >>> gone.wait(5), t.daemon
    (True, True)
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        on_gone()

    thread = threading.Thread(target=watch, name="paigow-parent-watch", daemon=True)
    thread.start()
    return thread


def exit_now() -> None:
    """End this process at once (a worker with nothing to finish)."""
    os._exit(0)


def stop_gracefully(grace_s: float = 30.0) -> None:
    """Ask this process to stop as ``SIGTERM`` does (a server finishes its requests and its
    steps), and end it after ``grace_s`` if it has not stopped by then."""
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(grace_s)
    os._exit(1)


def exit_with_parent(parent: int) -> None:
    """A process pool's ``initializer``: the worker ends at once when ``parent`` is gone."""
    watch_parent(parent, exit_now)
