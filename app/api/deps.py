"""Dependencies shared by the HTTP and WebSocket routes: the database, the settings, the
table services, and who is logged in. Everything comes from `app.state`, set up once by
`app.main` (settings) and the lifespan (database, table services).

The session token travels as `Authorization: Bearer <token>` or as the HttpOnly session cookie
(a browser's WebSocket sends the cookie); never in a URL, which access logs would keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, WebSocketException, status
from starlette.requests import HTTPConnection

from app import logs
from app.api.errors import api_error
from app.api.services import TableServices
from app.config import Settings
from app.store import accounts
from app.store.db import Database
from app.store.models import AuthSession, User
from app.store.passwords import Passwords


def get_db(conn: HTTPConnection) -> Database:
    """The app's database (set by the lifespan; a test may start the table services alone)."""
    state = conn.app.state
    db: Database | None = getattr(state, "db", None)
    if db is None:
        db = state.table_services.db
    assert db is not None
    return db


def get_settings(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


def get_passwords(conn: HTTPConnection) -> Passwords:
    passwords: Passwords = conn.app.state.passwords
    return passwords


def session_token(conn: HTTPConnection, settings: Settings) -> str | None:
    auth = conn.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    cookie = conn.cookies.get(settings.session_cookie_name)
    return cookie or None


def cookie_secure(conn: HTTPConnection, settings: Settings) -> bool:
    """The session cookie is `Secure` when the site is served over HTTPS: set so, or seen on
    this request (directly, or `X-Forwarded-Proto` from a proxy uvicorn trusts: its
    `FORWARDED_ALLOW_IPS`, by default 127.0.0.1,::1)."""
    return settings.session_cookie_secure or conn.url.scheme in ("https", "wss")


@dataclass(frozen=True)
class Authenticated:
    user: User
    session: AuthSession


async def optional_auth(
    conn: HTTPConnection,
    db: Annotated[Database, Depends(get_db)],
    settings: Annotated[Settings, Depends(get_settings)],
) -> Authenticated | None:
    """The logged-in user and session, or None (no token, or unknown, revoked, expired)."""
    token = session_token(conn, settings)
    if token is None:
        return None
    async with db.session() as session:
        found = await accounts.session_user(session, token)
    logs.bind_user(None if found is None else found[0].id)  # this request's log lines
    return None if found is None else Authenticated(*found)


async def current_auth(
    conn: HTTPConnection, auth: Annotated[Authenticated | None, Depends(optional_auth)]
) -> Authenticated:
    """The logged-in user and session, else 401 (HTTP) or close code 1008 (WebSocket)."""
    if auth is None:
        if conn.scope["type"] == "websocket":
            raise WebSocketException(status.WS_1008_POLICY_VIOLATION, "log in first")
        raise api_error(
            401, "not_authenticated", "log in first", headers={"WWW-Authenticate": "Bearer"}
        )
    return auth


async def current_user(auth: Annotated[Authenticated, Depends(current_auth)]) -> User:
    return auth.user


def get_services(conn: HTTPConnection) -> TableServices:
    services: TableServices | None = getattr(conn.app.state, "table_services", None)
    if services is None:
        raise api_error(503, "unavailable", "the table server is not running")
    return services


@dataclass(frozen=True)
class Player:
    """Who is at a table: the logged-in user's id and name."""

    user_id: int
    name: str
    session_id: int = 0  # the login session (closing it ends what it opened)


async def authenticate(conn: HTTPConnection, services: TableServices) -> Player | None:
    """The logged-in player, or None: for a WebSocket, which answers with a close code."""
    token = session_token(conn, get_settings(conn))
    if token is None:
        return None
    async with services.db.session() as session:
        found = await accounts.session_user(session, token)
    logs.bind_user(None if found is None else found[0].id)  # this socket's log lines
    return None if found is None else Player(found[0].id, found[0].name, found[1].id)


async def optional_player(
    auth: Annotated[Authenticated | None, Depends(optional_auth)],
) -> Player | None:
    return None if auth is None else Player(auth.user.id, auth.user.name, auth.session.id)


async def current_player(auth: Annotated[Authenticated, Depends(current_auth)]) -> Player:
    return Player(auth.user.id, auth.user.name, auth.session.id)


DB = Annotated[Database, Depends(get_db)]
AppSettings = Annotated[Settings, Depends(get_settings)]
PasswordHashing = Annotated[Passwords, Depends(get_passwords)]
CurrentAuth = Annotated[Authenticated, Depends(current_auth)]
CurrentUser = Annotated[User, Depends(current_user)]
Services = Annotated[TableServices, Depends(get_services)]
CurrentPlayer = Annotated[Player, Depends(current_player)]
OptionalPlayer = Annotated[Player | None, Depends(optional_player)]
