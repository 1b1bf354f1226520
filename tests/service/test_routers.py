"""The service's shape: ``create_app`` only assembles; every route comes from the router of its
resource (``paigow.service.routes_*``, the browser's from ``paigow.service.api.routes.web``)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute, iter_route_contexts
from starlette.routing import Mount

from paigow.service.process import app as app_module

HEALTH = "paigow.service.api.routes.health"
AUTH = "paigow.service.api.routes.auth"
ME = "paigow.service.api.routes.me"
TABLES = "paigow.service.api.routes.tables"
RECALL = "paigow.service.api.routes.recall"
ADMIN = "paigow.service.api.routes.admin"
WS = "paigow.service.api.routes.ws"
FLOOR = "paigow.service.api.routes.floor"
WEB = "paigow.service.api.routes.web"
METRICS = "paigow.service.api.routes.metrics"

EXPECTED: dict[tuple[str, str], str] = {
    ("GET", "/api/health"): HEALTH,
    ("POST", "/api/auth/register"): AUTH,
    ("POST", "/api/auth/login"): AUTH,
    ("POST", "/api/auth/logout"): AUTH,
    ("POST", "/api/auth/password"): AUTH,
    ("GET", "/api/auth/session"): AUTH,
    ("POST", "/api/auth/totp/enrol"): AUTH,
    ("POST", "/api/auth/totp/confirm"): AUTH,
    ("POST", "/api/auth/totp/verify"): AUTH,
    ("GET", "/api/me"): ME,
    ("GET", "/api/me/statement"): ME,
    ("POST", "/api/me/play-money"): ME,
    ("GET", "/api/me/review"): ME,
    ("GET", "/api/me/review/{round_id}"): ME,
    ("GET", "/api/tables"): TABLES,
    ("GET", "/api/tables/{table_id}"): TABLES,
    ("GET", "/api/tables/{table_id}/house-way"): TABLES,
    ("POST", "/api/tables/{table_id}/sit"): TABLES,
    ("POST", "/api/tables/{table_id}/leave"): TABLES,
    ("POST", "/api/tables/{table_id}/wager"): TABLES,
    ("POST", "/api/tables/{table_id}/side-wagers"): TABLES,
    ("GET", "/api/tables/{table_id}/hand"): TABLES,
    ("POST", "/api/tables/{table_id}/set"): TABLES,
    ("POST", "/api/tables/{table_id}/set-house-way"): TABLES,
    ("POST", "/api/tables/{table_id}/dragon"): TABLES,
    ("GET", "/api/tables/{table_id}/hint"): TABLES,
    ("GET", "/api/tables/{table_id}/rounds"): RECALL,
    ("GET", "/api/rounds/{round_id}"): RECALL,
    ("POST", "/api/admin/tables"): ADMIN,
    ("POST", "/api/admin/tables/{table_id}/close"): ADMIN,
    ("GET", "/api/admin/table-defaults"): ADMIN,
    ("POST", "/api/admin/tables/{table_id}/reopen"): ADMIN,
    ("POST", "/api/admin/wallets/{username}/credit"): ADMIN,
    ("POST", "/api/admin/wallets/{username}/debit"): ADMIN,
    ("POST", "/api/admin/users/{username}/sessions/revoke"): ADMIN,
    ("GET", "/api/admin/audit"): ADMIN,
    ("GET", "/api/admin/ledger"): ADMIN,
    ("GET", "/api/admin/progressives"): ADMIN,
    ("POST", "/api/admin/progressives/{bank}/seed"): ADMIN,
    ("POST", "/api/admin/progressives/{bank}/reset"): ADMIN,
    ("WEBSOCKET", "/ws/tables/{table_id}"): WS,
    ("GET", "/metrics"): METRICS,
    ("GET", "/"): WEB,
    ("GET", "/api/web/rules"): WEB,
    ("POST", "/api/web/evaluate"): WEB,
    ("GET", "/api/web/ledger"): WEB,
    ("GET", "/api/web/tables/{table_id}/ev"): WEB,
    ("GET", "/api/web/tables/{table_id}/side-returns"): WEB,
    ("GET", "/api/admin/floor"): FLOOR,
    ("GET", "/api/admin/floor/tables/{table_id}/chart"): FLOOR,
    ("GET", "/api/admin/floor/report"): FLOOR,
    ("GET", "/api/admin/limits"): FLOOR,
    ("POST", "/api/admin/players/{username}/lift-exclusion"): FLOOR,
    ("GET", "/api/admin/players"): FLOOR,
    ("GET", "/api/admin/players/{user_id}"): FLOOR,
    ("GET", "/api/admin/players/{user_id}/statement"): FLOOR,
    ("GET", "/api/me/limits"): FLOOR,
    ("POST", "/api/me/limits"): FLOOR,
    ("POST", "/api/me/exclusion"): FLOOR,
}
"""Every route of the service, by method and path, and the module that declares it."""

FASTAPI_OWN = {"/openapi.json"}  # /docs and /redoc are off (they need a CDN)


@pytest.fixture(scope="module")
def service_routes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('routers') / 'tables.sqlite3'}"
    app = app_module.create_app(url)
    found: dict[tuple[str, str], str] = {}
    others: list[Any] = []
    for ctx in iter_route_contexts(app.routes):  # through the included routers
        route, path = ctx.original_route, ctx.path
        if isinstance(route, APIRoute):
            for method in ctx.methods or ():
                assert (method, path) not in found, f"{method} {path} twice"
                found[(method, path)] = ctx.endpoint.__module__
        elif isinstance(route, APIWebSocketRoute):
            found[("WEBSOCKET", path)] = ctx.endpoint.__module__
        else:
            others.append(route)
    assert {r.path for r in others if not isinstance(r, Mount)} == FASTAPI_OWN
    assert [r.path for r in others if isinstance(r, Mount)] == ["/static"]
    return found


def test_the_routes_are_the_expected_ones(service_routes: dict[tuple[str, str], str]) -> None:
    assert set(service_routes) == set(EXPECTED)


def test_each_route_comes_from_the_router_of_its_resource(
    service_routes: dict[tuple[str, str], str],
) -> None:
    assert service_routes == EXPECTED
    assert app_module.__name__ not in service_routes.values()


def test_app_declares_no_routes() -> None:
    source = Path(inspect.getfile(app_module)).read_text(encoding="utf-8")
    verbs = "get|post|put|patch|delete|head|options|websocket|route|api_route"
    decorator = re.compile(rf"^\s*@\w+\.({verbs})\(", re.M)
    assert decorator.findall(source) == []
    assert ".add_api_route(" not in source and ".add_api_websocket_route(" not in source


def test_the_names_other_modules_import_from_app_stay() -> None:
    for name in ("create_app", "install_log_redaction", "current_user", "operator"):
        assert callable(getattr(app_module, name)), name
