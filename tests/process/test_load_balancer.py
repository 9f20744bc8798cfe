"""Deployment: what docker-compose.yml runs, as plain processes. Three server
processes (`python -m app serve`) on one PostgreSQL database and one Redis namespace, and a
real nginx running the committed deploy/nginx/nginx.conf (tests/nginxproc.py rewrites only
its paths, ports and DNS server).

As in compose, the replicas are one name, `app`, with one address each: they listen on
127.0.0.2, .3 and .4 at one port, and a DNS server on loopback (tests/dnsstub.py) answers
`app` with the three addresses, as Docker's DNS does; nginx resolves it itself (its
`resolver`), so what is tested is the committed routing. The checks:
- /health through nginx, and requests spread over all three replicas;
- nginx replaces the forwarded headers a client claims, and uvicorn believes nginx's;
- a WebSocket upgrade through nginx, and two players whose sockets land on different
  replicas sit and play a whole hand at one table;
- SIGTERM of one replica (it drains and exits, its address still in DNS, as before Docker
  drops it): every health check through nginx answers meanwhile, and a new login works.
Which replica served a request is read from the replicas' own access logs: each request
carries a unique marker in its query string."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.store.db import Database
from app.store.lease_models import ServerProcess, TableLease
from tests.conftest import PgServer
from tests.dnsstub import dns_server
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.nginxproc import nginx, nginx_binary
from tests.serverproc import (
    Frame,
    Player,
    free_port,
    ledger_check,
    open_socket,
    register,
    server,
    server_env,
)

# one xdist worker runs the module: its tests share the processes, the last one stops one
pytestmark = [pytest.mark.postgresql, pytest.mark.xdist_group("load_balancer")]

HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")  # the replicas' addresses behind `app`
CLIENT = "127.0.0.9"  # the test's own address as a client of nginx
DRAIN = 10.0  # seconds: DRAIN_SECONDS for the replicas
# a player's own moves, as the table tells everyone (a timed-out turn is not one)
ACTS = frozenset({"brought_in", "completed", "bet", "raised", "called", "checked", "folded",
                  "hand_shown", "hand_mucked"})  # fmt: skip


@dataclass
class Cluster:
    url: str  # nginx
    port: int  # nginx's
    env: dict[str, str]
    replicas: list[subprocess.Popen[bytes]]
    logs: list[Path]
    nginx_log: Path  # its error log

    async def served_by(self, marker: str, timeout: float = 10) -> int:
        """The replica whose access log names `marker` (exactly one must)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [i for i, log in enumerate(self.logs) if marker in log.read_text()]
            if found:
                assert len(found) == 1, f"{marker} on several replicas: {found}"
                return found[0]
            assert time.monotonic() < deadline, f"no replica logged {marker}"
            await asyncio.sleep(0.05)  # an access line may land just after the reply


def _port_free_on(hosts: tuple[str, ...]) -> int:
    """A port free on every one of `hosts`: the replicas share one, as in compose."""
    while True:
        port = free_port()
        try:
            for host in hosts:
                with socket.socket() as s:
                    s.bind((host, port))
        except OSError:
            continue
        return port


