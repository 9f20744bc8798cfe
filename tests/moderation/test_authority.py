"""Authority: every admin route (enumerated from the app's router, so a new one cannot be
forgotten) refuses a player, a forged role, a revoked operator's open session and a
request from another site, and changes nothing."""

from __future__ import annotations

import re

from app.main import create_app
from tests.moderation.support import banned, log, operator
from tests.tables.live import Live

ADMIN = "/api/admin"


def admin_routes() -> list[tuple[str, str]]:
    """(method, path) of every route under /api/admin the app serves (its OpenAPI paths:
    the app's router, whatever includes it)."""
    found = [
        (method.upper(), path)
        for path, operations in create_app().openapi()["paths"].items()
        if path.startswith(ADMIN)
        for method in sorted(operations)
    ]
    assert len(found) >= 12, found  # the page's routes are all here
    return found


def filled(path: str, user_id: int) -> str:
    return re.sub(r"\{[a-z_]+\}", str(user_id), path)


FORGED = {"role": "operator", "operator": True, "reason": "forged", "amount": 5, "key": "k1"}


async def test_every_admin_route_refuses_a_player(live: Live) -> None:
    victim, _ = await live.user("Vic")
    _, token = await live.user("Pat")
    balance = await live.balance(victim)
    async with live.http(token) as http:
        for method, path in admin_routes():
            url = filled(path, victim)
            # a forged role in the body, a header and the query: none is read
            r = await http.request(
                method,
                url,
                params={"role": "operator"},
                headers={"X-Role": "operator"},
                json=FORGED if method == "POST" else None,
            )
            assert r.status_code == 403, (method, url, r.text)
            assert r.json()["detail"] == {
                "code": "not_operator",
                "message": "Only an operator may do that",
            }
        async with live.http() as anonymous:
            for method, path in admin_routes():
                r = await anonymous.request(method, filled(path, victim), json={})
                assert r.status_code == 401, (method, path)
    assert await live.balance(victim) == balance
    assert not await banned(live, victim)
    assert await log(live) == []


async def test_a_revoked_operators_open_session_loses_the_role(live: Live) -> None:
    from app.store import moderation

    victim, _ = await live.user("Vic")
    _, token = await operator(live)
    async with live.http(token) as http:
        assert (await http.get(f"{ADMIN}/me")).status_code == 200
        async with live.db.transaction() as s:
            await moderation.set_role(s, "Olga", moderation.PLAYER)
        r = await http.post(f"{ADMIN}/players/{victim}/ban", json={"reason": "x"})
        assert r.status_code == 403
        assert r.json()["detail"]["code"] == "not_operator"
    assert not await banned(live, victim)
    assert [line["action"] for line in await log(live)] == ["revoke", "grant"]


async def test_a_request_from_another_site_changes_nothing(live: Live) -> None:
    victim, _ = await live.user("Vic")
    _, token = await operator(live)
    cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    async with live.http(token) as http:
        for method, path in admin_routes():
            if method != "POST":
                continue
            r = await http.post(filled(path, victim), json=FORGED, headers=cross)
            assert r.status_code == 403, path
            assert r.json()["detail"]["code"] == "foreign_origin"
    assert not await banned(live, victim)
    assert [line["action"] for line in await log(live)] == ["grant"]
