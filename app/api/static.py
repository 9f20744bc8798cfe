"""The browser client: `frontend/` served at `/` by the same server.

`/static/…` serves the files (plain JavaScript modules and CSS, no build step); `/` and the
client's own routes (`/table/<id>`, `/tournaments/<id>`, `/invite/<token>`, `/hands`…) answer
`index.html`, whose script reads the path. A content security policy keeps every script,
style and connection on this server.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}
# Paths the client's router understands; each answers index.html.
CLIENT_ROUTES = (
    "/",
    "/login",
    "/register",
    "/lobby",
    "/table/{table_id}",
    "/tournaments",
    "/tournaments/{tournament_id}",
    "/invite/{token}",
    "/hands",
    "/hands/{hand_id}",
    "/proof/{number}",  # a hand's public deal proof (scheme seeded-v2), for anyone
    "/admin",  # the operators' page (its data routes refuse everyone else)
)


class _Static(StaticFiles):
    """Static files that browsers revalidate (no stale modules after an update)."""

    def file_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def index() -> FileResponse:
    return FileResponse(FRONTEND / "index.html", media_type="text/html", headers=HEADERS)


def install(app: FastAPI) -> None:
    """Serve the client: call after the API routers so theirs come first."""
    app.mount("/static", _Static(directory=FRONTEND, check_dir=False), name="static")
    for path in CLIENT_ROUTES:
        app.add_api_route(path, index, methods=["GET"], include_in_schema=False)
