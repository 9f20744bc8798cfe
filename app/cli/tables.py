"""Where the tables run, and moving one: `python -m app tables where` lists every registered
server process, not only the live ones (a killed one stays registered until a process
starting on the database finds it dead: each line says how old its heartbeat is and whether
that makes it live) and the tables each runs; `python -m app tables move ID [--to
PROCESS]` asks the table's owner to hand it over between hands (to PROCESS, else the
process with most room); `python -m app tables balance` evens the tables out between the
live processes (`app.tables.rebalance`), printing each move.

`move` exits 0 once the table runs on the target (read back from its lease); 1 when nothing
moved (refused: no such table or process, the target is full or silent, the table is
being handed over already; or the hand did not end in time); 2 when the table was let go
but landed elsewhere (the target did not take it after all): it says where."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import sys
from collections.abc import AsyncIterator
from typing import Any

from app.config import Settings, get_settings
from app.fanout import create_fanout
from app.store import processes
from app.store.db import Database
from app.store.directory import Directory
from app.store.processes import describe
from app.store.types import utcnow
from app.tables.balance import plan
from app.tables.errors import TableError
from app.tables.handover import CLAIM_TIMEOUT
from app.tables.rpc import TableRouter
from app.tables.table import Table

EXIT_OK, EXIT_REFUSED, EXIT_ELSEWHERE = 0, 1, 2
__all__ = ["describe"]  # one line of `where` (tests read it from here)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser(
        "where",
        help="every registered server process, live or silent (by heartbeat age), and the "
        "tables each runs",
    )
    move = actions.add_parser(
        "move",
        help="move a table to another process between hands",
        description=(
            "Refused at once when the target is full, silent or not a live process. Else the "
            "table's owner deals no new hand; once the hand being played is over and "
            "written, it stops the table and the other process claims it (a new epoch; "
            "players everywhere get its snapshot). Needs REDIS_URL and DATABASE_URL. "
            "Exit 0: it runs on the target; 1: nothing moved; 2: it landed elsewhere."
        ),
    )
    balance = actions.add_parser(
        "balance",
        help="even the tables out between the live processes, between hands",
        description=(
            "While a process is further from its fair share than REBALANCE_MARGIN, the most "
            "loaded one hands tables to those below their share, each once its hand is over "
            "(nothing is voided). Prints each move. Needs REDIS_URL and DATABASE_URL. "
            "Exit 0: balanced; 1: not (a hand did not end in time, a process is full or "
            "silent)."
        ),
    )
    balance.add_argument(
        "--seconds", type=float, default=30.0, help="how long to wait for each hand to end"
    )
    move.add_argument("table", type=int)
    move.add_argument("--to", help="the process id to move it to (see `where`)")
    move.add_argument(
        "--seconds", type=float, default=30.0, help="how long to wait for the hand to end"
    )


def run(args: argparse.Namespace) -> int:
    if args.action == "where":
        return asyncio.run(_where())
    if args.action == "balance":
        return asyncio.run(_balance(args.seconds))
    return asyncio.run(_move(args.table, args.to, args.seconds))


async def _where() -> int:
    settings = get_settings()
    db = Database(settings.effective_database_url)
    try:
        found = await processes.where(db)
    finally:
        await db.dispose()
    now = utcnow()
    for p, tables in found:
        print(describe(p, tables, now, settings.lease_seconds))
    return EXIT_OK


async def _claimed(directory: Directory, table_id: int, seconds: float) -> str | None:
    """The table's owner once some process holds its lease (None: nobody within `seconds`)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        where = await directory.whereabouts(table_id)
        if where.owner is not None or asyncio.get_running_loop().time() >= deadline:
            return where.owner
        await asyncio.sleep(0.1)


class NoTables:
    """This command runs no table: every table is another process's."""

    draining = True

    def get(self, table_id: int) -> Table | None:
        return None

    def running(self) -> list[Table]:
        return []

    def room(self) -> int | None:
        return 0

    def runs_none(self) -> bool:
        return True

    async def adopt(self, only: list[int] | None = None) -> list[int]:
        return []

    async def move(
        self, table_id: int, seconds: float, then: Any, *, to: str | None = None
    ) -> bool:
        return False

    async def take_back(self, table_id: int) -> list[int]:
        return []


