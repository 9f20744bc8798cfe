"""Failover in a real browser: a player's page is served by one process (which runs no
table: `TABLE_CAPACITY=0`), the table it plays at runs on another. That process is killed
(`kill -9`) in the middle of a hand. The third process claims the table; the page, on the
socket it has, is told the hand was cancelled and plays the next hand, without reloading
and without opening another socket."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import PgServer
from tests.fanout.conftest import redis_url  # noqa: F401  (the fixture)
from tests.frontend.players import Player, calldown
from tests.frontend.table_kit import create_table, my_turn, open_table, register, seat_bots
from tests.serverproc import ROOT, free_port, server, server_env

pytestmark = [pytest.mark.postgresql]

# this player's turn in another hand than `old`
NEXT_HAND_TURN_JS = """([seat, old]) => {
  const h = window.studDebug?.state?.hand;
  if (!h || h.over || h.hand_id === old) return null;
  if (h.to_act === seat && h.legal && h.legal.seat === seat)
    return {hand_id: h.hand_id, turn_id: h.turn_id, legal: h.legal};
  return null;
}"""


def test_a_page_sees_its_table_come_back_after_its_process_dies(
    tmp_path: Path,
    pg_server: PgServer,
    redis_url: str,  # noqa: F811
    browser: Browser,
    shots_dir: Path,
) -> None:
    name = pg_server.new_database(template=pg_server.template)
    url = pg_server.url_for(name)
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    ports = [free_port() for _ in range(3)]
    capacity = ["10", "0", "10"]  # the page's process (1) runs no table
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        with ExitStack() as stack:
            procs = [
                stack.enter_context(
                    server(
                        tmp_path, port, tmp_path / f"p{i}.log",
                        server_env(
                            tmp_path / f"d{i}", DATABASE_URL=url, REDIS_URL=redis_url,
                            REDIS_NAMESPACE=namespace, LEASE_SECONDS="3",
                            HEARTBEAT_SECONDS="0.5", TABLE_CAPACITY=capacity[i],
                        ),
                    )
                )
                for i, port in enumerate(ports)
            ]  # fmt: skip
            base = f"http://127.0.0.1:{ports[1]}"
            me = Player(f"fo{uuid.uuid4().hex[:6]}", context.new_page(), shots_dir)
            sockets: list[Any] = []
            me.page.on("websocket", lambda ws: sockets.append(ws))
            register(me, base)
            table = create_table(me.page, max_seats=4, bot_delay_ms=100)["table"]
            open_table(me, base, table["id"])
            me.sit(0)
            seat_bots(me, 2)
            turn = my_turn(me, None)  # a hand in progress, waiting for this player
            assert not turn.get("over")
            env = server_env(tmp_path, DATABASE_URL=url)
            runner = _runner(env, procs, table["id"])
            assert runner in (0, 2)  # placed on a process with room
            procs[runner].kill()  # SIGKILL, mid-hand
            procs[runner].wait()
            log = me.page.locator("ol.log li")
            expect(log.filter(has_text="was cancelled")).to_have_count(1, timeout=30_000)
            expect(log.filter(has_text="The table is back")).to_have_count(1)
            me.shot("failover-voided")
            # the next hand, at the table's new process, through the same socket
            nxt = me.page.wait_for_function(
                NEXT_HAND_TURN_JS, arg=[me.seat, turn["hand_id"]], timeout=30_000
            ).json_value()
            me.act(nxt["turn_id"], calldown(nxt["legal"]))
            me.page.wait_for_function(  # taken by the table's new process: the turn moved on
                "(t) => { const h = window.studDebug.state.hand; return !h || h.turn_id !== t; }",
                arg=nxt["turn_id"],
            )
            assert _runner(env, procs, table["id"]) == 2 - runner
            assert len(sockets) == 1  # never reconnected
            assert not me.errors, me.errors
    finally:
        context.close()
        pg_server.drop(name)


def _runner(env: dict[str, str], procs: list[subprocess.Popen[bytes]], table_id: int) -> int:
    """Which process runs the table, as `python -m app tables where` lists them."""
    out = subprocess.run(
        [sys.executable, "-m", "app", "tables", "where"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    for line in out.splitlines():
        found = re.search(r"pid (\d+) .* tables \[([\d, ]*)\]", line)
        if found and str(table_id) in found.group(2).replace(" ", "").split(","):
            pids = [p.pid for p in procs]
            return pids.index(int(found.group(1)))
    raise AssertionError(f"table {table_id} runs nowhere: {out}")
