"""Users and their login sessions: registration rules, sign-up grant, session tokens.

A session token is 32 random bytes (URL-safe); only its SHA-256 is stored, so a leaked
database holds no usable token. The bearer token and the browser cookie carry the same token:
revoking the session logs out both.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import ledger
from app.store.errors import InvalidEmail, InvalidLanguage, InvalidName, NameTaken, WeakPassword
from app.store.models import AllInProtection, AuthSession, User
from app.store.types import utcnow

# the site's languages, each with its catalogue (frontend/i18n/, app/mail/texts.py)
LANGUAGES = ("en", "nl", "de")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,19}")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
COMMON_PASSWORDS = frozenset(
    {
        "password",
        "password1",
        "12345678",
        "123456789",
        "1234567890",
        "qwertyui",
        "qwerty123",
        "iloveyou",
        "11111111",
        "abcdefgh",
        "abcd1234",
        "letmein1",
        "passw0rd",
        "sunshine",
        "football",
        "baseball",
        "welcome1",
        "princess",
        "trustno1",
        "pokerface",
        "pokerstars",
    }
)


def name_key(name: str) -> str:
    """The form names are compared in: unique whatever the case."""
    return name.casefold()


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.fullmatch(name):
        raise InvalidName(
            "a name is 2 to 20 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    return name


def check_language(language: str) -> str:
    if language not in LANGUAGES:
        raise InvalidLanguage(f"the language is one of {', '.join(LANGUAGES)}")
    return language


async def set_language(session: AsyncSession, user_id: int, language: str) -> None:
    await session.execute(
        update(User).where(User.id == user_id).values(language=check_language(language))
    )


def check_password(password: str, name: str) -> None:
    """Refuse weak passwords with a reason a player can act on."""
    if len(password) < MIN_PASSWORD:
        raise WeakPassword(f"the password must be at least {MIN_PASSWORD} characters long")
    if len(password) > MAX_PASSWORD:
        raise WeakPassword(f"the password must be at most {MAX_PASSWORD} characters long")
    if len(set(password)) < 4:
        raise WeakPassword("the password needs at least 4 different characters")
    lowered = password.casefold()
    if name and name.casefold() in lowered:
        raise WeakPassword("the password must not contain your name")
    if lowered in COMMON_PASSWORDS:
        raise WeakPassword("that password is among the most common ones; choose another")


def check_email(email: str) -> str:
    """The normalised address; the domain's mail servers are not looked up."""
    try:
        return validate_email(email.strip(), check_deliverability=False).normalized
    except EmailNotValidError as exc:
        raise InvalidEmail(f"invalid email address: {exc}") from exc


async def register(
    session: AsyncSession,
    *,
    name: str,
    email: str,
    password_hash: str,
    starting_balance: int,
    language: str = "en",
) -> User:
    """Create a user with a player account and the sign-up grant (name and email checked
    with `check_name`/`check_email` first). Raises `NameTaken`."""
    name = check_name(name)
    user = User(
        name=name,
        name_key=name_key(name),
        email=check_email(email),
        password_hash=password_hash,
        language=check_language(language),
    )
    try:
        async with session.begin_nested():
            session.add(user)
            await session.flush()
    except IntegrityError as exc:
        raise NameTaken(f"the name {name!r} is taken") from exc
    await ledger.open_player_account(session, user.id)
    if starting_balance > 0:
        await ledger.grant_signup(session, user_id=user.id, amount=starting_balance)
    return user


async def find_user(session: AsyncSession, name: str) -> User | None:
    return await session.scalar(select(User).where(User.name_key == name_key(name.strip())))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class NewSession:
    token: str  # give it to the client once; only its hash is stored
    session_id: int
    expires_at: datetime


async def open_session(session: AsyncSession, user_id: int, *, lifetime: timedelta) -> NewSession:
    token = secrets.token_urlsafe(32)
    now = utcnow()
    row = AuthSession(
        user_id=user_id, token_hash=hash_token(token), created_at=now, expires_at=now + lifetime
    )
    session.add(row)
    await session.flush()
    return NewSession(token, row.id, row.expires_at)


async def session_user(
    session: AsyncSession, token: str, *, now: datetime | None = None
) -> tuple[User, AuthSession] | None:
    """The user and session a token belongs to, unless it is unknown, revoked or expired, or
    its user is banned (a ban revokes their sessions too: this holds if one raced it)."""
    if not token:
        return None
    now = now or utcnow()
    row = await session.execute(
        select(User, AuthSession)
        .join(AuthSession, AuthSession.user_id == User.id)
        .where(
            AuthSession.token_hash == hash_token(token),
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > now,
            User.banned_at.is_(None),
        )
    )
    found = row.first()
    return None if found is None else (found[0], found[1])


async def revoke_session(session: AsyncSession, session_id: int) -> None:
    await session.execute(
        update(AuthSession)
        .where(AuthSession.id == session_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


async def live_sessions(
    session: AsyncSession, session_ids: Iterable[int], *, now: datetime | None = None
) -> set[int]:
    """Which of `session_ids` are still valid (neither revoked nor expired)."""
    wanted = list(session_ids)
    if not wanted:
        return set()
    now = now or utcnow()
    rows = await session.scalars(
        select(AuthSession.id).where(
            AuthSession.id.in_(wanted),
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > now,
        )
    )
    return set(rows)


PROTECTIONS = 2  # R19: all-in protections per player
PROTECTION_WINDOW = timedelta(hours=24)  # R19: a rolling 24 hours


async def claim_all_in_protection(
    session: AsyncSession, user_id: int, hand_id: str, now: datetime
) -> bool:
    """R19: record an all-in protection for `user_id` in `hand_id` if fewer than
    `PROTECTIONS` were used in the 24 hours before `now`. The player's row is locked first,
    so two tables timing the same player out at once cannot both take the last one. The same
    hand asking again gets its earlier answer."""
    await session.execute(
        select(User.id).where(User.id == user_id).with_for_update()
    )  # SQLite holds the database's write lock for the transaction anyway
    earlier = await session.scalar(
        select(AllInProtection.id).where(
            AllInProtection.user_id == user_id, AllInProtection.hand_id == hand_id
        )
    )
    if earlier is not None:
        return True
    used = await session.scalar(
        select(func.count(AllInProtection.id)).where(
            AllInProtection.user_id == user_id,
            AllInProtection.used_at > now - PROTECTION_WINDOW,
        )
    )
    if (used or 0) >= PROTECTIONS:
        return False
    session.add(AllInProtection(user_id=user_id, hand_id=hand_id, used_at=now))
    await session.flush()
    return True


async def names_of(session: AsyncSession, user_ids: Iterable[int]) -> dict[int, str]:
    """Each user's name, by id (ids unknown are left out)."""
    wanted = set(user_ids)
    if not wanted:
        return {}
    rows = await session.execute(select(User.id, User.name).where(User.id.in_(wanted)))
    return {user_id: name for user_id, name in rows}
