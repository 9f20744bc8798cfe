"""Mail fixtures: a real SMTP server on loopback, a fake clock, engine hand histories."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.mail.support import EngineHistory, FakeClock, SmtpSink


@pytest.fixture
async def smtp() -> AsyncIterator[SmtpSink]:
    sink = SmtpSink()
    await sink.start()
    try:
        yield sink
    finally:
        await sink.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def history() -> EngineHistory:
    return EngineHistory()
