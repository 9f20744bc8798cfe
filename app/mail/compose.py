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

from app.mail.history import HandHistory

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


def hands_subject(site_name: str, numbers: Sequence[int]) -> str:
    """The hands by their numbers, as the table and the hand list show them."""
    if len(numbers) == 1:
        return f"{site_name}: hand #{numbers[0]}"
    if len(numbers) <= MAX_SUBJECT_HANDS:
        listed = ", ".join(f"#{n}" for n in numbers)
        return f"{site_name}: hands {listed}"
    return f"{site_name}: {len(numbers)} hands, #{numbers[-1]} to #{numbers[0]}"


def hands_message(
    *,
    site_name: str,
    sender: str,
    to_name: str,
    to_address: str,
    hands: Sequence[tuple[int, HandHistory]],
) -> EmailMessage:
    """The histories as the plain-text body (PokerStars style, amounts in dollars), each
    PHH attached as `hand-<number>.phh`."""
    ids = [number for number, _ in hands]
    message = _new_message(
        site_name=site_name,
        sender=sender,
        to_name=to_name,
        to_address=to_address,
        subject=hands_subject(site_name, ids),
    )
    intro = (
        f"The hand history you asked for ({len(ids)} hand{'s' if len(ids) != 1 else ''}).\n"
        "Each hand is also attached in the open PHH format (hand-<number>.phh).\n\n"
    )
    texts = [history.pokerstars_text.rstrip("\n") + "\n" for _, history in hands]
    message.set_content(intro + "\n\n".join(texts), subtype="plain", charset="utf-8")
    for number, history in hands:
        message.add_attachment(
            history.phh, subtype="plain", charset="utf-8", filename=f"hand-{number}.phh"
        )
    return message


def verification_message(
    *, site_name: str, sender: str, to_name: str, to_address: str, url: str, hours: float
) -> EmailMessage:
    message = _new_message(
        site_name=site_name,
        sender=sender,
        to_name=to_name,
        to_address=to_address,
        subject=f"{site_name}: confirm your email address",
    )
    message.set_content(
        f"Someone (we hope you) asked {site_name} to email hand histories to this address.\n"
        f"To confirm it, open this link within {hours:g} hours:\n\n{url}\n\n"
        "If it was not you, ignore this message.\n",
        subtype="plain",
        charset="utf-8",
    )
    return message
