"""Emails in the player's language: the verification link and the words around
hand histories in English, Dutch or German; the PokerStars history itself stays English."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from app.mail.compose import hands_message, hands_subject, verification_message
from app.mail.texts import from_accept_language, language_of
from tests.mail.test_compose import History

STARS = "PokerStars Hand #123: Seven Card Stud ($1/$2) - 2026/12/01\nSeat 1: ann ($40)\n"


def parsed(message: EmailMessage) -> tuple[str, str]:
    again = message_from_bytes(message.as_bytes(), policy=policy.default)
    assert isinstance(again, EmailMessage)
    body = again.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return str(again["Subject"]), text.replace("\r\n", "\n")


def test_verification_email_in_each_language() -> None:
    said = {}
    for code in ("en", "nl", "de"):
        message = verification_message(
            site_name="Stud",
            sender="hands@stud.test",
            to_name="ann",
            to_address="ann@example.com",
            url="http://stud.test/api/mail/verify?token=abc",
            hours=48,
            language=code,
        )
        said[code] = parsed(message)
        assert "http://stud.test/api/mail/verify?token=abc" in said[code][1]
        assert "48" in said[code][1]
    assert said["en"][0] == "Stud: confirm your email address"
    assert said["nl"][0] == "Stud: bevestig je e-mailadres"
    assert said["de"][0] == "Stud: Bestätige deine E-Mail-Adresse"
    assert "binnen 48 uur" in said["nl"][1] and "innerhalb von 48 Stunden" in said["de"][1]


def test_hand_history_email_speaks_the_language_but_the_history_stays_english() -> None:
    message = hands_message(
        site_name="Stud",
        sender="hands@stud.test",
        to_name="ann",
        to_address="ann@example.com",
        hands=[(12, History(STARS, 'variant = "7S"\n')), (11, History(STARS, "x\n"))],
        language="de",
    )
    subject, body = parsed(message)
    assert subject == "Stud: Hände #12, #11"
    assert body.startswith("Die Hand-Historie, die du angefordert hast (2 Hände).")
    assert STARS in body  # word for word: tracking tools read it
    assert hands_subject("Stud", [7], "nl") == "Stud: hand #7"


def test_an_unknown_language_falls_back_to_english() -> None:
    assert language_of("fr") == "en" and language_of(None) == "en"
    assert from_accept_language("fr-FR,de;q=0.8,en;q=0.5") == "de"
    assert from_accept_language("") == "en"
