"""Settings from the environment (and an optional `.env`), read once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
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
    # prefixes every Redis channel name: deployments (or test runs) sharing one Redis
    redis_namespace: str = "stud"
    smtp_url: str | None = None
    # Origins (scheme://host[:port], comma-separated) a browser may open table sockets from,
    # besides the server's own; the WebSocket handshake checks `Origin` against them.
    allowed_origins: str = ""
    # Addresses (comma-separated, CIDR networks or "*") of the proxies whose X-Forwarded-For
    # and X-Forwarded-Proto uvicorn believes: the client's address (login limits) and the
    # scheme (Secure cookies) come from them. Only a proxy that overwrites those headers
    # belongs here (deploy/nginx/nginx.conf does).
    forwarded_allow_ips: str = "127.0.0.1,::1"

    # Bots alone at a table play on (demo tables, the server benchmark); by default a table
    # deals only with a person dealt in
    bots_play_alone: bool = False

    # Database: upgrade the schema at start (else refuse to start while it is behind).
    auto_migrate: bool = True

    # Several processes on one database: each heartbeats in the process registry and renews
    # its tables' leases every `heartbeat_seconds`; a process (and its leases) silent for
    # `lease_seconds` is dead, and its tables are free to claim.
    heartbeat_seconds: float = 1.0
    lease_seconds: float = 5.0
    table_capacity: int = 500  # tables this process will run (placement reads it)
    # SIGTERM: current hands may run this long to finish before the tables are let go
    drain_seconds: float = 30.0
    # A table socket whose client does not answer the server's WebSocket ping within this
    # many seconds (pinged every as many) is closed: it stopped reading (docs/design.md).
    ws_ping_seconds: float = Field(default=20.0, gt=0)

    # Accounts and play money (integers in the smallest chip unit).
    starting_balance: int = 100_000
    daily_topup_amount: int = 20_000
    # a player whose balance plus seated chips is below this may claim the top-up once a day
    daily_topup_threshold: int = 2_000
    session_days: int = 30
    session_cookie_name: str = "stud_session"
    session_cookie_secure: bool = False  # always Secure; else Secure when a request is HTTPS
    # argon2id cost; the defaults are argon2-cffi's RFC 9106 low-memory profile
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65_536
    argon2_parallelism: int = 4
    # login attempts per sliding window, per name and per client address
    login_window_seconds: float = 300.0
    login_attempts_per_name: int = 10
    login_attempts_per_ip: int = 50
    # new accounts per client address per window: each one is granted the starting balance
    registration_window_seconds: float = 3600.0
    registrations_per_ip: int = 10

    # Mail ("email me this hand"): SMTP_URL is smtp://, smtp+starttls:// or smtps://
    # [user:password@]host[:port]; without it messages go to a Maildir (`effective_maildir`).
    # SMTP_CA_FILE: a PEM file of CAs to trust for the server's certificate besides the
    # system's (a private CA, a self-signed server)
    smtp_ca_file: Path | None = None
    mail_from: str = "noreply@localhost"  # the sender address; the display name is site_name
    maildir: Path | None = None  # default: data_dir / "maildir"
    public_base_url: str | None = None  # for links in mail; default http://host:port
    mail_worker_enabled: bool = True
    mail_hands_per_hour: int = 10  # hand-history requests per player per hour
    mail_verifications_per_hour: int = 3  # verification emails per player per hour
    mail_max_attempts: int = 8
    mail_retry_base_seconds: float = 30.0  # back-off: base * 2**(attempt-1), capped
    mail_retry_max_seconds: float = 3600.0
    mail_lease_seconds: float = 300.0  # a claimed request is another worker's after this
    mail_poll_seconds: float = 5.0
    mail_verify_hours: float = 48.0  # a verification link's lifetime

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
