"""Accounts over HTTP: register, log in, log out, the profile and the daily top-up.

POST /api/register {name, password, email} → 201 profile
POST /api/login {name, password} → {token, token_type, expires_at, user}; also sets the
    HttpOnly, SameSite=Lax session cookie carrying the same token
POST /api/logout → revokes the session (the token and the cookie are the same session)
GET  /api/me → profile: {id, name, email, email_verified, language, balance, seated, operator}
POST /api/me/language {language} → {language}
POST /api/me/topup → {granted, balance}: the daily top-up for a broke player

Errors are `{"detail": {"code", "message"}}` (see `app.api.errors`): invalid_name,
weak_password, invalid_email, invalid_language (422), name_taken (409), bad_credentials (401),
rate_limited (429, with Retry-After: logins per name and address, new accounts per
address), foreign_origin (403, `app.api.security`), not_authenticated (401),
topup_already_claimed and topup_not_allowed (409), banned (403: a banned
account's login, told after its password). docs/protocol.md, "Accounts (HTTP)".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import update

from app import metrics
from app.api.deps import DB, AppSettings, CurrentAuth, CurrentUser, PasswordHashing, cookie_secure
from app.api.errors import api_error, from_store
from app.api.ratelimit import Limiter, MemoryLimiter, Rule
from app.api.ratelimit_redis import RedisLimiter
from app.config import Settings
from app.store import accounts, ledger
from app.store.errors import (
    AccountError,
    NameTaken,
    TopUpAlreadyClaimed,
    TopUpNotAllowed,
)
from app.store.models import User
from app.store.passwords import Passwords

router = APIRouter(prefix="/api", tags=["accounts"])


class RegisterBody(BaseModel):
    name: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=1024)]
    email: Annotated[str, Field(max_length=320)]
    language: Annotated[str, Field(max_length=5)] = "en"  # the browser's, as the client chose


class LanguageBody(BaseModel):
    language: Annotated[str, Field(max_length=5)]


class LoginBody(BaseModel):
    name: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=1024)]


@dataclass
class LoginLimits:
    """Login attempts per name and per client address, and registrations per client
    address (`app.state.login_limits`): every new account is granted the starting balance,
    so unlimited sign-ups would mint play money. Counted in Redis when `REDIS_URL` is set,
    so every process shares them (`app.api.ratelimit`); the lifespan closes `limiter`."""

    limiter: Limiter
    by_name: Rule
    by_ip: Rule
    registrations_by_ip: Rule

    @classmethod
    def from_settings(cls, settings: Settings) -> LoginLimits:
        window = settings.login_window_seconds
        limiter: Limiter = (
            RedisLimiter(settings.redis_url, namespace=settings.redis_namespace)
            if settings.redis_url
            else MemoryLimiter()
        )
        return cls(
            limiter,
            Rule("login-name", settings.login_attempts_per_name, window),
            Rule("login-ip", settings.login_attempts_per_ip, window),
            Rule(
                "register-ip", settings.registrations_per_ip, settings.registration_window_seconds
            ),
        )


def refuse_if_limited(wait: float, what: str, limit: str) -> None:
    if wait > 0:
        metrics.RATE_LIMITED.labels(limit).inc()
        seconds = math.ceil(wait)
        raise api_error(
            429,
            "rate_limited",
            f"too many {what}; try again in {seconds} seconds",
            headers={"Retry-After": str(seconds)},
        )


async def profile(db: DB, user: User) -> dict[str, Any]:
    async with db.session() as session:
        balance = await ledger.player_balance(session, user.id)
        seated = await ledger.seated_chips(session, user.id)
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "email_verified": user.email_verified,
        "language": user.language,
        "balance": balance,
        "seated": seated,
        "operator": user.role == "operator",  # the page shows its admin link (the routes check)
    }


def install(app: FastAPI, settings: Settings) -> None:
    """Add the accounts routes and what they use on `app.state` (the lifespan sets `db`)."""
    app.state.settings = settings
    app.state.passwords = Passwords(
        time_cost=settings.argon2_time_cost,
        memory_kib=settings.argon2_memory_kib,
        parallelism=settings.argon2_parallelism,
    )
    app.state.login_limits = LoginLimits.from_settings(settings)
    app.include_router(router)


@router.post("/register", status_code=201)
async def register(
    body: RegisterBody,
    request: Request,
    db: DB,
    settings: AppSettings,
    passwords: PasswordHashing,
) -> dict[str, Any]:
    try:
        name = accounts.check_name(body.name)
        accounts.check_password(body.password, name)
        email = accounts.check_email(body.email)
        language = accounts.check_language(body.language)
    except AccountError as exc:
        raise from_store(exc, 422) from None
    limits: LoginLimits = request.app.state.login_limits
    # looked at and counted in one step: concurrent sign-ups count too
    wait = await limits.limiter.take((limits.registrations_by_ip, _client(request)))
    refuse_if_limited(wait, "new accounts from your address", "registration")
    password_hash = await passwords.hash(body.password)
    try:
        async with db.transaction() as session:
            user = await accounts.register(
                session,
                name=name,
                email=email,
                password_hash=password_hash,
                starting_balance=settings.starting_balance,
                language=language,
            )
    except NameTaken as exc:
        raise from_store(exc, 409) from None
    return await profile(db, user)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.post("/login")
async def login(
    body: LoginBody,
    request: Request,
    response: Response,
    db: DB,
    settings: AppSettings,
    passwords: PasswordHashing,
) -> dict[str, Any]:
    limits: LoginLimits = request.app.state.login_limits
    name_key, ip_key = accounts.name_key(body.name.strip()), _client(request)
    wait = await limits.limiter.take((limits.by_name, name_key), (limits.by_ip, ip_key))
    refuse_if_limited(wait, "login attempts", "login")
    async with db.session() as session:
        user = await accounts.find_user(session, body.name)
    if not await passwords.verify(user.password_hash if user else None, body.password):
        metrics.LOGIN_FAILURES.inc()
        raise api_error(401, "bad_credentials", "wrong name or password")
    assert user is not None
    if user.banned_at is not None:  # told only to whoever knows the password
        raise api_error(403, "banned", "this account is banned: you can no longer log in")
    await limits.limiter.reset(limits.by_name, name_key)
    async with db.transaction() as session:
        if passwords.needs_rehash(user.password_hash):  # the cost setting went up
            new_hash = await passwords.hash(body.password)
            await session.execute(
                update(User).where(User.id == user.id).values(password_hash=new_hash)
            )
        new = await accounts.open_session(
            session, user.id, lifetime=timedelta(days=settings.session_days)
        )
    response.set_cookie(
        settings.session_cookie_name,
        new.token,
        max_age=int(timedelta(days=settings.session_days).total_seconds()),
        path="/",
        secure=cookie_secure(request, settings),
        httponly=True,
        samesite="lax",
    )
    return {
        "token": new.token,
        "token_type": "bearer",
        "expires_at": new.expires_at.isoformat(),
        "user": await profile(db, user),
    }


@router.post("/logout")
async def logout(
    auth: CurrentAuth, request: Request, response: Response, db: DB, settings: AppSettings
) -> Any:
    async with db.transaction() as session:
        await accounts.revoke_session(session, auth.session.id)
    services = getattr(request.app.state, "table_services", None)
    if services is not None and services.sockets is not None:
        await services.sockets.session_ended(auth.session.id)  # its open sockets close too
    response.delete_cookie(
        settings.session_cookie_name,
        path="/",
        secure=cookie_secure(request, settings),
        httponly=True,
        samesite="lax",
    )
    return {"ok": True}


@router.get("/me")
async def me(user: CurrentUser, db: DB) -> dict[str, Any]:
    return await profile(db, user)


@router.post("/me/language")
async def set_language(body: LanguageBody, user: CurrentUser, db: DB) -> dict[str, Any]:
    """The language of the site and of the emails sent to this player."""
    try:
        async with db.transaction() as session:
            await accounts.set_language(session, user.id, body.language)
    except AccountError as exc:
        raise from_store(exc, 422) from None
    return {"language": body.language}


@router.post("/me/topup")
async def top_up(user: CurrentUser, db: DB, settings: AppSettings) -> dict[str, Any]:
    try:
        async with db.transaction() as session:
            posted = await ledger.top_up_daily(
                session,
                user_id=user.id,
                amount=settings.daily_topup_amount,
                threshold=settings.daily_topup_threshold,
                today=datetime.now(UTC).date(),
            )
    except (TopUpAlreadyClaimed, TopUpNotAllowed) as exc:
        raise from_store(exc, 409) from None
    async with db.session() as session:
        balance = await ledger.player_balance(session, user.id)
    granted = max(amount for _, amount in posted.entries)
    return {"granted": granted, "balance": balance}
