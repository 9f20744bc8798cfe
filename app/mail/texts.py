"""What the emails and the email-verified page say, one catalogue per language (the site's
own catalogues are `frontend/i18n/*.json`). The hand histories and tournament summaries
themselves stay in the PokerStars English that tracking tools read; only the words around them
are translated. Amounts and numbers are written as the site writes them in that language
(its catalogues' "money", "num.group" and "num.decimal"): "$1,234.50", "$ 1.234,50",
"1.234,50 $"; whole dollars without cents."""

from __future__ import annotations

from app.engine.pokerstars import ordinal

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
        "subject.tournament": "{site}: {name}, you finished {place} of {count}",
        "tournament.result": "{name} (tournament #{id}): you finished {place} of {count}.\n",
        "tournament.result_prize": (
            "{name} (tournament #{id}): you finished {place} of {count} ({prize}).\n"
        ),
        "tournament.attached": (
            "\nThe tournament's summary is attached (tournament-{id}-summary.txt), in English,\n"
            "the language hand-tracking tools read.\n"
        ),
        "money": "${amount}",
        "num.group": ",",
        "num.decimal": ".",
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
        "subject.tournament": "{site}: {name}, je eindigde als {place} van {count}",
        "tournament.result": "{name} (toernooi #{id}): je eindigde als {place} van {count}.\n",
        "tournament.result_prize": (
            "{name} (toernooi #{id}): je eindigde als {place} van {count} ({prize}).\n"
        ),
        "tournament.attached": (
            "\nDe samenvatting van het toernooi zit als bijlage bij dit bericht\n"
            "(tournament-{id}-summary.txt), in het Engels, de taal die trackingprogramma's lezen.\n"
        ),
        "money": "$ {amount}",
        "num.group": ".",
        "num.decimal": ",",
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
        "subject.tournament": "{site}: {name}, Platz {place} von {count}",
        "tournament.result": "{name} (Turnier #{id}): Du hast Platz {place} von {count} belegt.\n",
        "tournament.result_prize": (
            "{name} (Turnier #{id}): Du hast Platz {place} von {count} belegt ({prize}).\n"
        ),
        "tournament.attached": (
            "\nDie Zusammenfassung des Turniers ist angehängt (tournament-{id}-summary.txt),\n"
            "auf Englisch, in der Sprache, die Tracking-Programme lesen.\n"
        ),
        "money": "{amount} $",
        "num.group": ".",
        "num.decimal": ",",
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


def number(language: str, n: int) -> str:
    """A whole number with the language's grouping: 1234 -> "1,234" / "1.234"."""
    return f"{n:,}".replace(",", text(language, "num.group"))


def money(language: str, cents: int) -> str:
    """Cents as the site writes them in `language` (the browser's `money` in i18n.js):
    1240 -> "$12.40" / "$ 12,40" / "12,40 $"; 1500 -> "$15"."""
    whole, rest = divmod(abs(cents), 100)
    amount = number(language, whole)
    if rest:
        amount += f"{text(language, 'num.decimal')}{rest:02d}"
    return ("-" if cents < 0 else "") + text(language, "money", amount=amount)


def place(language: str, n: int) -> str:
    """A finishing place: "7th", "21st" / "7e" / "7" (German says "Platz 7")."""
    shown = number(language, n)
    code = language_of(language)
    if code == "en":
        return shown + ordinal(n)[len(str(n)) :]
    return shown + "e" if code == "nl" else shown
