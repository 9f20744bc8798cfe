"""Mail over HTTP: verify the address, ask for hand histories by email, see the requests.

POST /api/mail/verification → 202 {request}: emails a verification link to the account's
    address (GET /api/mail/verify?token=… marks it verified)
GET  /api/mail/verify?token=… → {verified: true, email} (an HTML page for a browser)
POST /api/mail/hands {hand_number} | {hand_numbers: [...]} | {last: N ≤ 100} → 202 {request}
     (a hand is named by its number, as the table and the hand list show it; the older
     names hand_id and hand_ids are still read)
GET  /api/mail/requests → {requests: [{id, kind, hand_numbers, to, status, attempts, reason, …}]}

Errors are `{"detail": {"code", "message"}}`: email_not_verified (403), not_dealt_in (403),
no_hands (404), email_already_verified (409), rate_limited (429, with Retry-After),
invalid_token (400), token_expired (410), invalid_request (422).

The worker (`app.mail.worker.MailWorker`) runs in the server's lifespan: `start_mail`,
`stop_mail`. The hand histories come from `app.state.mail_history` (a `HistorySource`).
"""

from __future__ import annotations

import html
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import AliasChoices, BaseModel, Field

from app.api.deps import DB, AppSettings, CurrentUser
from app.api.errors import api_error
from app.config import Settings
from app.mail import texts
from app.mail.errors import MailError, RateLimited
from app.mail.history import HistorySource, StoredHistory
from app.mail.requests import (
    MAX_HANDS,
    MailLimits,
    list_requests,
    request_hands,
    request_verification,
    verify,
)
from app.mail.transport import transport_for
from app.mail.worker import MailWorker, WorkerConfig, exponential_backoff
from app.store.db import Database
from app.store.outbox import MailKind, MailRequest, MailStatus
from app.store.types import utcnow

router = APIRouter(prefix="/api/mail", tags=["mail"])


# a hand's number (as the table and the hand list show it; "123" is read as 123)
HandNumber = Annotated[int, Field(ge=1, le=10**18)]


class HandsBody(BaseModel):
    # "hand_id"/"hand_ids": their names before (a hand's id is its secret token elsewhere)
    hand_number: HandNumber | None = Field(
        None, validation_alias=AliasChoices("hand_number", "hand_id")
    )
    hand_numbers: Annotated[list[HandNumber], Field(max_length=MAX_HANDS)] = Field(
        [], validation_alias=AliasChoices("hand_numbers", "hand_ids")
    )
    last: Annotated[int | None, Field(ge=1, le=MAX_HANDS)] = None


def default_history() -> HistorySource:
    """The hand histories mail reads: the hands the table server stored."""
    return StoredHistory()


def install(app: FastAPI, settings: Settings) -> None:
    app.state.mail_limits = MailLimits.from_settings(settings)
    if getattr(app.state, "mail_history", None) is None:
        app.state.mail_history = default_history()
    app.include_router(router)


def start_mail(app: FastAPI, db: Database, settings: Settings) -> MailWorker:
    """Start the outbox worker (SMTP_URL, else the Maildir); it first sends what is pending."""
    worker = MailWorker(
        db,
        transport_for(settings.smtp_url, settings.effective_maildir, ca_file=settings.smtp_ca_file),
        app.state.mail_history,
        config=WorkerConfig.from_settings(settings),
        backoff=exponential_backoff(
            settings.mail_retry_base_seconds, settings.mail_retry_max_seconds
        ),
    )
    app.state.mail_worker = worker
    if settings.mail_worker_enabled:
        worker.start()
    return worker


async def stop_mail(app: FastAPI) -> None:
    worker: MailWorker | None = getattr(app.state, "mail_worker", None)
    if worker is not None:
        await worker.stop()


def _error(exc: MailError) -> Exception:
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
    return api_error(exc.status, exc.code, exc.message, headers=headers)


def _notify(request: Request) -> None:
    worker: MailWorker | None = getattr(request.app.state, "mail_worker", None)
    if worker is not None:
        worker.notify()


