"""Tables played over real sockets with the admin routes (tests/tables/live.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.fanout import create_fanout
from app.store.db import Database
from app.tables import FakeClock
from tests.tables.live import Live, live_server


@pytest.fixture
async def live(db: Database) -> AsyncIterator[Live]:
    fanout = create_fanout("memory://")
    try:
        async with live_server(db, fanout, FakeClock()) as server:
            yield server
    finally:
        await fanout.close()
