"""docker-compose.yml gives the app exactly settings it reads: PostgreSQL through asyncpg,
Redis, each service with a healthcheck, the app started only once its services are healthy.
The app runs as three replicas behind nginx (deploy/nginx/nginx.conf, which
tests/process/test_load_balancer.py runs for real): no host port of their own, time to
drain on a stop, nginx upgrading WebSockets and finding the replicas by name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from app.config import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
NGINX_CONF = ROOT / "deploy" / "nginx" / "nginx.conf"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):  # the `- KEY=value` form
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def test_every_variable_the_app_gets_is_a_setting(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["app"])
    unknown = [key for key in env if key.lower() not in Settings.model_fields]
    assert not unknown, f"docker-compose.yml sets variables the app never reads: {unknown}"


def test_the_settings_it_gives_parse_and_point_at_the_services(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = compose["services"]
    env = _env(services["app"])
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    no_dotenv: dict[str, Any] = {"_env_file": None}
    settings = Settings(**no_dotenv)

    url = make_url(settings.effective_database_url)
    assert url.drivername == "postgresql+asyncpg"
    db_env = _env(services["db"])
    assert url.host == "db" and url.port == 5432
    assert (url.username, url.password, url.database) == (
        db_env["POSTGRES_USER"],
        db_env["POSTGRES_PASSWORD"],
        db_env["POSTGRES_DB"],
    )
    assert settings.fanout_url.startswith("redis://redis:")
    assert settings.host == "0.0.0.0"
    assert str(settings.port) in services["app"]["expose"]
    # behind nginx, whose address on the compose network is not fixed
    assert settings.forwarded_allow_ips == "*"


def test_healthchecks_and_start_order(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("app", "nginx", "db", "redis"):
        assert services[name]["healthcheck"]["test"], name
    depends = services["app"]["depends_on"]
    assert depends["db"]["condition"] == depends["redis"]["condition"] == "service_healthy"
    assert services["nginx"]["depends_on"]["app"]["condition"] == "service_healthy"


def _seconds(duration: str) -> float:
    """A compose duration such as `45s`, `1m30s`."""
    units = {"h": 3600, "m": 60, "s": 1}
    parts = re.findall(r"(\d+(?:\.\d+)?)([hms])", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def test_three_replicas_with_time_to_drain(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = compose["services"]["app"]
    assert app["deploy"]["replicas"] == 3
    assert "ports" not in app  # a fixed host port would let only one replica start
    for key, value in _env(app).items():
        monkeypatch.setenv(key, value)
    no_dotenv: dict[str, Any] = {"_env_file": None}
    settings = Settings(**no_dotenv)
    # compose waits stop_grace_period after SIGTERM before it kills: the drain must fit
    assert _seconds(app["stop_grace_period"]) >= settings.drain_seconds + 10
    assert settings.lease_seconds > 2 * settings.heartbeat_seconds


def test_nginx_is_the_entry_with_the_committed_config(compose: dict[str, Any]) -> None:
    nginx = compose["services"]["nginx"]
    assert re.fullmatch(r"nginx:1\.27(\.\d+)?-alpine", nginx["image"]), nginx["image"]
    assert "./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert "8000:80" in nginx["ports"]


def _directives(conf: str) -> list[str]:
    """The config's directives, one per entry, comments and blank space gone."""
    code = "\n".join(line.split("#", 1)[0] for line in conf.splitlines())
    return [" ".join(d.split()) for d in re.split(r"[;{}]", code) if d.strip()]


def _block(conf: str, opening: str) -> str:
    """The text of the block opened by `opening` (e.g. `location /ws/`), to its brace."""
    start = conf.index(opening + " {") + len(opening) + 2
    depth, at = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(conf[at], 0)
        at += 1
    return conf[start : at - 1]


def test_nginx_config_upgrades_sockets_and_finds_replicas_by_name(
    compose: dict[str, Any],
) -> None:
    conf = NGINX_CONF.read_text()
    directives = _directives(conf)
    port = _env(compose["services"]["app"])["PORT"]
    for needed in (
        "listen 80",  # what compose publishes
        "resolver 127.0.0.11 valid=5s ipv6=off",  # Docker's DNS, asked again every 5 s
        f"set $app http://app:{port}",  # through a variable: resolved while serving
        "proxy_http_version 1.1",
        "proxy_set_header Upgrade $http_upgrade",
        "proxy_set_header Connection $connection_upgrade",
        "proxy_set_header Host $http_host",
        "proxy_set_header X-Forwarded-For $remote_addr",
        "proxy_set_header X-Forwarded-Proto $scheme",
    ):
        assert needed in directives, needed
    # no `upstream` block: it would resolve `app` once, at start
    assert not [d for d in directives if d.startswith("upstream ")]
    sockets = _directives(_block(conf, "location /ws/"))
    assert "proxy_pass $app" in sockets
    read_timeout = next(d for d in sockets if d.startswith("proxy_read_timeout "))
    assert _seconds(read_timeout.split()[1]) >= 600  # quiet tables keep their sockets
    assert "proxy_pass $app" in _directives(_block(conf, "location /"))
