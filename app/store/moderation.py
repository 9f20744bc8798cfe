"""Moderation in the database: the operator role, bans, mutes, balance adjustments, the
moderation log and chat reports (issue 25; docs/design.md, "Moderation").

Every action goes into the append-only moderation log in the transaction that makes it,
so the log and what it says happened commit together. Nothing here checks who may act:
the admin routes (`app.api.admin`) ask for the operator role and the command line
(`python -m app admin`) is the operator's own shell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import ledger
from app.store.accounts import name_key
from app.store.errors import InvalidAmount, UserNotFound
from app.store.hand_models import HandPlayer, HandRecord
from app.store.models import (
    AuthSession,
    LedgerAccount,
    LedgerEntry,
    LedgerTransaction,
    PokerTable,
    Seat,
    TxKind,
    User,
)
from app.store.moderation_models import ChatReport, ModerationEntry
from app.store.types import utcnow

OPERATOR = "operator"
PLAYER = "player"
ROLES = (PLAYER, OPERATOR)
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)  # a mute for good
# what an operator (or the command line) does; a host's commands are logged by their
# message's type (`host_…`); the admin page names each in its language
OPERATOR_ACTIONS = (
    "grant",
    "revoke",
    "ban",
    "unban",
    "mute",
    "unmute",
    "adjust",
    "close_table",
    "move_table",
)
COMMAND_LINE = "command line"  # the actor of what `python -m app admin` does
REASON_MAX = 500


@dataclass(frozen=True)
class Actor:
    """Who acts: an operator or a host (their id and name), or the command line (None)."""

    user_id: int | None
    name: str


CLI = Actor(None, COMMAND_LINE)


async def user_by_id(session: AsyncSession, user_id: int) -> User:
    user = await session.get(User, user_id)
    if user is None:
        raise UserNotFound(f"there is no player {user_id}")
    return user


async def user_by_name(session: AsyncSession, name: str) -> User:
    user = await session.scalar(select(User).where(User.name_key == name_key(name.strip())))
    if user is None:
        raise UserNotFound(f"there is no player named {name!r}")
    return user


async def record(
    session: AsyncSession,
    actor: Actor,
    action: str,
    *,
    target: int | None = None,
    table_id: int | None = None,
    reason: str = "",
    detail: dict[str, Any] | None = None,
) -> ModerationEntry:
    """Append one line to the moderation log (in the caller's transaction)."""
    if action not in OPERATOR_ACTIONS and not action.startswith("host_"):
        raise ValueError(f"no such moderation action: {action!r}")
    entry = ModerationEntry(
        at=utcnow(),
        actor_user_id=actor.user_id,
        actor=actor.name[:64],
        action=action,
        target_user_id=target,
        table_id=table_id,
        reason=reason[:REASON_MAX],
        detail=detail or {},
    )
    session.add(entry)
    await session.flush()
    return entry


async def set_role(session: AsyncSession, name: str, role: str, actor: Actor = CLI) -> User:
    """Make a player an operator (`grant`) or a player again (`revoke`), logged."""
    assert role in ROLES
    user = await user_by_name(session, name)
    if user.role != role:
        await session.execute(update(User).where(User.id == user.id).values(role=role))
        action = "grant" if role == OPERATOR else "revoke"
        await record(session, actor, action, target=user.id, detail={"role": role})
        user.role = role
    return user


async def is_operator(session: AsyncSession, user_id: int) -> bool:
    """Read at every admin request: a revoked operator's session loses the role at once."""
    role = await session.scalar(select(User.role).where(User.id == user_id))
    return role == OPERATOR


async def ban(session: AsyncSession, user_id: int, actor: Actor, reason: str) -> list[int]:
    """Ban a player: their sessions revoked (the ids returned: the caller closes their
    sockets on every process) and every later login refused. Banning again changes
    nothing more but revokes a session opened in between."""
    user = await user_by_id(session, user_id)
    now = utcnow()
    if user.banned_at is None:
        await session.execute(update(User).where(User.id == user_id).values(banned_at=now))
        await record(session, actor, "ban", target=user_id, reason=reason)
    revoked = list(
        await session.scalars(
            update(AuthSession)
            .where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))
            .values(revoked_at=now)
            .returning(AuthSession.id)
        )
    )
    return revoked


