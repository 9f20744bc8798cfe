"""`benchmarks/server.py --processes 2` runs end to end at a tiny size: two real server
processes on a fresh PostgreSQL database and Redis, every socket on a random process, the
players' acts answered and every table's events delivered to all six of its sockets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.postgresql
def test_two_processes_play_every_table_through_any_process(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
) -> None:
    out = tmp_path / "results.json"
    args = [
        sys.executable, str(ROOT / "benchmarks" / "server.py"), "--processes", "2",
        "--only-processes", "--tables", "4", "--warmup", "1", "--seconds", "3", "--no-write",
        "--json", str(out), "--postgres", pg_server.url_for("test"), "--redis", redis_url,
    ]  # fmt: skip
    # its own session: if it hangs, it and the servers it started stop together, by its id
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        log, _ = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        pytest.fail(f"the benchmark did not finish:\n{log.decode(errors='replace')}")
    assert proc.returncode == 0, log.decode(errors="replace")
    [run] = json.loads(out.read_text())
    assert run["processes"] == 2
    assert sorted(run["placement"]) == [2, 2]  # each process owns half of the tables
    assert run["sockets"] == run["wanted"] == 24, "every socket, wherever it landed"
    assert run["remote"] > 0  # some sockets are on the process that does not own the table
    assert run["samples"] > 0 and run["acts_per_s"] > 0  # acts answered, events delivered
    assert run["timeouts"] == 0 and run["errors"] == {} and run["dropped"] == 0
    assert run["redis"]["publishes"] > 0
