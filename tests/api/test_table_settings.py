"""Table settings are checked strictly, in one place, whichever way they arrive: creating a
table over HTTP, and the host's changes over HTTP and over the table's socket (R1-R4). A
wrong value is refused with `invalid_settings` naming the field, and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from app.api import ws as ws_module
from app.tables import TableSettings
from tests.tables.live import Client, Live

# Every field with values of the wrong type or out of its range: fractions where a whole
# number belongs, numbers as text, booleans as numbers, null where null means nothing.
WRONG: dict[str, list[Any]] = {
    "name": [123, None, ["Friday"], "", "x" * 65],
    "variant": ["omaha", 1, None],
    "small_bet": [100.5, 100.0, "100", True, -100],
    "big_bet": [200.5, "200", True, 300],
    "ante": [10.5, "10", False, None, -1],
    "bring_in": [50.5, "50", True, 150],
    "max_buy_in": [1500.5, "1500", True, 999],
    "max_seats": [7.5, 7.0, "8", True, None, 9, 1],
    "action_timer_ms": [10_000.5, "10000", True, 99],
    "hand_pause_ms": [3000.5, "3000", False, -1, 0, 499],  # below a floor
    "rake_bps": [500.5, "500", True, 10_001],
    "rake_cap": [300.5, "300", True, -1],
    "rake_third_street": [1, "true", None],
    "timeout_action": [1, "check", None],
    "showdown_first_when_checked": [0, "highest", None],
    "private": [1, "yes", None],
    "sit_out_limit": [3.5, "3", True, 1001],
    "bot_delay_ms": [800.5, "800", True, 60_001, 0, 99],  # below a floor
    "raise_cap": [1, "false", None],
    "open_pair": ["tda", 14, None],
    "seat_approval": [1, "yes", None],  # True at a public table: tests/tables (R43)
    "ledger_shared": [1, "true", None],
    "rotation": ["orbits", 1, None, True],
    "rotation_hands": [0, 101, 2.0, "8", True],
    "time_bank": [-1, 601, 2.5, "30", True],  # R42
    "time_bank_refill": [-1, 601, 2.5, "5"],
    "time_bank_every": [-1, 1001, 2.5, "3"],
    "time_bank_cap": [-1, 601, 2.5, "60"],
}
BASE = {"name": "Strict", "small_bet": 100, "ante": 10}


def test_every_setting_has_wrong_values_to_try() -> None:
    assert set(WRONG) == set(TableSettings.model_fields)


def refusal_of(field: str, value: Any, detail: dict[str, Any]) -> None:
    assert detail["code"] == "invalid_settings", (field, value, detail)
    if type(value) is not int or field == "max_seats":  # a type or a field's own bound
        assert detail["message"].startswith(f"{field}: "), (field, value, detail)


async def test_r1_r3_table_creation_refuses_every_wrong_type_and_creates_nothing(
    live: Live,
) -> None:
    _, token = await live.user("host")
    async with live.http(token) as http:
        for field, values in WRONG.items():
            for value in values:
                r = await http.post("/api/tables", json={**BASE, field: value})
                assert r.status_code == 422, (field, value, r.text)
                refusal_of(field, value, r.json()["detail"])
        r = await http.post("/api/tables", json={**BASE, "private": True, "password": 7})
        assert r.status_code == 422 and r.json()["detail"]["code"] == "invalid_settings"
        r = await http.post("/api/tables", json=[BASE])
        assert r.status_code == 422 and r.json()["detail"]["code"] == "invalid_request"
        assert live.services.manager.public_tables() == []
        assert (await http.get("/api/tables/mine")).json() == {"tables": []}

        made = await http.post("/api/tables", json={**BASE, "name": "  Fine  ", "rake_cap": 0})
        assert made.status_code == 201, made.text
        table = live.table(made.json()["table"]["id"])
        assert table.state.settings.name == "Fine" and table.state.settings.rake_cap is None
        assert (table.state.settings.big_bet, table.state.settings.bring_in) == (
            200,
            50,
        )  # R2 defaults


async def test_r1_host_changes_of_the_wrong_type_are_refused_on_the_socket_and_over_http(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ws_module, "BURST", 10_000.0)  # more messages than a person sends
    host, token = await live.user("host")
    made = await live.create_table(token, **BASE)
    table_id = made["table"]["id"]
    table = live.table(table_id)
    before = table.state.settings
    me = await Client.open(live, table_id, token, host)
    async with live.http(token) as http:
        for field, values in WRONG.items():
            for value in values:
                frame = await me.call({"type": "host_settings", "changes": {field: value}})
                assert frame["type"] == "error", (field, value, frame)
                if field == "private":
                    assert frame["code"] == "invalid_settings"  # never changeable
                else:
                    refusal_of(field, value, frame)
                r = await http.post(
                    f"/api/tables/{table_id}/host",
                    json={"type": "host_settings", "changes": {field: value}},
                )
                assert r.status_code == 422, (field, value, r.text)
                assert r.json()["detail"]["code"] == "invalid_settings"
                assert table.state.settings == before, (field, value)
        shown = (await http.get(f"/api/tables/{table_id}")).json()["settings"]
        assert shown.items() >= before.to_dict().items() and shown["rake_cap"] == 0  # uncapped

    # once, after `max_seats: 7.5` the bots could not be seated and no hand was dealt
    assert (await me.call({"type": "host_settings", "changes": {"max_seats": 7.5}}))[
        "type"
    ] == "error"
    changed = await me.call({"type": "host_settings", "changes": {"max_seats": 6, "ante": 20}})
    assert changed["type"] == "ok" and changed["result"] == {"applied": True}
    assert (table.state.settings.max_seats, table.state.settings.ante) == (6, 20)
    sat = await me.call({"type": "sit", "seat": 0, "amount": 2_000, "request_id": "me"})
    assert sat["type"] == "ok", sat
    bots = await me.call({"type": "host_bots", "count": 1})
    assert bots["type"] == "ok", bots
    await live.settle(table_id, table.state.settings.hand_pause_ms / 1000)
    started = await me.wait(lambda f: f.get("type") == "hand_started")
    assert len(started["seats"]) == 2


def test_a_table_stored_below_a_floor_comes_back_at_the_floor() -> None:
    """Tables made before the floors (no think time, no pause) still restore."""
    from app.tables.settings import MIN_BOT_DELAY_MS, MIN_HAND_PAUSE_MS, TableSettings

    back = TableSettings.stored({**BASE, "hand_pause_ms": 0, "bot_delay_ms": 0})
    assert (back.hand_pause_ms, back.bot_delay_ms) == (MIN_HAND_PAUSE_MS, MIN_BOT_DELAY_MS)
    kept = TableSettings.stored({**BASE, "hand_pause_ms": 2_000, "bot_delay_ms": 300})
    assert (kept.hand_pause_ms, kept.bot_delay_ms) == (2_000, 300)