async def unban(session: AsyncSession, user_id: int, actor: Actor, reason: str) -> None:
    user = await user_by_id(session, user_id)
    if user.banned_at is not None:
        await session.execute(update(User).where(User.id == user_id).values(banned_at=None))
        await record(session, actor, "unban", target=user_id, reason=reason)


async def mute(
    session: AsyncSession, user_id: int, until: datetime | None, actor: Actor, reason: str
) -> None:
    """Mute a player's chat at every table until `until` (`FOREVER`: for good); None lifts
    the mute."""
    await user_by_id(session, user_id)
    await session.execute(update(User).where(User.id == user_id).values(muted_until=until))
    detail = {"until": None if until is None else until.isoformat()}
    action = "unmute" if until is None else "mute"
    await record(session, actor, action, target=user_id, reason=reason, detail=detail)


async def muted_until(session: AsyncSession, user_id: int) -> datetime | None:
    """Until when the player may not chat (None: they may)."""
    until = await session.scalar(select(User.muted_until).where(User.id == user_id))
    return until if until is not None and until > utcnow() else None


async def adjust(
    session: AsyncSession, user_id: int, amount: int, key: str, actor: Actor, reason: str
) -> ledger.Posted:
    """Correct a player's balance by `amount` (either sign) from or to the bank: a posting
    of its own kind (`adjustment`), idempotent by `key` (the same key again posts nothing
    and returns the first posting; another amount under it is refused). Logged once."""
    if amount == 0:
        raise InvalidAmount("an adjustment moves some chips")
    if not reason.strip():
        raise InvalidAmount("an adjustment needs a reason")
    await user_by_id(session, user_id)
    bank, player = await ledger.account_ids(session, ledger.BANK, ledger.player_code(user_id))
    posted = await ledger.transfer(
        session,
        {bank: -amount, player: amount},
        kind=TxKind.ADJUSTMENT,
        key=f"{user_id}:{key}",
        memo=reason[:REASON_MAX],
    )
    if not posted.replayed:
        detail = {"amount": amount, "key": key, "transaction": posted.transaction_id}
        await record(session, actor, "adjust", target=user_id, reason=reason, detail=detail)
    return posted


# -- reading ---------------------------------------------------------------------------------


def player_line(user: User) -> dict[str, Any]:
    muted = user.muted_until if user.muted_until and user.muted_until > utcnow() else None
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "role": user.role,
        "banned": user.banned_at is not None,
        "banned_at": None if user.banned_at is None else user.banned_at.isoformat(),
        "muted_until": None if muted is None else muted.isoformat(),
        "created_at": user.created_at.isoformat(),
    }


async def search(session: AsyncSession, text: str, limit: int = 25) -> list[dict[str, Any]]:
    """Players whose name or email holds `text` (any case), by name."""
    like = f"%{text.strip().casefold()}%"
    rows = await session.scalars(
        select(User)
        .where(or_(User.name_key.like(like), func.lower(User.email).like(like)))
        .where(~User.email.like("%@bots.example.com"))
        .order_by(User.name_key)
        .limit(limit)
    )
    return [player_line(u) for u in rows]


async def player(session: AsyncSession, user_id: int) -> dict[str, Any]:
    """What an operator sees of a player: balance, last ledger entries, sessions, the
    tables they sit at and their last hands (numbers, never cards)."""
    user = await user_by_id(session, user_id)
    return {
        **player_line(user),
        "balance": await ledger.player_balance(session, user_id),
        "ledger": await _entries(session, user_id),
        "sessions": await _sessions(session, user_id),
        "tables": [
            {"table": t, "name": n, "seat": seat, "stack": stack}
            for t, n, seat, stack in await session.execute(
                select(Seat.table_id, PokerTable.name, Seat.seat_no, Seat.stack)
                .join(PokerTable, PokerTable.id == Seat.table_id)
                .where(Seat.user_id == user_id)
                .order_by(Seat.table_id)
            )
        ],
        "hands": [
            {"number": str(n), "table": t, "table_name": tn, "status": st}
            for n, t, tn, st in await session.execute(
                select(
                    HandRecord.number, HandRecord.table_id, HandRecord.table_name, HandRecord.status
                )
                .join(HandPlayer, HandPlayer.hand_id == HandRecord.id)
                .where(HandPlayer.user_id == user_id)
                .order_by(HandRecord.number.desc())
                .limit(20)
            )
        ],
    }