def describe(row: MailRequest) -> dict[str, Any]:
    """A request as its player sees it: queued (maybe retrying), sent, or failed and why."""
    numbers = list(row.payload.get("hand_ids", [])) if row.kind == MailKind.HANDS else []
    return {
        "id": row.id,
        "kind": row.kind,
        "hand_numbers": numbers,
        "hand_ids": numbers,  # the name before: clients of the release before read it
        "to": row.to_address,
        "status": row.status,
        "attempts": row.attempts,
        "reason": row.last_error if row.status == MailStatus.FAILED else None,
        "last_error": row.last_error,
        "created_at": row.created_at.isoformat(),
        "next_attempt_at": (
            row.next_attempt_at.isoformat() if row.status == MailStatus.QUEUED else None
        ),
        "sent_at": row.sent_at.isoformat() if row.sent_at else None,
    }


@router.post("/verification", status_code=202)
async def ask_verification(
    request: Request, user: CurrentUser, db: DB, settings: AppSettings
) -> dict[str, Any]:
    try:
        row = await request_verification(
            db,
            user_id=user.id,
            base_url=settings.effective_public_base_url,
            now=utcnow(),
            limits=request.app.state.mail_limits,
        )
    except MailError as exc:
        raise _error(exc) from None
    _notify(request)
    return {"request": describe(row)}


@router.get("/verify", response_model=None)
async def verify_address(
    request: Request,
    db: DB,
    settings: AppSettings,
    token: Annotated[str, Query(max_length=200)] = "",
) -> dict[str, Any] | HTMLResponse:
    browser = "text/html" in request.headers.get("accept", "")
    language = texts.from_accept_language(request.headers.get("accept-language", ""))
    try:
        email = await verify(db, token, now=utcnow())
    except MailError as exc:
        if browser:
            title = texts.text(language, "page.not_verified")
            return _page(settings, language, title, exc.message, exc.status)
        raise _error(exc) from None
    if browser:
        title = texts.text(language, "page.verified")
        said = texts.text(language, "page.verified_text", email=email)
        return _page(settings, language, title, said, 200)
    return {"verified": True, "email": email}


def _page(settings: Settings, language: str, title: str, said: str, status: int) -> HTMLResponse:
    """A page in the site's own style (its stylesheet, header and panel), with the way back."""
    site = html.escape(settings.site_name)
    back = html.escape(texts.text(language, "page.back"))
    ok = "ok" if status == 200 else "failed"
    body = (
        f"<!doctype html><html lang='{language}'><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<meta name=color-scheme content=dark>"
        f"<title>{html.escape(title)} · {site}</title><link rel=icon href='data:,'>"
        "<link rel=stylesheet href='/static/css/app.css'></head><body>"
        "<header class=topbar><a class=brand href='/lobby'>"
        f"<span class=brand-mark aria-hidden=true>♠</span><span class=brand-name>{site}</span>"
        "</a></header><main id=main>"
        f"<section class='panel narrow verify-page verify-{ok}'><h1>{html.escape(title)}</h1>"
        f"<p>{html.escape(said)}</p><a class='btn primary' href='/lobby'>{back}</a></section>"
        "</main></body></html>"
    )
    return HTMLResponse(body, status_code=status)


@router.post("/hands", status_code=202)
async def ask_hands(body: HandsBody, request: Request, user: CurrentUser, db: DB) -> dict[str, Any]:
    numbers = ([body.hand_number] if body.hand_number is not None else []) + body.hand_numbers
    if (body.last is None) == (not numbers):
        raise api_error(
            422,
            "invalid_request",
            "name the hands (hand_number or hand_numbers) or ask for the last N",
        )
    try:
        row = await request_hands(
            db,
            request.app.state.mail_history,
            user_id=user.id,
            now=utcnow(),
            limits=request.app.state.mail_limits,
            numbers=numbers,
            last=body.last,
        )
    except MailError as exc:
        raise _error(exc) from None
    _notify(request)
    return {"request": describe(row)}


@router.get("/requests")
async def my_requests(user: CurrentUser, db: DB) -> dict[str, Any]:
    rows = await list_requests(db, user.id)
    return {"requests": [describe(row) for row in rows]}
