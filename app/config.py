"""Settings from the environment (and an optional `.env`), read once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator can set. Without any, the embedded default runs:
    SQLite in `data_dir`, in-process fan-out, mail written to a Maildir."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    site_name: str = Field(
        default="Stud",
        description="the site's name: in mail (the sender's display name) and the API's title",
    )
    host: str = Field(
        default="127.0.0.1", description="the address to listen on (`--host` over it)"
    )
    port: int = Field(default=8000, description="the port to listen on (`--port` over it)")
    data_dir: Path = Field(
        default=Path("data"),
        description="the embedded default's home: its SQLite database and Maildir",
    )
    database_url: str | None = Field(
        default=None,
        description="a SQLAlchemy URL (`postgresql+asyncpg://…`); default: SQLite in `DATA_DIR`",
    )
    redis_url: str | None = Field(
        default=None, description="Redis for the fan-out (`redis://…`); default: in-process fan-out"
    )
    redis_namespace: str = Field(
        default="stud",
        description="prefixes every Redis key and channel name: deployments (or test runs) "
        "sharing one Redis",
    )
    smtp_url: str | None = Field(
        default=None,
        description="`smtp://`, `smtp+starttls://` or `smtps://[user:password@]host[:port]`; "
        "default: mail is written to a Maildir",
    )
    allowed_origins: str = Field(
        default="",
        description="origins (`scheme://host[:port]`, comma-separated) a browser may open table "
        "sockets and send POSTs from, besides the server's own (checked against `Origin`)",
    )
    # Only a proxy that overwrites those headers belongs here (deploy/nginx/nginx.conf does).
    forwarded_allow_ips: str = Field(
        default="127.0.0.1,::1",
        description="the proxies (comma-separated addresses, CIDR networks or `*`) whose "
        "`X-Forwarded-For`/`X-Forwarded-Proto` uvicorn believes: the client's address (login "
        "limits) and the scheme (Secure cookies)",
    )
    bots_play_alone: bool = Field(
        default=False,
        description="bots alone at a table play on (demo tables); by default a table deals only "
        "with a person dealt in",
    )
    auto_migrate: bool = Field(
        default=True,
        description="upgrade the database schema at start; when false, refuse to start while "
        "it is behind",
    )
    heartbeat_seconds: float = Field(
        default=1.0,
        description="how often a process heartbeats in the process registry, renews its "
        "tables' leases and claims free tables",
    )
    lease_seconds: float = Field(
        default=5.0,
        description="a process (and its leases) silent this long is dead: its tables are "
        "free to claim",
    )
    table_capacity: int = Field(
        default=500, description="tables this process runs at most (placement reads it)"
    )
    drain_seconds: float = Field(
        default=30.0,
        description="on SIGTERM, how long current hands may run to finish before the tables "
        "are let go",
    )
    ws_ping_seconds: float = Field(
        default=20.0,
        gt=0,
        description="a table socket is pinged this often, and closed when its client does not "
        "answer within as long: it stopped reading",
    )

    # Running the room: metrics and logs.
    metrics_port: int | None = Field(
        default=None,
        description="serve Prometheus metrics on `http://METRICS_HOST:METRICS_PORT/metrics` "
        "(never on `PORT`); off when unset. Each process of a host needs its own port",
    )
    metrics_host: str = Field(
        default="127.0.0.1",
        description="the address the metrics listen on: loopback unless Prometheus scrapes "
        "from elsewhere (`0.0.0.0` in a container)",
    )
    stall_ms: float | None = Field(
        default=None,
        gt=0,
        description="log each event-loop stall longer than this many milliseconds, with the "
        "code that held the loop or the garbage collection that did (`app.stalls`), and count "
        "it in `stud_loop_stall_seconds`; off when unset",
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="`json`: each log line a JSON object (time, level, logger, message, and "
        "the `table_id`, `hand` and `user_id` it is about); `text`: plain lines",
    )

    # Accounts and play money (integers in the smallest chip unit).
    starting_balance: int = Field(default=100_000, description="chips a new account is granted")
    daily_topup_amount: int = Field(default=20_000, description="chips the daily top-up grants")
    daily_topup_threshold: int = Field(
        default=2_000,
        description="a player whose balance plus seated chips is below this may claim the "
        "top-up once a day",
    )
    session_days: int = Field(default=30, description="a login session's lifetime, in days")
    session_cookie_name: str = Field(
        default="stud_session", description="the session cookie's name"
    )
    session_cookie_secure: bool = Field(
        default=False,
        description="the session cookie is always `Secure`; when false, `Secure` when a "
        "request arrives over HTTPS",
    )
    # the defaults are argon2-cffi's RFC 9106 low-memory profile
    argon2_time_cost: int = Field(default=3, description="argon2id passes (password hashing)")
    argon2_memory_kib: int = Field(default=65_536, description="argon2id memory, KiB")
    argon2_parallelism: int = Field(default=4, description="argon2id lanes")
    login_window_seconds: float = Field(
        default=300.0, description="the sliding window of the login limits"
    )
    login_attempts_per_name: int = Field(
        default=10, description="login attempts per account name per window"
    )
    login_attempts_per_ip: int = Field(
        default=50, description="login attempts per client address per window"
    )
    # each new account is granted the starting balance
    registration_window_seconds: float = Field(
        default=3600.0, description="the sliding window of the registration limit"
    )
    registrations_per_ip: int = Field(
        default=10, description="new accounts per client address per window"
    )

    # Mail ("email me this hand").
    smtp_ca_file: Path | None = Field(
        default=None,
        description="a PEM file of CAs to trust for the SMTP server's certificate besides the "
        "system's (a private CA, a self-signed server)",
    )
    mail_from: str = Field(
        default="noreply@localhost",
        description="the sender address; the display name is `SITE_NAME`",
    )
    maildir: Path | None = Field(
        default=None, description="where mail goes without `SMTP_URL`; default: `DATA_DIR/maildir`"
    )
    public_base_url: str | None = Field(
        default=None, description="the site's address for links in mail; default `http://HOST:PORT`"
    )
    mail_worker_enabled: bool = Field(
        default=True, description="this process sends the queued mail (a worker in the server)"
    )
    mail_hands_per_hour: int = Field(
        default=10, description="hand-history mail requests per player per hour"
    )
    mail_verifications_per_hour: int = Field(
        default=3, description="verification emails per player per hour"
    )
    mail_max_attempts: int = Field(default=8, description="sending attempts before a message fails")
    mail_retry_base_seconds: float = Field(
        default=30.0,
        description="retry back-off: this times 2**(attempt-1), at most `MAIL_RETRY_MAX_SECONDS`",
    )
    mail_retry_max_seconds: float = Field(default=3600.0, description="the retry back-off's cap")
    mail_lease_seconds: float = Field(
        default=300.0, description="a claimed mail request becomes another worker's after this"
    )
    mail_poll_seconds: float = Field(
        default=5.0, description="how often the mail worker looks for queued messages"
    )
    mail_verify_hours: float = Field(default=48.0, description="a verification link's lifetime")

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'stud.sqlite3'}"

    @property
    def allowed_origin_set(self) -> frozenset[str]:
        origins = (o.strip().rstrip("/") for o in self.allowed_origins.split(","))
        return frozenset(o for o in origins if o)

    @property
    def effective_maildir(self) -> Path:
        return self.maildir or self.data_dir / "maildir"

    @property
    def effective_public_base_url(self) -> str:
        return (self.public_base_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def fanout_url(self) -> str:
        return self.redis_url or "memory://"


@lru_cache
def get_settings() -> Settings:
    return Settings()
