"""Evening out the tables between live server processes (issue 25): when a process joins or
comes back, the most loaded one hands tables to it between hands, by the hand-over a move
uses (`Handover.move_to`: no new hand, the hand in play ends and is written, the lease is
given to the target, which takes it), so nothing is voided. Each heartbeat may start one round
in the background (`tick`: the heartbeat never waits for a hand to end); the process op
`balance` runs a round on demand (`python -m app tables balance`). Who sheds what is
`app.tables.balance.plan`.

A round leaves out a table being handed over already (an operator's move of it is under
way, or it is being claimed here), and an automatic round also one an operator moved here
in the last `handover.HELD_ROUNDS` automatic rounds here (`Handover.held`): an operator's
move is not undone at once; `tables balance`, an operator's newer order, may move it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from app import metrics
from app.store.types import utcnow
from app.tables.balance import plan
from app.tables.errors import TableError
from app.tables.handover import Handover
from app.tables.peers import GATHER_TIMEOUT
from app.tables.table import Table

log = logging.getLogger("app.tables.rebalance")


@dataclass(frozen=True, slots=True)
class Balancing:
    """The settings: `step` tables a round at most (0: only on demand), the `margin` a share
    may be missed by, the `hold_down` after a process joins, and how long a hand may take to
    end (`seconds`) before its table stays where it is."""

    step: int = 0
    margin: int = 1
    hold_down: float = 5.0
    seconds: float = 30.0


def _order(table: Table) -> tuple[bool, bool, int]:
    """Which tables go first: cash tables before tournament tables (a directed table waits
    for its director's orders), those between hands now, then the newest."""
    state = table.state
    return (state.directed is not None, state.hand is not None, -table.id)


def choose(running: list[Table], count: int, skip: set[int]) -> list[Table]:
    """The `count` tables to hand over first (`_order`), none of `skip`."""
    return sorted((t for t in running if t.id not in skip), key=_order)[:count]


def age(held: dict[int, int], running: set[int]) -> None:
    """One automatic round has passed: each hold is a round shorter; a table gone from here
    holds nothing."""
    for table_id, left in list(held.items()):
        if left <= 1 or table_id not in running:
            del held[table_id]
        else:
            held[table_id] = left - 1


class Rebalancer:
    def __init__(self, handover: Handover, balancing: Balancing) -> None:
        self.handover = handover
        self.balancing = balancing
        self._round = asyncio.Lock()  # one round at a time here, automatic or asked for
        self._task: asyncio.Task[Any] | None = None
        handover.router.process_op("balance", self._balance)

    def tick(self) -> None:
        """Each heartbeat: start a round unless one is under way or rebalancing is only on
        demand."""
        if self.balancing.step <= 0 or (self._task is not None and not self._task.done()):
            return
        self._task = asyncio.get_running_loop().create_task(self._automatic(), name="rebalance")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _automatic(self) -> None:
        b = self.balancing
        try:
            await self.round(b.step, b.seconds, b.hold_down, automatic=True)
        except Exception as exc:  # the database or Redis is away: the next heartbeat tries
            log.warning("rebalancing failed (%s)", type(exc).__name__)

    async def _balance(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """The process op: one round now, no hold-down (an operator asked)."""
        step = int(args.get("step", self.balancing.step))
        return await self.round(step, float(args.get("seconds", self.balancing.seconds)), 0.0)

    async def round(
        self, step: int, seconds: float, hold_down: float, *, automatic: bool = False
    ) -> list[dict[str, Any]]:
        """If this process is the one to shed, hand its tables over as `plan` says; returns
        the moves made (`table`, `from`, `to`). `automatic`: a heartbeat's round (it ages
        the holds and respects them)."""
        router = self.handover.router
        directory = router.directory
        async with self._round:
            if directory is None or step <= 0 or router.tables.draining:  # it sheds all
                return []
            held = self.handover.held
            if automatic:
                age(held, {t.id for t in router.tables.running()})
            if router.tables.runs_none():
                return []  # it never sheds: no need to ask who carries what
            loads = await directory.loads()
            shed = plan(
                loads,
                now=utcnow(),
                hold_down=hold_down,
                minimum_margin=self.balancing.margin,
                step=step,
            )
            if shed is None or shed.source != router.me:
                return []
            ready = {t for t in set(shed.targets) if await self._ready(t)}
            targets = [t for t in shed.targets if t in ready]
            skip = self.handover.handing | (set(held) if automatic else set())
            chosen = choose(router.tables.running(), len(targets), skip)
            moves = list(zip((t.id for t in chosen), targets, strict=False))
            owners = await asyncio.gather(*(self._move(t, to, seconds) for t, to in moves))
        done = [
            {"table": table, "from": router.me, "to": target}
            for (table, target), (_, owner) in zip(moves, owners, strict=True)
            if owner == target
        ]
        metrics.REBALANCED.inc(len(done))
        if done:
            log.warning("rebalanced: %s", ", ".join(f"{d['table']} to {d['to']}" for d in done))
        return done

    async def _move(self, table_id: int, target: str, seconds: float) -> tuple[bool, str | None]:
        """One table of the round; one an operator's move took up meanwhile stays out of it."""
        try:
            return await self.handover.move_to(table_id, target, seconds)
        except TableError as exc:
            if exc.code != "table_moving":
                raise
            return False, None

    async def _ready(self, process: str) -> bool:
        """A target answers and has room (its router listens once its start-up claims are
        done; a draining process has none)."""
        try:
            room = await asyncio.wait_for(
                self.handover.router.ask_process(process, "room", {}), GATHER_TIMEOUT
            )
        except (TableError, TimeoutError):
            return False
        return room is None or int(room) > 0
