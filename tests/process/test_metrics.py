"""Metrics under play, from real processes (issue 25): a server process with `METRICS_PORT`
serves `/metrics` there while a bot table plays (parsed by prometheus_client's own text
parser), and not on its public port; Debian's `promtool` accepts deploy/prometheus's
configuration (as committed, and the test copy with loopback targets) and its rules, whose
unit tests (`promtool test rules`) pass; a real Debian `prometheus` scrapes three real
server processes and answers the sum of their tables.

Everything is on loopback; nothing waits by sleeping: each wait polls for a condition. The
Prometheus programs are Debian's (scripts/ensure-debian-packages installs them); without
them these tests skip on a developer's machine and fail with CI=true."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import PgServer, unavailable
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.process.cluster import cluster, until
from tests.serverproc import Player, free_port, register, server, server_env

pytestmark = [pytest.mark.xdist_group("cluster")]

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_DIR = ROOT / "deploy" / "prometheus"
BOUNDED_LABELS = {"state", "kind", "op", "outcome", "what", "le"}
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def program(name: str) -> str:
    """Debian's `prometheus` or `promtool`, or a skip (a failure with CI=true)."""
    found = shutil.which(name) or (
        f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
    )
    if found is None:
        unavailable(f"{name} is not installed (Debian's prometheus package)")
    return found


def parse(text: str) -> Samples:
    """Every sample of a /metrics page, by name and labels, read by prometheus_client."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def total(samples: Samples, name: str) -> float:
    return sum(v for (n, _), v in samples.items() if n == name)


async def scrape(port: int) -> Samples:
    async with httpx.AsyncClient() as http:
        r = await http.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
    assert r.status_code == 200, r.text
    return parse(r.text)


async def test_a_bot_table_moves_the_metrics_on_their_own_port_only(tmp_path: Path) -> None:
    port, metrics_port = free_port(), free_port()
    env = server_env(
        tmp_path / "d", BOTS_PLAY_ALONE="true", METRICS_PORT=str(metrics_port), LOG_FORMAT="json"
    )
    log = tmp_path / "server.log"
    with server(tmp_path, port, log, env):
        before = await scrape(metrics_port)
        assert total(before, "stud_hands_dealt_total") == 0
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            host, token = await register(http, "ann")
            http.headers["Authorization"] = f"Bearer {token}"
            made = await http.post(
                "/api/tables",
                json={"name": "Bots", "small_bet": 100, "ante": 10, "hand_pause_ms": 500,
                      "bot_delay_ms": 100},
            )  # fmt: skip
            assert made.status_code == 201, made.text
            table_id = int(made.json()["table"]["id"])
            public = await http.get("/metrics")
            assert public.status_code == 404  # never on the public port
        watcher = await Player.connect(port, table_id, token, host)
        watcher.acting = False
        try:
            await watcher.wait(lambda f: f.get("type") == "snapshot")
            assert (await watcher.call({"type": "host_bots", "count": 3}))["type"] == "ok"

            async def played() -> Samples | None:
                now = await scrape(metrics_port)
                dealt = total(now, "stud_hands_dealt_total")
                acted = total(now, "stud_action_publish_seconds_count")
                return now if dealt >= 2 and acted > 0 else None

            after = await until(played, "two hands dealt and actions timed", timeout=90)
        finally:
            await watcher.close()
    assert total(after, "stud_tables") == 1  # one table, in whatever state it is
    buckets = [v for (n, _), v in after.items() if n == "stud_action_publish_seconds_bucket"]
    assert max(buckets) == total(after, "stud_action_publish_seconds_count")
    assert total(after, "stud_event_frames_sent_total") > 0
    assert total(after, "stud_event_bytes_sent_total") > total(
        after, "stud_event_frames_sent_total"
    )
    assert total(after, "stud_lease_claims_total") >= 1  # the table, made here
    for name, labels in after:
        assert name.startswith(("stud_", "process_")), name
        assert {key for key, _ in labels} <= BOUNDED_LABELS, (name, labels)  # no table/user
    lines = [json.loads(line) for line in log.read_text().splitlines()]  # LOG_FORMAT=json
    assert lines[0]["message"].startswith("Stud server on http://127.0.0.1:")
    assert all(line["level"] and line["logger"] for line in lines)


def test_promtool_accepts_the_committed_config_and_rules(tmp_path: Path) -> None:
    """`check config` (as committed, and the loopback copy), `check rules`, and the rules'
    unit tests (deploy/prometheus/rules_test.yml: each alert fires when it should)."""
    promtool = program("promtool")
    test_copy = loopback_config(tmp_path, [free_port() for _ in range(3)])
    for args in (
        ["check", "config", str(PROMETHEUS_DIR / "prometheus.yml")],
        ["check", "config", str(test_copy)],
        ["check", "rules", str(PROMETHEUS_DIR / "rules.yml")],
        ["test", "rules", str(PROMETHEUS_DIR / "rules_test.yml")],  # each alert fires as meant
    ):
        done = subprocess.run(
            [promtool, *args], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)


def loopback_config(tmp_path: Path, ports: list[int]) -> Path:
    """deploy/prometheus/prometheus.yml with its `# test:` line changed: static loopback
    targets for Docker's DNS, scraped every second; its rules the committed file."""
    config: dict[str, Any] = yaml.safe_load((PROMETHEUS_DIR / "prometheus.yml").read_text())
    config["global"].update(scrape_interval="1s", evaluation_interval="1s")
    config["rule_files"] = [str(PROMETHEUS_DIR / name) for name in config["rule_files"]]
    (job,) = config["scrape_configs"]
    del job["dns_sd_configs"]
    job["static_configs"] = [{"targets": [f"127.0.0.1:{p}" for p in ports]}]
    path = tmp_path / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


