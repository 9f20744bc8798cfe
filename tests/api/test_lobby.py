"""The lobby is built like every other route: the services, the player and the settings come
from `app.state` through `app.api.deps`, and every refusal is `{code, message}`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.store.db import Database
from app.store.models import PokerTable, User
from tests.api.conftest import make_settings
from tests.api.test_accounts import login, register
from tests.api.test_site_guard import running
from tests.tables.live import Live


def refusal(response: httpx.Response) -> tuple[int, str]:
    detail: Any = response.json()["detail"]
    assert isinstance(detail, dict) and set(detail) == {"code", "message"}, response.text
    assert isinstance(detail["message"], str) and detail["message"]
    return response.status_code, detail["code"]


async def test_every_lobby_refusal_has_a_code_and_a_message(live: Live) -> None:
    _, host_token = await live.user("host")
    _, guest_token = await live.user("guest")
    private = await live.create_table(
        host_token, name="Secret", small_bet=100, private=True, password="hunter22"
    )
    public = await live.create_table(host_token, name="Open", small_bet=100)
    secret_id, open_id = private["table"]["id"], public["table"]["id"]
    async with live.http() as anyone, live.http(guest_token) as guest:
        cases = [
            (await anyone.get("/api/tables/mine"), (401, "not_authenticated")),
            (await anyone.get("/api/tables", params={"mine": 1}), (401, "not_authenticated")),
            (await anyone.post("/api/tables", json={"name": "x"}), (401, "not_authenticated")),
            (await guest.get("/api/tables/999999"), (404, "no_such_table")),
            (await guest.get(f"/api/tables/{secret_id}"), (404, "no_such_table")),
            (await guest.post("/api/tables/join", json={"invite": "nope"}), (404, "no_such_table")),
            (
                await guest.post(
                    "/api/tables/join", json={"invite": private["invite"], "password": "wrong"}
                ),
                (403, "bad_password"),
            ),
            (
                await guest.post(
                    f"/api/tables/{open_id}/host", json={"type": "host_pause", "paused": True}
                ),
                (403, "not_host"),
            ),
            (
                await guest.post(f"/api/tables/{secret_id}/host", json={"type": "host_close"}),
                (404, "no_such_table"),
            ),
            (
                await guest.post(f"/api/tables/{open_id}/host", json={"type": "host_explode"}),
                (422, "invalid_request"),
            ),
            (
                await guest.post(
                    f"/api/tables/{open_id}/host", json={"type": "host_bots", "count": 1.0}
                ),
                (422, "invalid_request"),
            ),
            (await guest.get("/api/hands/ffffffffffffffff"), (404, "no_such_hand")),
        ]  # fmt: skip
        for response, expected in cases:
            assert refusal(response) == expected, (response.request.url, response.text)
    async with live.http(host_token) as host:
        removing = await host.post(f"/api/tables/{open_id}/host", json={"type": "host_remove"})
        assert refusal(removing) == (422, "invalid_request")
        assert (await host.get(f"/api/tables/{secret_id}")).status_code == 200
    assert not live.table(open_id).state.life.paused and not live.table(secret_id).closed


async def test_the_lobby_reads_the_apps_own_settings(db_url: str, tmp_path: Path) -> None:
    """The session cookie's name is this app's setting (not the process environment's)."""
    settings = make_settings(db_url, tmp_path).model_copy(
        update={"session_cookie_name": "other_session"}
    )
    async with running(settings) as (_, http):
        assert (await register(http)).status_code == 201
        logged_in = await login(http)
        assert logged_in.cookies.get("other_session")
        mine = await http.get("/api/tables/mine")  # the cookie only, no bearer token
        assert mine.status_code == 200 and mine.json() == {"tables": []}
        made = await http.post("/api/tables", json={"name": "Mine", "small_bet": 100})
        assert made.status_code == 201, made.text
        assert [t["name"] for t in (await http.get("/api/tables/mine")).json()["tables"]] == [
            "Mine"
        ]


def argon2_cost(encoded: str) -> dict[str, int]:
    """The m=, t= and p= an argon2 hash was made with (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`)."""
    variant, _version, params = encoded.split("$")[1:4]
    assert variant == "argon2id", encoded
    return {k: int(v) for k, v in (pair.split("=") for pair in params.split(","))}


async def test_a_table_password_is_hashed_at_the_sites_argon2_cost(
    db_url: str, tmp_path: Path
) -> None:
    """The site's ARGON2_* settings (here neither the defaults nor the tests' cheap ones) are
    the cost of a private table's password, as of an account's."""
    settings = make_settings(db_url, tmp_path).model_copy(
        update={"argon2_time_cost": 2, "argon2_memory_kib": 12_288, "argon2_parallelism": 3}
    )
    want = {"m": 12_288, "t": 2, "p": 3}
    async with running(settings) as (application, http):
        assert (await register(http)).status_code == 201
        assert (await login(http)).status_code == 200
        made = await http.post(
            "/api/tables",
            json={"name": "Secret", "small_bet": 100, "private": True, "password": "hunter22"},
        )
        assert made.status_code == 201, made.text
        db: Database = application.state.db
        async with db.session() as s:
            table_hash = await s.scalar(
                select(PokerTable.password_hash).where(PokerTable.id == made.json()["table"]["id"])
            )
            user_hash = await s.scalar(select(User.password_hash))
        assert table_hash is not None and user_hash is not None
        assert argon2_cost(table_hash) == want == argon2_cost(user_hash)
        # and it is the password that admits a guest
        assert (await register(http, "Guest")).status_code == 201
        assert (await login(http, "Guest")).status_code == 200
        invite = made.json()["invite"]
        wrong = await http.post("/api/tables/join", json={"invite": invite, "password": "nope"})
        assert refusal(wrong) == (403, "bad_password")
        right = await http.post("/api/tables/join", json={"invite": invite, "password": "hunter22"})
        assert right.status_code == 200, right.text


async def test_an_invite_names_its_table_and_its_host_to_anyone_and_nothing_more(
    live: Live,
) -> None:
    """Issue 24: the login page of an invite opened logged out says "Anna invited you to
    Friday": the table's name and its host's, for a valid invite only."""
    _, host_token = await live.user("Anna")
    private = await live.create_table(
        host_token, name="Friday", small_bet=100, private=True, password="hunter22"
    )
    invite = private["invite"]
    async with live.http() as anyone:  # logged out
        got = await anyone.get(f"/api/tables/invite/{invite}")
        assert got.status_code == 200 and got.json() == {"table": "Friday", "host": "Anna"}
        forged = [invite[:-1], invite + "x", invite.upper(), "é" * len(invite), "x" * 129, "1"]
        for token in forged:
            refused = await anyone.get(f"/api/tables/invite/{token}")
            assert refusal(refused) == (404, "no_such_invite"), token
            assert "Friday" not in refused.text and "Anna" not in refused.text
    async with live.http(host_token) as host:
        closing = {"type": "host_close"}
        r = await host.post(f"/api/tables/{private['table']['id']}/host", json=closing)
        assert r.status_code == 200, r.text
    async with live.http() as anyone:
        gone = await anyone.get(f"/api/tables/invite/{invite}")
        assert refusal(gone) == (404, "no_such_invite")
