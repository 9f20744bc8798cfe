"""`create_fanout` picks the backend from the URL (`Settings.fanout_url`)."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.fanout import GAP, Fanout, MemoryFanout, Signal, channels, create_fanout
from app.fanout.redis_backend import RedisFanout
from tests.fanout.support import receive


async def test_memory_is_the_embedded_default() -> None:
    fanout = create_fanout(Settings(redis_url=None).fanout_url)
    assert isinstance(fanout, MemoryFanout)
    await fanout.close()


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://h:6380", "unix:///r.sock"])
async def test_redis_urls_pick_redis_without_connecting_yet(url: str) -> None:
    fanout = create_fanout(url, namespace="x")
    assert isinstance(fanout, RedisFanout)
    await fanout.close()


def test_an_unknown_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="memory:// or redis://"):
        create_fanout("kafka://somewhere")


def test_queue_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        create_fanout("memory://", queue_size=0)


async def test_a_backend_is_a_fanout_and_a_gap_is_not_a_message() -> None:
    fanout: Fanout = create_fanout("memory://")
    sub = await fanout.subscribe(channels.table(1))
    await fanout.publish(channels.table(1), "tables changed")
    _, message = await receive(sub)
    assert message is not GAP
    assert isinstance(message, str)
    assert GAP is Signal.GAP
    await fanout.close()