async def _entries(session: AsyncSession, user_id: int) -> list[dict[str, Any]]:
    """The player's last 50 ledger entries, newest first."""
    rows = await session.execute(
        select(
            LedgerTransaction.id,
            LedgerTransaction.kind,
            LedgerEntry.amount,
            LedgerTransaction.memo,
            LedgerTransaction.created_at,
        )
        .join(LedgerEntry, LedgerEntry.transaction_id == LedgerTransaction.id)
        .join(LedgerAccount, LedgerAccount.id == LedgerEntry.account_id)
        .where(LedgerAccount.code == ledger.player_code(user_id))
        .order_by(LedgerTransaction.id.desc())
        .limit(50)
    )
    return [
        {"transaction": t, "kind": k, "amount": a, "memo": m, "at": at.isoformat()}
        for t, k, a, m, at in rows
    ]


async def _sessions(session: AsyncSession, user_id: int) -> list[dict[str, Any]]:
    now = utcnow()
    rows = await session.scalars(
        select(AuthSession)
        .where(AuthSession.user_id == user_id)
        .order_by(AuthSession.id.desc())
        .limit(20)
    )
    return [
        {
            "id": s.id,
            "created_at": s.created_at.isoformat(),
            "expires_at": s.expires_at.isoformat(),
            "live": s.revoked_at is None and s.expires_at > now,
        }
        for s in rows
    ]


async def seated_at(session: AsyncSession, user_id: int) -> list[int]:
    """The cash and tournament tables the player sits at (their ledger seats)."""
    rows = await session.scalars(select(Seat.table_id).where(Seat.user_id == user_id))
    return sorted(set(rows))


def entry_line(e: ModerationEntry, names: dict[int, str]) -> dict[str, Any]:
    return {
        "id": e.id,
        "at": e.at.isoformat(),
        "actor": e.actor,
        "actor_id": e.actor_user_id,  # None: the command line (its name said in each language)
        "action": e.action,
        "target": None if e.target_user_id is None else names.get(e.target_user_id, ""),
        "target_id": e.target_user_id,
        "table": e.table_id,
        "reason": e.reason,
        "detail": e.detail,
    }


async def read_log(
    session: AsyncSession, *, target: int | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """The newest lines of the moderation log first (one player's, with `target`)."""
    query = select(ModerationEntry).order_by(ModerationEntry.id.desc()).limit(limit)
    if target is not None:
        query = query.where(ModerationEntry.target_user_id == target)
    rows = list(await session.scalars(query))
    names = await _names(session, [e.target_user_id for e in rows])
    return [entry_line(e, names) for e in rows]


async def _names(session: AsyncSession, ids: Sequence[int | None]) -> dict[int, str]:
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    rows = await session.execute(select(User.id, User.name).where(User.id.in_(wanted)))
    return {i: n for i, n in rows}


async def report(
    session: AsyncSession,
    *,
    reporter: int,
    reported: int,
    table_id: int,
    line: str,
    context: list[dict[str, Any]],
) -> ChatReport:
    """A player reports a chat line: kept with the lines around it, as the table kept them."""
    row = ChatReport(
        at=utcnow(),
        reporter_user_id=reporter,
        reported_user_id=reported,
        table_id=table_id,
        line=line,
        context=context,
    )
    session.add(row)
    await session.flush()
    return row


async def reports(session: AsyncSession, limit: int = 50) -> list[dict[str, Any]]:
    """The newest chat reports first."""
    rows = list(
        await session.scalars(select(ChatReport).order_by(ChatReport.id.desc()).limit(limit))
    )
    names = await _names(
        session, [r.reporter_user_id for r in rows] + [r.reported_user_id for r in rows]
    )
    return [
        {
            "id": r.id,
            "at": r.at.isoformat(),
            "reporter": names.get(r.reporter_user_id, ""),
            "reported": names.get(r.reported_user_id, ""),
            "reported_id": r.reported_user_id,
            "table": r.table_id,
            "line": r.line,
            "context": r.context,
        }
        for r in rows
    ]
