"""Accounts over HTTP: register, log in (token and cookie), log out everywhere, refused
sessions, clear errors, rate-limited logins, the daily top-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.api.deps import CurrentUser
from app.main import create_app
from app.store import ledger
from app.store.db import Database
from app.store.errors import SchemaError
from app.store.migrate import schema_state
from tests.api.conftest import make_settings

PASSWORD = "correct horse battery"


async def register(client: httpx.AsyncClient, name: str = "Ann", **extra: str) -> httpx.Response:
    body = {"name": name, "password": PASSWORD, "email": f"{name.lower()}@example.com"} | extra
    return await client.post("/api/register", json=body)


async def login(
    client: httpx.AsyncClient, name: str = "Ann", password: str = PASSWORD
) -> httpx.Response:
    return await client.post("/api/login", json={"name": name, "password": password})


def error(response: httpx.Response) -> str:
    detail: dict[str, Any] = response.json()["detail"]
    assert detail["message"]
    code: str = detail["code"]
    return code


async def test_register_gives_the_starting_balance(client: httpx.AsyncClient) -> None:
    response = await register(client, "Ann", email="Ann@Example.COM")
    assert response.status_code == 201, response.text
    user = response.json()
    assert user["name"] == "Ann" and user["balance"] == 10_000 and user["seated"] == 0
    assert user["email"] == "Ann@example.com" and user["email_verified"] is False


async def test_registration_errors_are_clear(client: httpx.AsyncClient) -> None:
    assert (await register(client, "Ann")).status_code == 201
    taken = await register(client, "aNN")  # names are unique whatever the case
    assert taken.status_code == 409 and error(taken) == "name_taken"
    for password in ["short1!", "aaaaaaaaaaaa", "abababab", "password", "my-name-is-bob!"]:
        weak = await register(client, "Bob", password=password)
        assert weak.status_code == 422 and error(weak) == "weak_password", password
    for email in ["nobody", "a@b", "two@@example.com", "sp ace@example.com"]:
        bad = await register(client, "Bob", email=email)
        assert bad.status_code == 422 and error(bad) == "invalid_email", email
    for name in ["x", "has space", "-dash", "a" * 21, "émile"]:
        bad = await register(client, name)
        assert bad.status_code == 422 and error(bad) == "invalid_name", name


async def test_login_gives_a_token_and_an_http_only_cookie(client: httpx.AsyncClient) -> None:
    await register(client)
    response = await login(client, "ann")  # the name in any case
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "bearer" and body["user"]["name"] == "Ann"
    cookie = response.headers["set-cookie"]
    assert f"stud_session={body['token']}" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie

    headers = {"Authorization": f"Bearer {body['token']}"}
    client.cookies.clear()
    assert (await client.get("/api/me", headers=headers)).json()["name"] == "Ann"
    client.cookies.set("stud_session", body["token"])  # the browser's way
    assert (await client.get("/api/me")).json()["balance"] == 10_000


async def test_bad_credentials(client: httpx.AsyncClient) -> None:
    await register(client)
    wrong = await login(client, password="not the password")
    unknown = await login(client, name="nobody")
    assert wrong.status_code == unknown.status_code == 401
    assert error(wrong) == error(unknown) == "bad_credentials"
    assert wrong.json() == unknown.json()  # a name's existence is not revealed
    anonymous = await client.get("/api/me")
    assert anonymous.status_code == 401 and error(anonymous) == "not_authenticated"


async def test_logout_revokes_the_session_everywhere(client: httpx.AsyncClient) -> None:
    await register(client)
    first = (await login(client)).json()["token"]  # also in the client's cookie jar
    second = (await login(client)).json()["token"]  # another device
    client.cookies.clear()
    client.cookies.set("stud_session", first)

    out = await client.post("/api/logout")  # by cookie
    assert out.status_code == 200 and out.json() == {"ok": True}
    assert (
        'stud_session=""' in out.headers["set-cookie"] or "Max-Age=0" in out.headers["set-cookie"]
    )
    bearer = {"Authorization": f"Bearer {first}"}
    assert (await client.get("/api/me", headers=bearer)).status_code == 401
    client.cookies.set("stud_session", first)
    assert (await client.get("/api/me")).status_code == 401
    assert (await client.post("/api/logout")).status_code == 401
    client.cookies.clear()
    # the other session lives on until it logs out too, here by bearer token
    other = {"Authorization": f"Bearer {second}"}
    assert (await client.get("/api/me", headers=other)).status_code == 200
    assert (await client.post("/api/logout", headers=other)).status_code == 200
    assert (await client.get("/api/me", headers=other)).status_code == 401
    client.cookies.set("stud_session", second)
    assert (await client.get("/api/me")).status_code == 401


async def test_login_attempts_are_rate_limited(client: httpx.AsyncClient) -> None:
    await register(client)
    for _ in range(5):  # per name
        assert (await login(client, password="wrong password")).status_code == 401
    limited = await login(client)  # even the right password waits now
    assert limited.status_code == 429 and error(limited) == "rate_limited"
    assert int(limited.headers["retry-after"]) > 0
    for i in range(7):  # per address: 12 attempts from one client, whatever the names
        assert (await login(client, name=f"user{i}")).status_code == 401
    from_ip = await login(client, name="someone-else")
    assert from_ip.status_code == 429


async def test_a_good_login_resets_the_name_count(client: httpx.AsyncClient) -> None:
    await register(client)
    for _ in range(2):  # 8 misses in all, more than the 5 a name may have in a row
        for _ in range(4):
            assert (await login(client, password="wrong password")).status_code == 401
        assert (await login(client)).status_code == 200


async def test_daily_top_up_for_broke_players(client: httpx.AsyncClient, app: FastAPI) -> None:
    user_id = (await register(client)).json()["id"]
    token = (await login(client)).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    rich = await client.post("/api/me/topup", headers=headers)
    assert rich.status_code == 409 and error(rich) == "topup_not_allowed"

    db: Database = app.state.db
    async with db.transaction() as s:  # lose nearly everything
        player, house = await ledger.account_ids(s, ledger.player_code(user_id), "house")
        await ledger.transfer(s, {player: -9_900, house: 9_900}, key="lost-it-all")
    granted = await client.post("/api/me/topup", headers=headers)
    assert granted.status_code == 200, granted.text
    assert granted.json() == {"granted": 2_000, "balance": 2_100}
    again = await client.post("/api/me/topup", headers=headers)
    assert again.status_code == 409 and error(again) == "topup_already_claimed"
    assert (await client.get("/api/me", headers=headers)).json()["balance"] == 2_100


def test_websockets_authenticate_by_query_token(db_url: str, tmp_path: Path) -> None:
    application = create_app(make_settings(db_url, tmp_path))

    @application.websocket("/ws/test-whoami")
    async def whoami(websocket: WebSocket, user: CurrentUser) -> None:
        await websocket.accept()
        await websocket.send_json({"name": user.name})
        await websocket.close()

    with TestClient(application) as http:
        body = {"name": "Ann", "password": PASSWORD, "email": "ann@example.com"}
        assert http.post("/api/register", json=body).status_code == 201
        token = http.post("/api/login", json=body).json()["token"]
        http.cookies.clear()
        bearer = {"Authorization": f"Bearer {token}"}
        with http.websocket_connect("/ws/test-whoami", headers=bearer) as ws:
            assert ws.receive_json() == {"name": "Ann"}
        for url, headers in (
            ("/ws/test-whoami", {"Authorization": "Bearer forged"}),
            # never a token in a URL: access logs and proxies keep URLs
            (f"/ws/test-whoami?token={token}", {}),
        ):
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                http.websocket_connect(url, headers=headers) as ws,
            ):
                ws.receive_json()
            assert refused.value.code == 1008
        assert http.get(f"/api/me?token={token}").status_code == 401


async def test_the_app_migrates_its_database_at_start(empty_db_url: str, tmp_path: Path) -> None:
    application = create_app(make_settings(empty_db_url, tmp_path))
    async with application.router.lifespan_context(application):
        db: Database = application.state.db
        assert (await schema_state(db)).up_to_date


async def test_the_app_refuses_a_database_newer_than_its_code(
    db: Database, db_url: str, tmp_path: Path
) -> None:
    async with db.transaction() as s:
        await s.execute(text("UPDATE alembic_version SET version_num = 'f00d'"))
    application = create_app(make_settings(db_url, tmp_path))
    with pytest.raises(SchemaError, match="newer than this server"):
        async with application.router.lifespan_context(application):
            pass
