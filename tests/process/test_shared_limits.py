"""Rate limits across processes: two real server processes on one PostgreSQL and
one Redis count login attempts and sign-ups together. Attempts spread over both get no more
than one process's limit: the next one, on either, is refused with 429."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.serverproc import PASSWORD, free_port, server, server_env

ATTEMPTS = 3  # login attempts per name (LOGIN_ATTEMPTS_PER_NAME)
SIGN_UPS = 3  # new accounts per address (REGISTRATIONS_PER_IP)


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    name = pg_server.new_database(template=pg_server.template)
    try:
        yield pg_server.url_for(name)
    finally:
        pg_server.drop(name)


def _sign_up(http: httpx.Client, name: str) -> httpx.Response:
    return http.post(
        "/api/register",
        json={"name": name, "password": PASSWORD, "email": f"{name}@example.com"},
    )


def _log_in(http: httpx.Client, name: str, password: str) -> httpx.Response:
    return http.post("/api/login", json={"name": name, "password": password})


@pytest.mark.postgresql
def test_two_processes_share_the_login_and_sign_up_limits(
    tmp_path: Path,
    pg_url: str,
    redis_url: str,  # noqa: F811
) -> None:
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    env_a, env_b = (
        server_env(
            tmp_path / d,
            DATABASE_URL=pg_url,
            REDIS_URL=redis_url,
            REDIS_NAMESPACE=namespace,
            LOGIN_ATTEMPTS_PER_NAME=str(ATTEMPTS),
            REGISTRATIONS_PER_IP=str(SIGN_UPS),
        )
        for d in ("a", "b")
    )
    port_a, port_b = free_port(), free_port()
    try:
        with (
            server(tmp_path, port_a, tmp_path / "a.log", env_a),
            server(tmp_path, port_b, tmp_path / "b.log", env_b),
            httpx.Client(base_url=f"http://127.0.0.1:{port_a}") as a,
            httpx.Client(base_url=f"http://127.0.0.1:{port_b}") as b,
        ):
            # sign-ups from one address, taken turn about: the limit holds for both together
            for i, http in enumerate([a, b, a]):
                assert _sign_up(http, f"player{i}").status_code == 201
            refused = _sign_up(b, "player3")
            assert refused.status_code == 429, refused.text
            assert refused.json()["detail"]["code"] == "rate_limited"

            for http in [a, b, a]:  # wrong passwords for one name, spread over both
                assert _log_in(http, "player0", "wrong password").status_code == 401
            refused = _log_in(b, "player0", PASSWORD)  # even the right one waits now
            assert refused.status_code == 429, refused.text
            assert int(refused.headers["retry-after"]) > 0
            assert _log_in(a, "player0", PASSWORD).status_code == 429
            assert _log_in(b, "player1", PASSWORD).status_code == 200  # another name
    finally:
        with redis.Redis.from_url(redis_url) as admin:
            keys = list(admin.scan_iter(match=f"{namespace}:*"))
            if keys:
                admin.delete(*keys)
