"""One catalogue per language: every language has every key English has, with the
same {places}, and every key the client's code asks for exists; the same for the emails."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.mail.texts import TEXTS
from app.store.models import TxKind
from app.store.moderation import OPERATOR_ACTIONS
from app.wire.catalog import ENGINE_EVENTS
from app.wire.client import MESSAGES, type_of
from app.wire.events import TABLE_EVENTS

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
LANGUAGES = ("en", "nl", "de")
PLACE = re.compile(r"\{(\w+)\}")


def catalogue(code: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((FRONTEND / "i18n" / f"{code}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("code", ["nl", "de"])
def test_each_catalogue_has_every_english_key_with_the_same_places(code: str) -> None:
    english, other = catalogue("en"), catalogue(code)
    assert sorted(set(english) - set(other)) == [], f"{code} lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{code} has keys English does not"
    for key, text in english.items():
        assert other[key].strip(), f"{code}: {key} is empty"
        assert set(PLACE.findall(other[key])) == set(PLACE.findall(text)), (code, key)


def test_every_key_the_client_asks_for_is_in_the_catalogue() -> None:
    english = catalogue("en")
    asked: set[str] = set()
    for path in (FRONTEND / "js").rglob("*.js"):
        asked |= set(re.findall(r'\bt\("([a-z0-9_.]+)"', path.read_text("utf-8")))
    assert len(asked) > 200
    assert sorted(asked - set(english)) == []


def test_the_admin_page_names_every_posting_kind_and_logged_action() -> None:
    """The operators' page says a ledger line's kind and a moderation log line's action in
    the page's language: each has its text."""
    english = catalogue("en")
    hosts = {type_of(m) for m in MESSAGES if type_of(m).startswith("host_")}
    actions = {*OPERATOR_ACTIONS, *hosts}
    assert "host_mute" in actions and "ban" in actions
    wanted = {f"admin.kind.{k.value}" for k in TxKind} | {f"admin.action.{a}" for a in actions}
    assert sorted(wanted - set(english)) == []


def test_the_table_model_handles_every_event_the_wire_catalogue_names() -> None:
    """A new event on the wire (as `resumed` was) is drawn or applied, not dropped unseen."""
    model = (FRONTEND / "js" / "table" / "model.js").read_text("utf-8")
    handled = set(re.findall(r'^\s*case "([a-z_]+)":', model, re.MULTILINE))
    named = {cls.type for cls in TABLE_EVENTS} | {cls.type for cls in ENGINE_EVENTS}
    assert "resumed" in named and len(named) > 30
    assert sorted(named - handled) == []


# every text that names a hand names it by its number, written "#N" in every language
HAND_NUMBERED = {
    "hand.number": "n",
    "hands.replay_n": "n",
    "log.new_hand": "n",
    "log.voided": "n",
    "mail.what.hand": "id",
    "mail.what.hands": "first",
    "mail.requested_hand": "hand",
}


@pytest.mark.parametrize("code", LANGUAGES)
def test_hands_are_named_hash_number_in_every_language(code: str) -> None:
    texts = catalogue(code)
    for key, place in HAND_NUMBERED.items():
        assert f"#{{{place}}}" in texts[key], (code, key, texts[key])
    assert "#{last}" in texts["mail.what.hands"], code


def test_amounts_have_one_rule_per_language() -> None:
    rules = {code: (catalogue(code)["money"], catalogue(code)["num.decimal"]) for code in LANGUAGES}
    assert rules == {"en": ("${amount}", "."), "nl": ("$ {amount}", ","), "de": ("{amount} $", ",")}


@pytest.mark.parametrize("code", ["nl", "de"])
def test_each_mail_catalogue_has_every_english_text(code: str) -> None:
    english, other = TEXTS["en"], TEXTS[code]
    assert set(other) == set(english)
    for key, text in english.items():
        assert set(PLACE.findall(other[key])) == set(PLACE.findall(text)), (code, key)


@pytest.mark.parametrize("code", ["nl", "de"])
def test_the_game_names_are_translated(code: str) -> None:
    """Issue 24: "Stud Hi/Lo 8 or better" reached Dutch and German players in English."""
    for key, text in catalogue(code).items():
        assert "or better" not in text.lower() and "eight-or" not in text.lower(), (code, key, text)


@pytest.mark.parametrize("code", LANGUAGES)
def test_error_texts_start_with_a_capital(code: str) -> None:
    """Issue 24: refusals started lowercase."""
    for key, text in catalogue(code).items():
        if key.startswith("error.") and text[:1].isalpha():
            assert text[0].isupper(), (code, key, text)
