"""docker-compose.yml gives the app exactly settings it reads: PostgreSQL through asyncpg,
Redis, each service with a healthcheck, the app started only once its services are healthy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from app.config import Settings

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


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
    assert f"{settings.port}:{settings.port}" in services["app"]["ports"]


def test_healthchecks_and_start_order(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("app", "db", "redis"):
        assert services[name]["healthcheck"]["test"], name
    depends = services["app"]["depends_on"]
    assert depends["db"]["condition"] == depends["redis"]["condition"] == "service_healthy"
