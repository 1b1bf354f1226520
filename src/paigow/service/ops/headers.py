"""Security headers on every HTTP response: a strict Content-Security-Policy and its companions.

The browser's pages are plain ES modules and one stylesheet served from ``/static``, with no
inline script or style, so the policy allows the app's own origin only: ``'self'`` for scripts,
styles, images (and ``data:`` for the empty favicon) and connections. CSP Level 3 lets
``connect-src 'self'`` match ``ws:``/``wss:`` to the same host and port, which Chromium honours
(``tests/web/test_csp.py`` opens the live feed under it), so no WebSocket host is listed.
The header bytes are built once; the middleware only appends them to each response's start.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "SECURITY_HEADERS", "SecurityHeaders"]

CSP = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""The Content-Security-Policy every response carries."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
"""The headers added, as raw ASGI pairs (precomputed)."""

NO_STORE: tuple[bytes, bytes] = (b"cache-control", b"no-store")
"""On every answer of the API (``/api/...``) and of ``/metrics``: a person's data (a wallet, a
hand, a statement, the audit log) is never kept by a browser's or a proxy's cache."""
_PRIVATE_PREFIXES = ("/api/", "/metrics")

_NAMES = frozenset(name for name, _ in SECURITY_HEADERS)


class SecurityHeaders:
    """Pure ASGI middleware: add :data:`SECURITY_HEADERS` to every HTTP response (and
    :data:`NO_STORE` to the API's), replacing any of the same names a route set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        private = str(scope.get("path", "")).startswith(_PRIVATE_PREFIXES)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = _NAMES | {NO_STORE[0]} if private else _NAMES
                headers = [h for h in message.get("headers", ()) if h[0] not in names]
                headers.extend(SECURITY_HEADERS)
                if private:
                    headers.append(NO_STORE)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