@pytest.fixture(scope="module")
def cluster(
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    binary = nginx_binary()  # before anything starts: without it, skipped (failed in CI)
    tmp = tmp_path_factory.mktemp("load-balancer")
    name = pg_server.new_database(template=pg_server.template)
    env = server_env(
        tmp / "data", DATABASE_URL=pg_server.url_for(name), REDIS_URL=redis_url,
        REDIS_NAMESPACE=f"test-{uuid.uuid4().hex[:12]}", LEASE_SECONDS="2",
        HEARTBEAT_SECONDS="0.5", DRAIN_SECONDS=str(DRAIN),
        PYTHONUNBUFFERED="1",  # the access logs are read while the servers run
    )  # fmt: skip
    app_port = _port_free_on(HOSTS)
    port = free_port()
    logs = [tmp / f"replica-{i}.log" for i in range(len(HOSTS))]
    try:
        with ExitStack() as stack:
            starting = [
                server(tmp / "data", app_port, log, env, host=host)
                for host, log in zip(HOSTS, logs, strict=True)
            ]
            with ThreadPoolExecutor(len(starting)) as pool:  # all three start at once
                replicas = list(pool.map(stack.enter_context, starting))
            dns_port = stack.enter_context(dns_server("app", list(HOSTS)))
            stack.enter_context(nginx(binary, tmp / "nginx", port, dns_port, app_port))
            yield Cluster(
                f"http://127.0.0.1:{port}", port, env, replicas, logs, tmp / "nginx" / "error.log"
            )
    finally:
        pg_server.drop(name)


def _client(cluster: Cluster) -> httpx.AsyncClient:
    """A client of nginx from its own loopback address (CLIENT)."""
    transport = httpx.AsyncHTTPTransport(local_address=CLIENT)
    return httpx.AsyncClient(base_url=cluster.url, transport=transport, timeout=10)


def _marker() -> str:
    return f"probe-{uuid.uuid4().hex[:12]}"


async def test_health_through_nginx_spreads_over_the_replicas(cluster: Cluster) -> None:
    served: list[int] = []
    async with _client(cluster) as http:
        for _ in range(45):  # nginx starts each request at a random address of the three
            marker = _marker()
            r = await http.get(f"/health?{marker}")
            assert r.status_code == 200 and r.json() == {"status": "ok"}, r.text
            served.append(await cluster.served_by(marker))
    assert set(served) == {0, 1, 2}, served


async def test_nginx_forwards_the_client_address_and_scheme_it_saw(cluster: Cluster) -> None:
    """What a client claims is replaced; what nginx says, uvicorn believes."""
    marker = _marker()
    async with _client(cluster) as http:
        r = await http.get(
            f"/health?{marker}",
            headers={"X-Forwarded-For": "10.1.2.3", "X-Forwarded-Proto": "https"},
        )
        assert r.status_code == 200
        log = cluster.logs[await cluster.served_by(marker)].read_text()
        # uvicorn's access line: `<client>:<port> - "GET <path> HTTP/1.1" 200`
        found = re.search(rf'(\S+):\d+ - "GET /health\?{marker} ', log)
        assert found is not None, log
        assert found[1] == CLIENT  # not nginx's own address, nor the claimed one
        # the scheme: a login over plain http sets no Secure cookie, whatever the client says
        await http.post(
            "/api/register",
            json={"name": "proto", "password": "a long pass phrase", "email": "p@example.com"},
        )
        r = await http.post(
            "/api/login",
            json={"name": "proto", "password": "a long pass phrase"},
            headers={"X-Forwarded-Proto": "https"},
        )
        assert r.status_code == 200, r.text
        cookie = r.headers["set-cookie"]
        assert "stud_session=" in cookie and "secure" not in cookie.lower(), cookie


async def _table(http: httpx.AsyncClient, token: str) -> int:
    r = await http.post(
        "/api/tables",
        headers={"Authorization": f"Bearer {token}"},
        json={"name": "Balanced", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
              "action_timer_ms": 60_000},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    return int(r.json()["table"]["id"])


async def _running_tables(url: str, table_id: int | None = None) -> set[int]:
    """The pids of the processes that run a table (or table `table_id`)."""
    db = Database(url)
    try:
        async with db.session() as s:
            pids = select(ServerProcess.pid).join(TableLease, TableLease.owner == ServerProcess.id)
            if table_id is not None:
                pids = pids.where(TableLease.table_id == table_id)
            return set(await s.scalars(pids))
    finally:
        await db.dispose()


async def _first_hand(p: Player) -> list[Frame]:
    """The frames of the first hand `p` sees, from `hand_started` to `hand_ended`."""
    started = await p.wait(lambda f: f.get("type") == "hand_started", timeout=30)
    at = p.frames.index(started)
    ended = await p.wait(
        lambda f: f.get("type") == "hand_ended" and f.get("hand_id") == started["hand_id"],
        timeout=30,
        start=at,
    )
    return p.frames[at : p.frames.index(ended) + 1]


async def test_players_on_different_replicas_play_a_hand_at_one_table(cluster: Cluster) -> None:
    async with _client(cluster) as http:
        ann, ann_token = await register(http, "ann")
        bob, bob_token = await register(http, "bob")
        table_id = await _table(http, ann_token)
    runs = await _running_tables(cluster.env["DATABASE_URL"], table_id)
    (owner,) = [i for i, r in enumerate(cluster.replicas) if r.pid in runs]

    async def land(token: str, user_id: int, avoid: set[int]) -> tuple[Player, int]:
        """A socket through nginx, on a replica not in `avoid`: nginx picks at random, so a
        socket that lands on one of them is closed and opened again."""
        for _ in range(40):
            marker = _marker()
            ws = await open_socket(cluster.port, table_id, token, f"?{marker}")
            where = await cluster.served_by(marker)
            if where not in avoid:
                return Player(ws, user_id), where
            await ws.close()
        raise AssertionError(f"nginx sent no socket to a replica outside {avoid}")

    players: list[Player] = []
    try:
        # both on replicas that do not run the table, each on its own: every command of
        # either player travels from its replica to the owner
        first, at_ann = await land(ann_token, ann, {owner})
        players.append(first)
        second, _ = await land(bob_token, bob, {owner, at_ann})
        players.append(second)
        for seat, p in enumerate(players):
            await p.wait(lambda f: f.get("type") == "snapshot")
            p.seat = seat
            reply = await p.call({"type": "sit", "seat": seat, "amount": 2000, "request_id": "s"})
            assert reply["type"] == "ok", reply
        hands = [await _first_hand(p) for p in players]
        assert hands[0][0]["hand_id"] == hands[1][0]["hand_id"]  # one hand, seen by both
        for played in hands:
            # each player's own commands reached the table, through whichever replica
            assert {f["seat"] for f in played if f.get("type") in ACTS} == {0, 1}, played
            assert not [f for f in played if f.get("type") == "timed_out"], played
    finally:
        for p in players:
            await p.close()
    check = await asyncio.to_thread(ledger_check, cluster.env)
    assert check.returncode == 0, check.stdout + check.stderr


async def test_sigterm_of_a_replica_while_nginx_serves_on(cluster: Cluster) -> None:
    """The stopped replica drains and exits; its address stays in DNS (as before Docker
    drops it), so nginx meets a refused connection and passes the request on. It is one
    that runs no table, so its drain is short (a table's handover: test_failover.py)."""
    busy = await _running_tables(cluster.env["DATABASE_URL"])
    at = next(i for i, r in enumerate(cluster.replicas) if r.pid not in busy)
    stopped = cluster.replicas[at]
    stopped.send_signal(signal.SIGTERM)
    answered = 0

    def refused() -> bool:  # nginx met the stopped replica's closed port
        log = cluster.nginx_log.read_text()
        return "Connection refused" in log and f"{HOSTS[at]}:" in log

    async with _client(cluster) as http:
        deadline = time.monotonic() + DRAIN + 30
        after_exit = 0
        # through the drain, and on after the exit until nginx has tried the stopped replica
        while after_exit < 20 or not refused():
            r = await http.get("/health")
            assert r.status_code == 200, (r.status_code, r.text)
            answered += 1
            if stopped.poll() is not None:
                after_exit += 1
            assert time.monotonic() < deadline, "the replica did not exit after its drain"
            await asyncio.sleep(0.05)  # a steady trickle of checks, not a busy loop
        assert stopped.returncode in (0, -signal.SIGTERM)
        for n in range(3):  # whichever replica nginx tries first
            _, token = await register(http, f"late{n}")
            r = await http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
    print(f"{answered} health checks through nginx, all answered")
