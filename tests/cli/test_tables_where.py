"""`python -m app tables where` lists every registered process, a killed one too (its row
stays until the next process registers), and marks each live or silent by its heartbeat."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.cli.tables import describe
from app.store.lease_models import ServerProcess

NOW = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)


def _process(heartbeat_ago: float) -> ServerProcess:
    return ServerProcess(
        id="a" * 32, host="box", pid=4242, started_at=NOW - timedelta(hours=1),
        heartbeat_at=NOW - timedelta(seconds=heartbeat_ago), fanout="redis", capacity=500,
    )  # fmt: skip


def test_a_fresh_heartbeat_is_live() -> None:
    line = describe(_process(0.4), [3, 7], NOW, lease_seconds=5.0)
    assert line.endswith("tables [3, 7]  heartbeat 0.4 s ago (live)")
    assert "pid 4242 on box" in line


def test_a_heartbeat_a_lease_old_is_dead() -> None:
    assert describe(_process(5.0), [], NOW, lease_seconds=5.0).endswith(
        "heartbeat 5.0 s ago (silent, dead)"
    )
    assert describe(_process(4.9), [], NOW, lease_seconds=5.0).endswith("(live)")
