"""docs/protocol.md documents every HTTP route and socket of the server, read from the app
itself (its OpenAPI paths and the socket router), and names no route the server does not
have: each as "`METHOD /path`" (a path parameter by any name, a query string after it)."""

from __future__ import annotations

import re
from pathlib import Path

from app.api import ws
from app.config import Settings
from app.main import create_app

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "docs" / "protocol.md"
WRITTEN = re.compile(r"`(GET|POST|PUT|PATCH|DELETE) (/[^`?\s]*)")


def _shape(path: str) -> str:
    """A path with each parameter written alike: `/api/tables/{table_id}` as `{id}`'s."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def routes(tmp_path: Path) -> set[tuple[str, str]]:
    app = create_app(Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]
    found = {
        (method.upper(), _shape(path))
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    }
    found |= {("GET", _shape(route.path)) for route in ws.router.routes}  # type: ignore[attr-defined]
    return found


def written(text: str) -> set[tuple[str, str]]:
    return {(method, _shape(path)) for method, path in WRITTEN.findall(text)}


def test_every_route_is_in_the_protocol(tmp_path: Path) -> None:
    served = routes(tmp_path)
    assert {("POST", "/api/login"), ("GET", "/ws/tables/{}"), ("GET", "/health")} <= served
    missing = sorted(served - written(PROTOCOL.read_text()))
    assert not missing, f"docs/protocol.md does not document: {missing}"


def test_the_documents_name_no_route_the_server_lacks(tmp_path: Path) -> None:
    served = routes(tmp_path)
    for doc in (PROTOCOL, ROOT / "docs" / "design.md", ROOT / "README.md"):
        stale = sorted(written(doc.read_text()) - served)
        assert not stale, f"{doc.name} names routes the server does not have: {stale}"


def test_the_check_reads_the_written_forms() -> None:
    text = "`GET /api/tables?mine=1`, `POST /api/tables/{id}/host` and `GET /api/hands/{n}`"
    assert written(text) == {
        ("GET", "/api/tables"), ("POST", "/api/tables/{}/host"), ("GET", "/api/hands/{}")
    }  # fmt: skip