@contextlib.asynccontextmanager
async def _asking(
    settings: Settings, seconds: float
) -> AsyncIterator[tuple[Directory, TableRouter]]:
    """A router that asks the server processes (no tables of its own), closed after: it
    waits for a hand to end (`seconds`) and the target's claim, and then some."""
    db = Database(settings.effective_database_url)
    fanout = create_fanout(settings.fanout_url, namespace=settings.redis_namespace)
    directory = Directory(db, lease_seconds=settings.lease_seconds)
    router = TableRouter(
        NoTables(),
        fanout,
        me=secrets.token_hex(16),
        directory=directory,
        timeout=seconds + CLAIM_TIMEOUT + 10,
    )
    try:
        await router.start()
        yield directory, router
    finally:
        await router.stop()
        await fanout.close()
        await db.dispose()


async def _move(table_id: int, to: str | None, seconds: float) -> int:
    settings = get_settings()
    if settings.fanout_url.startswith("memory://"):
        print("moving a table needs several processes: set REDIS_URL", file=sys.stderr)
        return EXIT_REFUSED
    async with _asking(settings, seconds) as (directory, router):
        try:
            where = await directory.whereabouts(table_id)
            if not where.open or where.owner is None:
                print(f"table {table_id} is not running anywhere now", file=sys.stderr)
                return EXIT_REFUSED
            args = {"table": table_id, "to": to, "seconds": seconds}
            answer = await router.ask_process(where.owner, "move", args)
            if not answer["moved"]:
                print(
                    f"table {table_id}: its hand did not end in {seconds} s; "
                    f"it plays on at {where.owner}",
                    file=sys.stderr,
                )
                return EXIT_REFUSED
            target = answer["target"]
            # what the leases say, not what was hoped: a table nobody took is claimed by a
            # heartbeat within a lease time
            owner = await _claimed(directory, table_id, settings.lease_seconds * 2)
            if owner == target:
                print(f"table {table_id} moved from {where.owner} to {target}")
                return EXIT_OK
            said = f"runs on {owner}" if owner else "is not claimed by any process yet"
            again = " again" if owner == where.owner else ""
            print(
                f"table {table_id} did not move to {target} (it did not take it); it {said}{again}",
                file=sys.stderr,
            )
            return EXIT_ELSEWHERE
        except TableError as exc:
            print(f"table {table_id}: {exc.message} ({exc.code})", file=sys.stderr)
            return EXIT_REFUSED


async def _balance(seconds: float) -> int:
    """Round after round, the process `plan` names sheds (the process op `balance`) until
    the shares are met or a round moves nothing."""
    settings = get_settings()
    if settings.fanout_url.startswith("memory://"):
        print("balancing tables needs several processes: set REDIS_URL", file=sys.stderr)
        return EXIT_REFUSED
    async with _asking(settings, seconds) as (directory, router):
        try:
            while True:
                loads = await directory.loads()
                shed = plan(
                    loads,
                    now=utcnow(),
                    hold_down=0.0,
                    minimum_margin=settings.rebalance_margin,
                    step=len(loads) * max((ld.tables for ld in loads), default=0),
                )
                if shed is None:
                    counts = ", ".join(f"{ld.process} {ld.tables}" for ld in loads)
                    print(f"balanced: {counts or 'no live process'}")
                    return EXIT_OK
                args = {"seconds": seconds, "step": len(shed.targets)}
                moves = await router.ask_process(shed.source, "balance", args)
                for move in moves:
                    print(f"table {move['table']} moved from {move['from']} to {move['to']}")
                if not moves:
                    print(
                        f"{shed.source} moved nothing (its hands did not end in {seconds} s, or "
                        "the processes below their share are full or silent)",
                        file=sys.stderr,
                    )
                    return EXIT_REFUSED
        except TableError as exc:
            print(f"balancing: {exc.message} ({exc.code})", file=sys.stderr)
            return EXIT_REFUSED
