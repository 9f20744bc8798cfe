"""Build the emails. Header values go through `header_text` (no control characters) and an
`EmailMessage` whose policy refuses CR/LF in any header, so nothing a player types (a name, a
table title) can add a header or a recipient."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

from app.engine.tournament_summary import SummaryText, render_summary, viewer_place
from app.mail import texts
from app.mail.history import HandHistory
from app.mail.texts import text

# the policy of every message: SMTP line endings; raises on CR/LF in header values
POLICY = policy.SMTP.clone(raise_on_defect=True)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
MAX_SUBJECT_HANDS = 10


def header_text(text: str, limit: int = 120) -> str:
    """`text` fit for a header: control characters (CR, LF, tab …) become one space."""
    return " ".join(_CONTROL.sub(" ", text).split())[:limit]


def _new_message(
    *, site_name: str, sender: str, to_name: str, to_address: str, subject: str
) -> EmailMessage:
    message = EmailMessage(policy=POLICY)
    local, _, domain = sender.rpartition("@")
    message["From"] = Address(header_text(site_name), local, domain)
    to_local, _, to_domain = to_address.rpartition("@")
    message["To"] = Address(header_text(to_name), to_local, to_domain)
    message["Subject"] = header_text(subject, 300)
    return message


def stamp(message: EmailMessage, *, message_id: str, date: datetime) -> None:
    """Set the Date and the Message-ID (the same for every attempt at one request)."""
    message["Date"] = format_datetime(date)
    message["Message-ID"] = message_id


def hands_subject(site_name: str, numbers: Sequence[int], language: str = "en") -> str:
    """The hands by their numbers, as the table and the hand list show them."""
    if len(numbers) == 1:
        return text(language, "subject.hand", site=site_name, id=numbers[0])
    if len(numbers) <= MAX_SUBJECT_HANDS:
        listed = ", ".join(f"#{n}" for n in numbers)
        return text(language, "subject.hands", site=site_name, ids=listed)
    return text(
        language,
        "subject.many_hands",
        site=site_name,
        count=len(numbers),
        first=numbers[-1],
        last=numbers[0],
    )


def hands_message(
    *,
    site_name: str,
    sender: str,
    to_name: str,
    to_address: str,
    hands: Sequence[tuple[int, HandHistory]],
    language: str = "en",
) -> EmailMessage:
    """The histories as the plain-text body (PokerStars style, amounts in dollars, in English
    whatever the player's language: tracking tools read it), each PHH attached as
    `hand-<number>.phh`."""
    ids = [number for number, _ in hands]
    message = _new_message(
        site_name=site_name,
        sender=sender,
        to_name=to_name,
        to_address=to_address,
        subject=hands_subject(site_name, ids, language),
    )
    one = len(ids) == 1
    intro = text(language, "hands.intro.one" if one else "hands.intro.many", count=len(ids))
    intro += text(language, "hands.attached")
    texts = [history.pokerstars_text.rstrip("\n") + "\n" for _, history in hands]
    message.set_content(intro + "\n\n".join(texts), subtype="plain", charset="utf-8")
    for number, history in hands:
        message.add_attachment(
            history.phh, subtype="plain", charset="utf-8", filename=f"hand-{number}.phh"
        )
    return message


def verification_message(
    *,
    site_name: str,
    sender: str,
    to_name: str,
    to_address: str,
    url: str,
    hours: float,
    language: str = "en",
) -> EmailMessage:
    message = _new_message(
        site_name=site_name,
        sender=sender,
        to_name=to_name,
        to_address=to_address,
        subject=text(language, "subject.verify", site=site_name),
    )
    body = text(language, "verify.body", site=site_name, hours=f"{hours:g}", url=url)
    message.set_content(body, subtype="plain", charset="utf-8")
    return message


def _result(summary: SummaryText) -> tuple[int, int]:
    """The viewer's place and what they won (every entry's prize together)."""
    where = viewer_place(summary)
    if where is None:
        raise ValueError("a tournament's summary mail is for a player who finished it")
    won = sum(p.prize for p in summary.places if p.name == summary.viewer)
    return where, won


def tournament_summary_subject(site_name: str, summary: SummaryText, language: str = "en") -> str:
    where, _ = _result(summary)
    return text(
        language,
        "subject.tournament",
        site=site_name,
        name=summary.name,
        place=texts.place(language, where),
        count=texts.number(language, summary.entrants),
    )


def tournament_summary_message(
    *,
    site_name: str,
    sender: str,
    to_name: str,
    to_address: str,
    summary: SummaryText,
    language: str = "en",
) -> EmailMessage:
    """The viewer's result in their language, and the tournament's summary in PokerStars'
    English form attached as `tournament-<number>-summary.txt`. Like the hand mails (R24) it
    shows only what the summary does: places, names, countries and prizes, never a card."""
    where, won = _result(summary)
    message = _new_message(
        site_name=site_name,
        sender=sender,
        to_name=to_name,
        to_address=to_address,
        subject=tournament_summary_subject(site_name, summary, language),
    )
    words = {
        "name": summary.name,
        "id": summary.tournament_id,
        "place": texts.place(language, where),
        "count": texts.number(language, summary.entrants),
    }
    if won:
        prize = texts.money(language, won)
        body = text(language, "tournament.result_prize", prize=prize, **words)
    else:
        body = text(language, "tournament.result", **words)
    body += text(language, "tournament.attached", id=summary.tournament_id)
    message.set_content(body, subtype="plain", charset="utf-8")
    message.add_attachment(
        render_summary(summary),
        subtype="plain",
        charset="utf-8",
        filename=f"tournament-{summary.tournament_id}-summary.txt",
    )
    return message
