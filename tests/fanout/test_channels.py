"""Channel names are made in one place, with room for nothing ambiguous."""

from __future__ import annotations

import pytest

from app.fanout import channels


def test_names() -> None:
    assert channels.lobby() == "lobby"
    assert channels.table(42) == "table:42"
    assert channels.table("k3J-x_9") == "table:k3J-x_9"
    assert channels.seat(42, 0) == "table:42:seat:0"
    assert channels.user(42, "u-17") == "table:42:user:u-17"


def test_the_lobby_and_tables_are_public_seats_and_users_private() -> None:
    assert channels.is_public(channels.lobby())
    assert channels.is_public(channels.table(1))
    assert not channels.is_public(channels.seat(1, 7))
    assert not channels.is_public(channels.user(1, 99))


@pytest.mark.parametrize(
    "make",
    [
        lambda: channels.table("1:seat:2"),  # would pass for a seat channel
        lambda: channels.table(""),
        lambda: channels.table("a b"),
        lambda: channels.table(-1),
        lambda: channels.table(True),
        lambda: channels.seat(1, -1),
        lambda: channels.user(1, "x" * 65),
        lambda: channels.qualify("a:b", "lobby"),
    ],
)
def test_ids_that_could_forge_or_blur_a_name_are_refused(make: object) -> None:
    assert callable(make)
    with pytest.raises(ValueError):
        make()


def test_seat_numbers_must_be_ints() -> None:
    with pytest.raises(ValueError):
        channels.seat(1, "2")  # type: ignore[arg-type]


def test_the_namespace_goes_in_front_on_the_wire() -> None:
    assert channels.qualify("stud", channels.table(3)) == "stud:table:3"
    assert channels.DEFAULT_NAMESPACE == "stud"
