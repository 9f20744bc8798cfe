"""Mail fixtures: a real SMTP server on loopback and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.mail.support import FakeClock, SmtpSink


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
