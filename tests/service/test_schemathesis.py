"""Schemathesis against the OpenAPI document of a live server: a bounded run of generated
requests (valid and invalid, with an operator's token and without) that must never get a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # The conftest's helpers are function-scoped; build a module-scoped server by hand.
    import secrets
    import threading
    import time

    import httpx
    import uvicorn

    from paigow.service.accounts.operators import create_operator
    from paigow.service.process.app import create_app

    url = f"sqlite:///{tmp_path_factory.mktemp('st') / 'tables.sqlite3'}"
    create_operator(url, "boss", "operator-password")
    app = create_app(
        url, dealer_poll_s=0.05, lock_poll_s=0.1, login_limit_user=10_000, login_limit_addr=10_000
    )
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    http = httpx.Client(base_url=base, trust_env=False, verify=False)
    token = http.post(
        "/api/auth/login", json={"username": "boss", "password": "operator-password"}
    ).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # something to find: a table, a player with a seat and a round
    http.post("/api/admin/tables", json={"name": "t", "betting_time_ms": 60_000}, headers=auth)
    http.post("/api/auth/register", json={"username": "someone", "password": "password-1"})
    http.post(
        "/api/admin/wallets/someone/credit",
        json={"amount": 10_000, "idempotency_key": secrets.token_hex(4)},
        headers=auth,
    )
    yield {"base": base, "auth": auth, "app": app}
    server.should_exit = True
    thread.join(10)


def _run(
    schema: Any, mode: Any, examples: int, base: str, headers: dict[str, str] | None
) -> list[str]:
    """Every operation of the schema, ``examples`` generated requests each; the failures."""
    from hypothesis import given
    from hypothesis.errors import Unsatisfiable

    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def check(case: Any) -> None:
            case.call_and_validate(base_url=base, headers=headers, checks=[not_a_server_error])

        try:
            check()
        except Unsatisfiable:
            continue  # nothing invalid to send (an operation without parameters)
        except Exception as exc:
            failures.append(f"{operation.label}: {str(exc)[:1500]}")
    return failures


@pytest.mark.parametrize("mode", ["positive", "negative"])
def test_no_server_errors(live: Any, mode: str) -> None:
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_url(live["base"] + "/openapi.json")
    generation = GenerationMode.POSITIVE if mode == "positive" else GenerationMode.NEGATIVE
    failures = _run(schema, generation, 30, live["base"], live["auth"])
    failures += _run(schema, generation, 5, live["base"], None)  # and without a token
    assert not failures, "\n\n".join(failures)
