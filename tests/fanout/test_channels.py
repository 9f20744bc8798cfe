"""Channel names are made in one place, with room for nothing ambiguous."""

from __future__ import annotations

import pytest

from app.fanout import channels


def test_names() -> None:
    assert channels.table(42) == "table:42"
    assert channels.table("k3J-x_9") == "table:k3J-x_9"
    assert channels.user(42, "u-17") == "table:42:user:u-17"


@pytest.mark.parametrize(
    "make",
    [
        lambda: channels.table("1:user:2"),  # would pass for a user's channel
        lambda: channels.table(""),
        lambda: channels.table("a b"),
        lambda: channels.table(-1),
        lambda: channels.table(True),
        lambda: channels.user(1, -1),
        lambda: channels.process("a:b"),
        lambda: channels.user(1, "x" * 65),
        lambda: channels.qualify("a:b", "lobby"),
    ],
)
def test_ids_that_could_forge_or_blur_a_name_are_refused(make: object) -> None:
    assert callable(make)
    with pytest.raises(ValueError):
        make()


def test_the_namespace_goes_in_front_on_the_wire() -> None:
    assert channels.qualify("stud", channels.table(3)) == "stud:table:3"
    assert channels.DEFAULT_NAMESPACE == "stud"
