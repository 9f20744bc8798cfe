"""Issue 24: the server's refusals for people start with a capital; codes and a message
that starts with a field's name stay as they are."""

from app.wire.events import Error, sentence


def test_a_refusal_for_people_starts_with_a_capital() -> None:
    assert sentence("the minimum buy-in here is $10") == "The minimum buy-in here is $10"
    assert sentence("It is not your turn") == "It is not your turn"
    assert sentence("small_bet: at most $10") == "small_bet: at most $10"
    assert (
        sentence("name: Input should be a valid string") == "name: Input should be a valid string"
    )
    assert sentence("") == ""
    body = Error(ref="r1", code="not_seated", message="you are not seated").body()
    assert body == {
        "type": "error",
        "ref": "r1",
        "code": "not_seated",
        "message": "You are not seated",
    }
