"""The outbox worker: claims due requests, builds each email, sends it, records the attempt.

Claiming is one conditional UPDATE (`status = 'queued'`, due, and no live lease → set this
worker's lease): on PostgreSQL a concurrent claimer re-checks the row after the first commits
and finds the lease taken; on SQLite writers are serialised. So two server processes never
send one request at the same time. A worker that dies mid-send leaves its lease, which runs
out after `lease`; the request is then sent again (at-least-once; the Message-ID is the same).

Temporary failures are retried after `backoff(attempt)` (exponential, capped) until
`max_attempts`; permanent ones fail at once. Each attempt is a `mail_attempts` row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sqlalchemy import func, or_, select, update

from app import metrics
from app.config import Settings
from app.mail import compose, summaries
from app.mail.history import HandHistory, HistorySource
from app.mail.transport import PermanentFailure, TemporaryFailure, Transport
from app.store.db import Database
from app.store.models import User
from app.store.outbox import AttemptOutcome, MailAttempt, MailKind, MailRequest, MailStatus
from app.store.types import utcnow

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
Backoff = Callable[[int], timedelta]


def exponential_backoff(base: float, cap: float) -> Backoff:
    """`base`, 2·`base`, 4·`base` … seconds after attempts 1, 2, 3 …, at most `cap`."""

    def delay(attempt: int) -> timedelta:
        return timedelta(seconds=min(cap, base * 2 ** max(0, attempt - 1)))

    return delay


@dataclass(frozen=True)
class WorkerConfig:
    site_name: str = "Stud"
    sender: str = "noreply@localhost"
    max_attempts: int = 8
    lease: timedelta = timedelta(minutes=5)
    poll: float = 5.0  # seconds between looks at the outbox when nobody wakes the worker
    batch: int = 20

    @classmethod
    def from_settings(cls, settings: Settings) -> WorkerConfig:
        return cls(
            site_name=settings.site_name,
            sender=settings.mail_from,
            max_attempts=settings.mail_max_attempts,
            lease=timedelta(seconds=settings.mail_lease_seconds),
            poll=settings.mail_poll_seconds,
        )


class MailWorker:
    def __init__(
        self,
        db: Database,
        transport: Transport,
        history: HistorySource,
        *,
        config: WorkerConfig | None = None,
        clock: Clock = utcnow,
        backoff: Backoff | None = None,
        worker_id: str | None = None,
    ) -> None:
        self.db = db
        self.transport = transport
        self.history = history
        self.config = config or WorkerConfig()
        self.clock = clock
        self.backoff = backoff or exponential_backoff(30.0, 3600.0)
        self.worker_id = worker_id or f"{socket.gethostname()[:40]}:{os.getpid()}:" + (
            secrets.token_hex(4)
        )
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    # -- running -----------------------------------------------------------------------

    def start(self) -> None:
        """Run in the background; pending requests (from before a restart too) go first."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="mail-worker")

    def notify(self) -> None:
        """Look at the outbox now (a request was just queued)."""
        self._wake.set()

    async def stop(self, grace: float = 10.0) -> None:
        """Let the message being sent finish (up to `grace` seconds), then stop."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), grace)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()
            try:
                handled = await self.run_once()
            except Exception:  # an outage of the database: keep the worker alive
                log.exception("mail worker: a pass over the outbox failed")
                handled = 0
            if handled or self._stopping:
                continue
            await self._count_outbox()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), await self._idle_seconds())

    async def _count_outbox(self) -> None:
        """The queued requests, for the metrics (`stud_mail_outbox`)."""
        try:
            async with self.db.session() as session:
                queued = await session.scalar(
                    select(func.count()).where(MailRequest.status == MailStatus.QUEUED)
                )
        except Exception:  # the database is away: the last count stands
            return
        metrics.MAIL_OUTBOX.set(queued or 0)

    async def _idle_seconds(self) -> float:
        """Until the next retry is due, at most `poll`."""
        try:
            async with self.db.session() as session:
                due = (
                    await session.execute(
                        select(MailRequest.next_attempt_at)
                        .where(MailRequest.status == MailStatus.QUEUED)
                        .order_by(MailRequest.next_attempt_at)
                        .limit(1)
                    )
                ).scalar_one_or_none()
        except Exception:
            return self.config.poll
        if due is None:
            return self.config.poll
        return min(self.config.poll, max(0.01, (due - self.clock()).total_seconds()))

    async def run_once(self) -> int:
        """Send what is due now (at most one batch); returns how many requests were tried."""
        handled = 0
        for request_id in await self._due_ids():
            if self._stopping:
                break
            request = await self._claim(request_id)
            if request is not None:
                await self._deliver(request)
                handled += 1
        return handled

    # -- claiming ----------------------------------------------------------------------

    def _claimable(self, now: datetime) -> Any:
        return (
            (MailRequest.status == MailStatus.QUEUED)
            & (MailRequest.next_attempt_at <= now)
            & or_(MailRequest.lease_until.is_(None), MailRequest.lease_until < now)
        )

    async def _due_ids(self) -> list[int]:
        async with self.db.session() as session:
            rows = await session.execute(
                select(MailRequest.id)
                .where(self._claimable(self.clock()))
                .order_by(MailRequest.next_attempt_at, MailRequest.id)
                .limit(self.config.batch)
            )
            return list(rows.scalars())

    async def _claim(self, request_id: int) -> MailRequest | None:
        now = self.clock()
        async with self.db.transaction() as session:
            claimed = await session.execute(
                update(MailRequest)
                .where((MailRequest.id == request_id) & self._claimable(now))
                .values(
                    lease_owner=self.worker_id,
                    lease_until=now + self.config.lease,
                    attempts=MailRequest.attempts + 1,
                )
                .execution_options(synchronize_session=False)
            )
            if claimed.rowcount != 1:  # type: ignore[attr-defined]
                return None
            request = (
                await session.execute(select(MailRequest).where(MailRequest.id == request_id))
            ).scalar_one()
            if request.message_id is None:
                domain = self.config.sender.rpartition("@")[2] or "localhost"
                request.message_id = f"<mail-{request.id}.{secrets.token_hex(6)}@{domain}>"
            return request

    # -- sending -----------------------------------------------------------------------

    async def _deliver(self, request: MailRequest) -> None:
        started = self.clock()
        try:
            message = await self._compose(request)
            note = await self.transport.send(
                message, sender=self.config.sender, recipient=request.to_address
            )
        except TemporaryFailure as exc:
            if request.attempts >= self.config.max_attempts:
                await self._finish(request, started, AttemptOutcome.FAILED, _gave_up(exc, request))
            else:
                await self._finish(request, started, AttemptOutcome.RETRY, str(exc))
        except PermanentFailure as exc:
            await self._finish(request, started, AttemptOutcome.FAILED, str(exc))
        except Exception as exc:  # a bug: fail this request, not the worker
            log.exception("mail worker: request %s", request.id)
            await self._finish(
                request, started, AttemptOutcome.FAILED, f"internal error: {type(exc).__name__}"
            )
        else:
            await self._finish(request, started, AttemptOutcome.SENT, note)

    async def _compose(self, request: MailRequest) -> EmailMessage:
        async with self.db.session() as session:
            user = (
                await session.execute(select(User).where(User.id == request.user_id))
            ).scalar_one()
        common: dict[str, Any] = dict(
            site_name=self.config.site_name,
            sender=self.config.sender,
            to_name=user.name,
            to_address=request.to_address,
            language=user.language,
        )
        if request.kind == MailKind.VERIFY:
            url = str(request.payload.get("url", ""))
            if not url:
                raise PermanentFailure("the verification link is no longer available")
            hours = float(request.payload.get("hours", 48))
            message = compose.verification_message(url=url, hours=hours, **common)
        elif request.kind == MailKind.TOURNAMENT:
            async with self.db.session() as session:
                tid = request.payload.get("tournament_id")
                summary = None
                if type(tid) is int:
                    summary = await summaries.summary_for(session, tid, request.user_id)
            if summary is None or summary.finished_at is None:
                raise PermanentFailure(f"tournament #{tid} has no summary for this player")
            message = compose.tournament_summary_message(summary=summary, **common)
        else:
            hands: list[tuple[int, HandHistory]] = []
            for number in request.payload.get("hand_ids", []):  # the hands' numbers
                history = None
                if type(number) is int:  # (a queued request whose hand was never numbered)
                    history = await self.history.load(self.db, number, request.user_id)
                if history is None:
                    raise PermanentFailure(f"hand #{number} is not available")
                hands.append((number, history))
            message = compose.hands_message(hands=hands, **common)
        assert request.message_id is not None
        compose.stamp(message, message_id=request.message_id, date=self.clock())
        return message

    async def _finish(
        self, request: MailRequest, started: datetime, outcome: AttemptOutcome, detail: str
    ) -> None:
        now = self.clock()
        metrics.MAIL_OUTCOMES.labels(outcome.value).inc()
        values: dict[str, Any] = {"lease_owner": None, "lease_until": None}
        if outcome is AttemptOutcome.SENT:
            values |= {"status": MailStatus.SENT, "sent_at": now, "last_error": None}
        elif outcome is AttemptOutcome.RETRY:
            values |= {
                "last_error": detail,
                "next_attempt_at": now + self.backoff(request.attempts),
            }
        else:
            values |= {"status": MailStatus.FAILED, "last_error": detail}
        if outcome is not AttemptOutcome.RETRY and request.kind == MailKind.VERIFY:
            values["payload"] = {}  # the link (a secret) leaves the database once sent
        async with self.db.transaction() as session:
            await session.execute(
                update(MailRequest)
                .where((MailRequest.id == request.id) & (MailRequest.lease_owner == self.worker_id))
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            session.add(
                MailAttempt(
                    request_id=request.id,
                    attempt_no=request.attempts,
                    worker=self.worker_id,
                    started_at=started,
                    finished_at=now,
                    outcome=outcome,
                    detail=detail[:2000],
                )
            )


def _gave_up(exc: Exception, request: MailRequest) -> str:
    return f"gave up after {request.attempts} attempts: {exc}"
