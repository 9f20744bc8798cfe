"""The email itself: subject, sender, body and attachment; nothing a player types (a name, a
table title) can add a header or a recipient; SMTP_URL parsing."""

from __future__ import annotations

from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage, MIMEPart

import pytest

from app.mail.compose import POLICY, hands_message, hands_subject, header_text
from app.mail.transport import SmtpConfig
from tests.mail.support import SmtpSink


@dataclass(frozen=True)
class History:
    pokerstars_text: str
    phh: str


EVIL = "eve\r\nBcc: victim@example.com\r\nSubject: free chips"


def test_header_text_drops_line_breaks_and_control_characters() -> None:
    assert header_text(EVIL) == "eve Bcc: victim@example.com Subject: free chips"
    assert header_text("a\tb\x00c\x7fd\n") == "a b c d"
    assert len(header_text("x" * 500)) == 120


def test_the_message_policy_refuses_cr_or_lf_in_a_header() -> None:
    message = EmailMessage(policy=POLICY)
    with pytest.raises(ValueError, match="linefeed or carriage return"):
        message["Subject"] = "hand #1\r\nBcc: victim@example.com"


def _parsed(message: EmailMessage) -> EmailMessage:
    parsed = message_from_bytes(message.as_bytes(), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _text(part: MIMEPart) -> str:
    content: str = part.get_content()
    return content.replace("\r\n", "\n")


def test_names_and_table_titles_cannot_inject_headers() -> None:
    text = f"Table '{EVIL}'\nSeat 1: {EVIL}\n"
    message = hands_message(
        site_name=f"Stud{EVIL}",
        sender="hands@stud.test",
        to_name=EVIL,
        to_address="eve@example.com",
        hands=[(101, History(text, f'table = "{EVIL}"\n'))],
    )
    parsed = _parsed(message)
    assert sorted(parsed.keys()) == ["Content-Type", "From", "MIME-Version", "Subject", "To"]
    assert parsed["Bcc"] is None
    assert [a.addr_spec for a in parsed["To"].addresses] == ["eve@example.com"]
    assert parsed["To"].addresses[0].display_name == header_text(EVIL)
    assert parsed["Subject"] == "Studeve Bcc: victim@example.com Subject: free chips: hand #101"
    body = parsed.get_body(("plain",))
    assert body is not None and EVIL.replace("\r\n", "\n") in _text(body)


def test_subject_names_the_hands() -> None:
    assert hands_subject("Stud", [41]) == "Stud: hand #41"
    assert hands_subject("Stud", [42, 41]) == "Stud: hands #42, #41"
    many = list(range(200, 100, -1))
    assert hands_subject("Stud", many) == "Stud: 100 hands, #101 to #200"


def test_each_hand_is_attached_as_its_own_phh() -> None:
    message = hands_message(
        site_name="Stud",
        sender="hands@stud.test",
        to_name="ann",
        to_address="ann@example.com",
        hands=[(102, History("hand two", "phh two\n")), (101, History("hand one", "phh one\n"))],
    )
    parsed = _parsed(message)
    body = parsed.get_body(("plain",))
    assert body is not None and "hand two\n\n\nhand one" in _text(body)
    files = {a.get_filename(): _text(a) for a in parsed.iter_attachments()}
    assert files == {"hand-102.phh": "phh two\n", "hand-101.phh": "phh one\n"}


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.test", ("mail.test", 25, False, False, None, None)),
        ("smtp+starttls://u%40x:p%3Aw@mail.test", ("mail.test", 587, False, True, "u@x", "p:w")),
        ("smtps://user:pw@mail.test:2465", ("mail.test", 2465, True, False, "user", "pw")),
    ],
)
def test_smtp_url(url: str, expected: tuple[object, ...]) -> None:
    c = SmtpConfig.from_url(url)
    assert (c.host, c.port, c.use_tls, c.start_tls, c.username, c.password) == expected


@pytest.mark.parametrize("url", ["http://mail.test", "smtp://", "mail.test:25"])
def test_a_bad_smtp_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="SMTP_URL"):
        SmtpConfig.from_url(url)


async def test_a_crafted_name_adds_no_recipient_on_the_wire(smtp: SmtpSink) -> None:
    from app.mail.transport import SmtpTransport

    message = hands_message(
        site_name="Stud",
        sender="hands@stud.test",
        to_name=EVIL,
        to_address="eve@example.com",
        hands=[(101, History("text", "phh"))],
    )
    await SmtpTransport.from_url(smtp.url).send(
        message, sender="hands@stud.test", recipient="eve@example.com"
    )
    [got] = await smtp.wait_for(1)
    assert got.rcpt_tos == ["eve@example.com"] and got.message["Bcc"] is None
