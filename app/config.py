"""Settings from the environment (and an optional `.env`), read once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator can set. Without any, the embedded default runs:
    SQLite in `data_dir`, in-process fan-out, mail written to a Maildir."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    site_name: str = "Stud"
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    database_url: str | None = None
    redis_url: str | None = None
    smtp_url: str | None = None

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'stud.sqlite3'}"

    @property
    def fanout_url(self) -> str:
        return self.redis_url or "memory://"


@lru_cache
def get_settings() -> Settings:
    return Settings()
