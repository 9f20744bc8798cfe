"""What the emails and the email-verified page say, one catalogue per language (the site's
own catalogues are `frontend/i18n/*.json`). The hand histories themselves stay in the
PokerStars English that tracking tools read; only the words around them are translated."""

from __future__ import annotations

LANGUAGES = ("en", "nl", "de")

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "subject.verify": "{site}: confirm your email address",
        "subject.hand": "{site}: hand #{id}",
        "subject.hands": "{site}: hands {ids}",
        "subject.many_hands": "{site}: {count} hands, #{first} to #{last}",
        "verify.body": (
            "Someone (we hope you) asked {site} to email hand histories to this address.\n"
            "To confirm it, open this link within {hours} hours:\n\n{url}\n\n"
            "If it was not you, ignore this message.\n"
        ),
        "hands.intro.one": "The hand history you asked for (1 hand).\n",
        "hands.intro.many": "The hand history you asked for ({count} hands).\n",
        "hands.attached": (
            "Each hand is also attached in the open PHH format (hand-<number>.phh).\n"
            "The histories are in English, the language hand-tracking tools read.\n\n"
        ),
        "page.verified": "Address verified",
        "page.verified_text": "{email} is verified.",
        "page.not_verified": "Not verified",
        "page.back": "Back to the lobby",
    },
    "nl": {
        "subject.verify": "{site}: bevestig je e-mailadres",
        "subject.hand": "{site}: hand #{id}",
        "subject.hands": "{site}: handen {ids}",
        "subject.many_hands": "{site}: {count} handen, #{first} tot #{last}",
        "verify.body": (
            "Iemand (hopelijk jij) heeft {site} gevraagd handgeschiedenissen naar dit adres "
            "te mailen.\nOpen deze link binnen {hours} uur om het te bevestigen:\n\n{url}\n\n"
            "Was jij het niet, negeer dan dit bericht.\n"
        ),
        "hands.intro.one": "De handgeschiedenis waar je om vroeg (1 hand).\n",
        "hands.intro.many": "De handgeschiedenis waar je om vroeg ({count} handen).\n",
        "hands.attached": (
            "Elke hand zit ook als bijlage in het open PHH-formaat (hand-<nummer>.phh).\n"
            "De geschiedenissen zijn in het Engels, de taal die trackingprogramma's lezen.\n\n"
        ),
        "page.verified": "Adres bevestigd",
        "page.verified_text": "{email} is bevestigd.",
        "page.not_verified": "Niet bevestigd",
        "page.back": "Terug naar de lobby",
    },
    "de": {
        "subject.verify": "{site}: Bestätige deine E-Mail-Adresse",
        "subject.hand": "{site}: Hand #{id}",
        "subject.hands": "{site}: Hände {ids}",
        "subject.many_hands": "{site}: {count} Hände, #{first} bis #{last}",
        "verify.body": (
            "Jemand (hoffentlich du) hat {site} gebeten, Hand-Historien an diese Adresse zu "
            "schicken.\nÖffne zur Bestätigung diesen Link innerhalb von {hours} Stunden:\n\n"
            "{url}\n\nWarst du es nicht, dann ignoriere diese Nachricht.\n"
        ),
        "hands.intro.one": "Die Hand-Historie, die du angefordert hast (1 Hand).\n",
        "hands.intro.many": "Die Hand-Historie, die du angefordert hast ({count} Hände).\n",
        "hands.attached": (
            "Jede Hand ist auch im offenen PHH-Format angehängt (hand-<Nummer>.phh).\n"
            "Die Historien sind auf Englisch, in der Sprache, die Tracking-Programme lesen.\n\n"
        ),
        "page.verified": "Adresse bestätigt",
        "page.verified_text": "{email} ist bestätigt.",
        "page.not_verified": "Nicht bestätigt",
        "page.back": "Zurück zur Lobby",
    },
}


def language_of(code: str | None) -> str:
    """A known language, English for anything else."""
    return code if code in TEXTS else "en"


def text(language: str, key: str, **params: object) -> str:
    """The catalogue's text for `key` in `language`, with its `{name}`s filled in."""
    return TEXTS[language_of(language)][key].format(**params)


def from_accept_language(header: str) -> str:
    """The first of the site's languages an Accept-Language header names, else English."""
    for part in header.split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in TEXTS:
            return code
    return "en"
