"""Smaller holes in the HTTP API, closed: state changes from another site are refused,
every response says `nosniff`, the session cookie is `Secure` over HTTPS, and sign-ups are
rate-limited per address (each new account is granted the starting balance)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from app.config import Settings
from app.fanout import create_fanout
from app.main import create_app
from app.store.db import Database
from app.store.models import User
from app.tables import FakeClock
from tests.api.conftest import make_settings
from tests.api.test_accounts import PASSWORD, error, login, register
from tests.tables.live import live_server

# What a browser says when another site's page sends the request.
FOREIGN = [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://games.testserver"},
    {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},
]


@asynccontextmanager
async def running(
    settings: Settings, base_url: str = "http://testserver", address: str = "127.0.0.1"
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application, client=(address, 40_000))
        async with httpx.AsyncClient(transport=transport, base_url=base_url) as http:
            yield application, http


async def users(application: FastAPI) -> int:
    db: Database = application.state.db
    async with db.session() as s:
        return int(await s.scalar(select(func.count()).select_from(User)) or 0)


async def test_cookie_state_changes_from_another_site_are_refused_and_change_nothing(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    assert (await register(client)).status_code == 201
    assert (await login(client)).status_code == 200  # the session cookie is in the jar
    for headers in FOREIGN:
        for path, body in [
            ("/api/logout", None),
            ("/api/me/topup", None),
            ("/api/tables", {"name": "Forged", "small_bet": 100}),
            ("/api/register", {"name": "Mallory", "password": PASSWORD, "email": "m@x.org"}),
            ("/api/login", {"name": "Ann", "password": PASSWORD}),
        ]:
            r = await client.post(path, json=body, headers=headers)
            assert r.status_code == 403 and error(r) == "foreign_origin", (path, headers, r.text)
        assert (await client.get("/api/me", headers=headers)).status_code == 200  # reads pass
    assert (await client.get("/api/tables/mine")).json() == {"tables": []}
    assert await users(app) == 1
    me = (await client.get("/api/me")).json()
    assert me["balance"] == 10_000  # no top-up was claimed for anyone

    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    made = await client.post("/api/tables", json={"name": "Real", "small_bet": 100}, headers=same)
    assert made.status_code == 201, made.text
    assert (await client.post("/api/logout", headers={"Sec-Fetch-Site": "none"})).is_success
    assert (await client.get("/api/me")).status_code == 401


async def test_an_allowed_origin_counts_as_this_site(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path).model_copy(
        update={"allowed_origins": "https://play.example"}
    )
    async with running(settings) as (_, http):
        allowed = {"Origin": "https://play.example", "Sec-Fetch-Site": "cross-site"}
        assert (await register(http)).status_code == 201
        assert (await http.post("/api/login", json={"name": "Ann", "password": PASSWORD},
                                headers=allowed)).status_code == 200  # fmt: skip
        r = await http.post("/api/logout", headers={"Origin": "https://other.example"})
        assert r.status_code == 403
        assert (await http.post("/api/logout", headers=allowed)).status_code == 200


async def test_every_response_says_nosniff(client: httpx.AsyncClient) -> None:
    responses = [
        await client.get("/"),
        await client.get("/health"),
        await client.get("/api/tables"),
        await client.get("/api/me"),
        await client.get("/no/such/page"),
        await client.post("/api/tables", content=b"not json"),
        await client.post("/api/logout", headers={"Origin": "https://evil.example"}),
        await register(client, "Ann", password="short"),
    ]
    statuses = sorted({r.status_code for r in responses})
    assert statuses == [200, 401, 403, 404, 422]
    for r in responses:
        assert r.headers.get("x-content-type-options") == "nosniff", (r.url, r.status_code)


async def test_a_request_body_that_cannot_be_read_gets_code_and_message(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/api/login", json={"name": 7})
    assert r.status_code == 422 and error(r) == "invalid_request"
    assert r.json()["detail"]["message"].startswith("body.")


def secure_cookie(response: httpx.Response) -> bool:
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("stud_session=")
    return "secure" in [part.strip().lower() for part in cookie.split(";")]


async def test_the_session_cookie_is_secure_over_https(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path)
    async with running(settings, "https://testserver") as (_, https):
        assert (await register(https)).status_code == 201
        assert secure_cookie(await login(https))
        assert secure_cookie(await https.post("/api/logout"))
    async with running(settings, "http://testserver") as (_, http):
        assert not secure_cookie(await login(http))
    forced = settings.model_copy(update={"session_cookie_secure": True})
    async with running(forced, "http://testserver") as (_, http):
        assert secure_cookie(await login(http))


async def test_behind_a_trusted_proxy_forwarded_https_makes_the_cookie_secure(db: Database) -> None:
    """A real uvicorn server: a proxy on 127.0.0.1 (uvicorn's default trusted address) says
    `X-Forwarded-Proto: https`."""
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, FakeClock()) as live, live.http() as http:
            assert (await register(http)).status_code == 201
            assert not secure_cookie(await login(http))
            behind = await http.post(
                "/api/login",
                json={"name": "Ann", "password": PASSWORD},
                headers={"X-Forwarded-Proto": "https"},
            )
            assert behind.status_code == 200 and secure_cookie(behind)
    finally:
        await fanout.close()


async def test_the_table_socket_and_http_refuse_the_same_foreign_origins(db: Database) -> None:
    """One rule (`security.from_this_site`) on both paths: what a state-changing HTTP request
    from another site is refused for, a table socket's handshake is refused for too, and
    what this site sends passes both."""
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, FakeClock()) as live:
            _user, token = await live.user("Ann")
            made = await live.create_table(token, name="Guarded", small_bet=100)
            socket = f"{live.ws_url}/ws/tables/{made['table']['id']}"
            bearer = {"Authorization": f"Bearer {token}"}
            async with live.http(token) as http:
                for headers in FOREIGN:
                    r = await http.post("/api/tables", json={"name": "X"}, headers=headers)
                    assert r.status_code == 403 and error(r) == "foreign_origin", headers
                    with pytest.raises(InvalidStatus) as refused:
                        async with connect(socket, additional_headers={**bearer, **headers}):
                            pass
                    assert refused.value.response.status_code == 403, headers
                same = {"Origin": live.url, "Sec-Fetch-Site": "same-origin"}
                r = await http.post("/api/tables", json={"name": "Y", "small_bet": 100},
                                    headers=same)  # fmt: skip
                assert r.status_code == 201, r.text
                async with connect(socket, additional_headers={**bearer, **same}):
                    pass
    finally:
        await fanout.close()


async def test_registrations_are_rate_limited_per_address(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path).model_copy(update={"registrations_per_ip": 3})
    async with running(settings) as (application, http):
        # a burst at once: the limit is taken before any of them waits on the database
        burst = await asyncio.gather(*(register(http, f"Ann{n}") for n in range(6)))
        assert sorted(r.status_code for r in burst) == [201] * 3 + [429] * 3
        refused = next(r for r in burst if r.status_code == 429)
        assert error(refused) == "rate_limited" and int(refused.headers["Retry-After"]) > 0
        assert await users(application) == 3  # three starting balances, no more
        late = await register(http, "Zed")
        assert late.status_code == 429 and error(late) == "rate_limited"
        made = [r.json()["name"] for r in burst if r.status_code == 201]
        assert (await login(http, made[0])).status_code == 200  # logging in is not limited
        transport = httpx.ASGITransport(app=application, client=("10.0.0.2", 40_000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
            assert (await register(other, "Zed")).status_code == 201  # another address
        assert await users(application) == 4


async def test_an_unexpected_error_is_a_500_with_code_message_and_nosniff(
    db_url: str, tmp_path: Path
) -> None:
    application = create_app(make_settings(db_url, tmp_path))

    @application.post("/api/test-fault")
    async def fault() -> None:
        raise RuntimeError("an injected fault")

    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            r = await http.post("/api/test-fault")
    assert r.status_code == 500 and error(r) == "internal_error"
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert "injected" not in r.text  # nothing of the server's insides
