"""What every HTTP request passes through: browsers may change state only from this site,
and no response is ever sniffed into another content type.

A state-changing request (POST, PUT, PATCH, DELETE) that a browser sends from another
site is refused with 403 `foreign_origin`: the session cookie would otherwise let any page
the player visits act in their name (log them out, open a table, claim a top-up). The
browser says where a request comes from in `Sec-Fetch-Site` (current browsers) and
`Origin`; a request with neither is not a browser's cross-site request and passes (the
bearer-token clients). Origins listed in `ALLOWED_ORIGINS` count as this site. The table
WebSocket (`app.api.ws`) opens only by the same rule (`from_this_site`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.wire.events import sentence

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NOSNIFF = ("X-Content-Type-Options", "nosniff")


def from_this_site(headers: Headers, allowed: frozenset[str]) -> bool:
    """Whether a request (or a socket's handshake) comes from this site, or from none (not a
    browser's): its `Origin` is allowed, else the browser's `Sec-Fetch-Site` says so, else
    its `Origin` (if any) names this server's host."""
    origin = headers.get("origin")
    if origin is not None and origin in allowed:
        return True
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")  # "none": the user's own navigation
    if origin is None:
        return True
    host = headers.get("host", "")
    return bool(host) and origin != "null" and urlsplit(origin).netloc == host


class SiteGuard:
    """Refuses foreign state changes and adds `X-Content-Type-Options: nosniff` to every
    response, an unexpected error's 500 included (a pure ASGI middleware: sockets pass
    untouched, bodies are not buffered)."""

    def __init__(self, app: ASGIApp, allowed_origins: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.allowed = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] in UNSAFE and not from_this_site(Headers(scope=scope), self.allowed):
            message = "requests from other sites may not change anything here"
            await refusal(403, "foreign_origin", message)(scope, receive, send)
            return
        started = False

        async def send_nosniff(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                MutableHeaders(scope=message)[NOSNIFF[0]] = NOSNIFF[1]
            await send(message)

        try:
            await self.app(scope, receive, send_nosniff)
        except Exception:
            if not started:  # the server's own 500 would be plain text without the header
                error = refusal(500, "internal_error", "something went wrong on the server")
                await error(scope, receive, send)
            raise  # for the server's log


def refusal(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"detail": {"code": code, "message": sentence(message)}},
        status_code=status,
        headers=dict([NOSNIFF]),
    )