@contextmanager
def prometheus(tmp_path: Path, targets: list[int]) -> Iterator[str]:
    """A real Prometheus (Debian's) on a free loopback port, scraping `targets`, with its
    own storage; yields its address, and stops it by its process id."""
    binary = program("prometheus")
    port = free_port()
    log = (tmp_path / "prometheus.log").open("wb")
    proc = subprocess.Popen(
        [
            binary,
            f"--config.file={loopback_config(tmp_path, targets)}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


async def query(address: str, promql: str) -> float | None:
    """The one value of an instant query, or None (no answer yet, or no series)."""
    try:
        async with httpx.AsyncClient() as http:
            r = await http.get(f"{address}/api/v1/query", params={"query": promql}, timeout=5)
    except httpx.HTTPError:
        return None  # not listening yet
    if r.status_code != 200:
        return None
    result = r.json()["data"]["result"]
    return float(result[0]["value"][1]) if result else None


@pytest.mark.postgresql
async def test_prometheus_scrapes_three_processes_and_sums_their_tables(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    ports = [free_port() for _ in range(3)]
    each = {i: {"METRICS_PORT": str(p)} for i, p in enumerate(ports)}
    async with cluster(tmp_path, pg_server, redis_url, each=each) as c:
        _, token = await c.user(0, "ann")
        for i in range(3):  # one table asked of each process
            await c.create(i, token)
        with prometheus(tmp_path, ports) as address:

            async def all_up_and_summed() -> bool:
                up = await query(address, 'count(up{job="stud"} == 1)')
                tables = await query(address, 'sum(stud_tables{job="stud"})')
                return up == 3 and tables == 3

            await until(all_up_and_summed, "Prometheus sums three processes' tables", 60)
            per_process = [total(await scrape(p), "stud_tables") for p in ports]
            assert sum(per_process) == 3, per_process


def test_deploy_nginx_never_reaches_the_metrics_port() -> None:
    """nginx proxies the public port alone: no metrics port, no /metrics of its own."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    metrics_port = str(compose["services"]["app"]["environment"]["METRICS_PORT"])
    conf = (ROOT / "deploy" / "nginx" / "nginx.conf").read_text()
    assert f":{metrics_port}" not in conf and "/metrics" not in conf
    app_port = str(compose["services"]["app"]["environment"]["PORT"])
    assert f"http://app:{app_port};" in conf
