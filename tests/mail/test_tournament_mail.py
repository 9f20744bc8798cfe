"""The tournament summary mail: the player's result in their language, the summary attached in
PokerStars' English form; places, names and prizes only (R24); nothing a name holds can add a
header or a recipient."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from app.engine.tournament_summary import Place, SummaryText, render_summary
from app.mail.compose import tournament_summary_message, tournament_summary_subject
from app.mail.texts import LANGUAGES, TEXTS, money, number, place
from app.mail.transport import SmtpTransport
from tests.engine.test_tournament_summary import read_summary
from tests.mail.support import SmtpSink

EVIL = "eve\r\nBcc: victim@example.com\r\nSubject: free chips"
FRONTEND = Path(__file__).resolve().parents[2] / "frontend" / "i18n"


def summary(**changes: object) -> SummaryText:
    places = [Place(n, f"p{n}", "Netherlands") for n in range(1, 61)]
    places[0] = Place(1, "ann", "Netherlands", 40_000)
    places[1] = Place(2, "bob", "Germany", 18_760)
    places[6] = Place(7, "me", None, 1240)
    s = SummaryText(
        tournament_id=42, name="Friday Stud", variant="razz", buy_in=1000, fee=100,
        entrants=60, prize_pool=60_000, started_at=datetime(2026, 12, 1, 20, tzinfo=UTC),
        finished_at=datetime(2026, 12, 1, 23, 5, tzinfo=UTC), places=places, viewer="me",
    )  # fmt: skip
    return dataclasses.replace(s, **changes)  # type: ignore[arg-type]


def parsed(message: EmailMessage) -> EmailMessage:
    again = message_from_bytes(message.as_bytes(), policy=policy.default)
    assert isinstance(again, EmailMessage)
    return again


def body_and_files(message: EmailMessage) -> tuple[str, str, dict[str, str]]:
    again = parsed(message)
    body = again.get_body(("plain",))
    assert body is not None
    files = {}
    for part in again.iter_attachments():
        assert part.get_content_type() == "text/plain"
        files[str(part.get_filename())] = str(part.get_content()).replace("\r\n", "\n")
    return str(again["Subject"]), str(body.get_content()).replace("\r\n", "\n"), files


def message(s: SummaryText, language: str = "en", to_name: str = "me") -> EmailMessage:
    return tournament_summary_message(
        site_name="Stud", sender="hands@stud.test", to_name=to_name,
        to_address="me@example.com", summary=s, language=language,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("language", "subject", "result"),
    [("en", "Stud: Friday Stud, you finished 7th of 60",
      "Friday Stud (tournament #42): you finished 7th of 60 ($12.40)."),
     ("nl", "Stud: Friday Stud, je eindigde als 7e van 60",
      "Friday Stud (toernooi #42): je eindigde als 7e van 60 ($ 12,40)."),
     ("de", "Stud: Friday Stud, Platz 7 von 60",
      "Friday Stud (Turnier #42): Du hast Platz 7 von 60 belegt (12,40 $).")],
)  # fmt: skip
def test_the_result_in_the_players_language_and_the_summary_in_english(
    language: str, subject: str, result: str
) -> None:
    got_subject, body, files = body_and_files(message(summary(), language))
    assert got_subject == subject
    assert body.startswith(result + "\n")
    assert "tournament-42-summary.txt" in body
    assert files == {"tournament-42-summary.txt": render_summary(summary())}  # word for word
    assert files["tournament-42-summary.txt"].startswith("PokerStars Tournament #42, Limit Razz\n")


def test_no_prize_no_amount_and_big_fields_are_grouped_as_the_site_groups_them() -> None:
    places = [Place(n, f"p{n}") for n in range(1, 1235)]
    places[0] = Place(1, "ann", None, 60_000)
    places[1233] = Place(1234, "me", None)
    s = summary(entrants=1234, places=places)
    said = {code: body_and_files(message(s, code))[:2] for code in LANGUAGES}
    assert said["en"][0] == "Stud: Friday Stud, you finished 1,234th of 1,234"
    assert said["en"][1].startswith(
        "Friday Stud (tournament #42): you finished 1,234th of 1,234.\n"
    )
    assert said["nl"][0] == "Stud: Friday Stud, je eindigde als 1.234e van 1.234"
    assert said["de"][1].startswith(
        "Friday Stud (Turnier #42): Du hast Platz 1.234 von 1.234 belegt."
    )


@pytest.mark.parametrize(
    ("n", "en"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (23, "23rd"), (101, "101st"), (111, "111th"), (112, "112th")],
)  # fmt: skip
def test_places_are_ordinals_in_each_language(n: int, en: str) -> None:
    assert (place("en", n), place("nl", n), place("de", n)) == (en, f"{n}e", str(n))


def test_amounts_are_the_sites_own_per_language() -> None:
    """The mail writes money and numbers by the rule of the site's catalogue of the language."""
    for code in LANGUAGES:
        site = json.loads((FRONTEND / f"{code}.json").read_text())
        for key in ("money", "num.group", "num.decimal"):
            assert TEXTS[code][key] == site[key], (code, key)
    assert [money(code, 123_450) for code in LANGUAGES] == ["$1,234.50", "$ 1.234,50", "1.234,50 $"]
    assert [money(code, 1500) for code in LANGUAGES] == ["$15", "$ 15", "15 $"]
    assert (number("en", 1_000_000), number("de", 999)) == ("1,000,000", "999")


def test_r24_the_mail_holds_places_names_and_prizes_only() -> None:
    """The body is the result and the note on the attachment; the attachment is the summary,
    every line one of its own (read back by the summary's reader), no card, no hand."""
    s = summary()
    _, body, files = body_and_files(message(s))
    assert body.count("\n") == 4 and "***" not in body
    back = read_summary(files["tournament-42-summary.txt"])
    assert [(p.place, p.name, p.prize) for p in back.places] == [
        (p.place, p.name, p.prize) for p in s.places]  # fmt: skip
    assert back.viewer == "me"


def test_names_cannot_inject_headers() -> None:
    s = summary(name=f"Friday{EVIL}")
    again = parsed(message(s, to_name=EVIL))
    assert sorted(again.keys()) == ["Content-Type", "From", "MIME-Version", "Subject", "To"]
    assert again["Bcc"] is None
    assert [a.addr_spec for a in again["To"].addresses] == ["me@example.com"]
    assert again["Subject"] == (
        "Stud: Fridayeve Bcc: victim@example.com Subject: free chips, you finished 7th of 60"
    )


@pytest.mark.parametrize(
    "changes",
    [{"viewer": None},
     {"finished_at": None, "places": [Place(None, "me"), Place(2, "bob")], "entrants": 2}],
)  # fmt: skip
def test_a_summary_mail_is_for_a_player_who_finished(changes: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="who finished"):
        message(summary(**changes))
    with pytest.raises(ValueError, match="who finished"):
        tournament_summary_subject("Stud", summary(**changes))


async def test_the_summary_arrives_over_smtp_with_its_attachment(smtp: SmtpSink) -> None:
    await SmtpTransport.from_url(smtp.url).send(
        message(summary(), "nl"), sender="hands@stud.test", recipient="me@example.com"
    )
    [got] = await smtp.wait_for(1)
    assert got.rcpt_tos == ["me@example.com"]
    files = {p.get_filename(): p.get_content() for p in got.message.iter_attachments()}
    assert files["tournament-42-summary.txt"].replace("\r\n", "\n") == render_summary(summary())
