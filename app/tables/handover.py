"""Tables changing hands between server processes: a process that lets tables go (it is
draining, or a table is moved) has another live one claim them at once (`hand_over`) rather
than at its next heartbeat; `tables move` asks a table's owner to move it (the process op
`move`). The ops every server process answers for this: `claim` (take these tables), `room`
(how many more it would take) and `move`.

A table being handed over here (a move or a rebalancing) is in `handing` until it is done: a
second hand-over of it is refused, and the rebalancer leaves it alone. A table an operator
moved here (`tables move`) is `held` for the next rounds of rebalancing here
(`app.tables.rebalance`), so an automatic round does not undo an operator's move at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.tables.errors import MOVED, TableError
from app.tables.peers import Peers
from app.tables.rpc import ROUTE_TIMEOUT, TableRouter

log = logging.getLogger("app.tables.handover")

# seconds the giver waits for a `claim` (not ROUTE_TIMEOUT, which is for one table command):
# the target takes the lease and restores the table as a restart does (its state, seats and
# hand records read back, its owner notice published), which a loaded database makes slow;
# given up on too early, the giver claims the table back while the target is still loading
# it (fenced by the epoch, but the move fails: "it did not take it")
CLAIM_TIMEOUT = 6 * ROUTE_TIMEOUT
HELD_ROUNDS = 30  # rounds of rebalancing that leave a table an operator moved here alone


class Handover:
    def __init__(self, router: TableRouter, peers: Peers) -> None:
        self.router = router
        self.peers = peers
        self.handing: set[int] = set()  # tables being given away or claimed here now
        self.held: dict[int, int] = {}  # table -> rebalancing rounds it stays here yet
        router.process_op("claim", self._claim)
        router.process_op("move", self._move)
        router.process_op("room", self._room)

    async def hand_over(
        self, table_ids: list[int], to: str | None = None, *, hold: bool = False
    ) -> dict[int, str]:
        """These tables were let go here (between hands): have another live process claim
        them now (`to`, or those with room, the most room first) rather than at its next
        heartbeat. One that nobody takes stays free: any process's heartbeat claims it.
        `hold`: an operator moved them, and the taker keeps them a while (`held`).
        Returns who claimed which."""
        if not table_ids:
            return {}
        given: dict[str, list[int]] = {}
        targets = await self._targets(len(table_ids), to)
        for table_id, process in zip(table_ids, targets, strict=False):
            given.setdefault(process, []).append(table_id)
        taken: dict[int, str] = {}
        await asyncio.gather(*(self._give(p, t, taken, hold) for p, t in given.items()))
        return taken

    async def _targets(self, count: int, to: str | None) -> list[str]:
        """Where `count` tables go, one process a table: `to`, else those with room."""
        if to is not None and to != self.router.me:
            return [to] * count
        targets: list[str] = []
        for room in await self.peers.rooms():
            targets += [room.process] * room.free
            if len(targets) >= count:
                break
        return targets

    async def _give(
        self, process: str, tables: list[int], taken: dict[int, str], hold: bool
    ) -> None:
        args = {"tables": tables, "hold": hold}
        try:
            claimed = await self.router.ask_process(process, "claim", args, timeout=CLAIM_TIMEOUT)
        except TableError as exc:
            log.warning("tables %s not handed to %s (%s)", tables, process, exc.code)
            return
        for table_id in claimed:
            self.router.learn(table_id, process)
            taken[table_id] = process
        declined = sorted(set(tables) - set(claimed))
        if declined:  # it filled up meanwhile: free until some process claims them
            log.warning("tables %s not taken by %s", declined, process)

    async def _claim(self, args: dict[str, Any]) -> list[int]:
        """Another process let these tables go for this one to run: the ones that run here
        now (this process's own heartbeat may have claimed one just before: it is taken all
        the same). `hold` (an operator's move): rebalancing leaves them here a while."""
        tables = self.router.tables
        wanted = [int(t) for t in args["tables"]]
        hold = bool(args.get("hold", False))  # an older process does not send it
        arriving = set(wanted) - self.handing
        self.handing |= arriving  # running here before the claim is done: not to move yet
        try:
            claimed = set(await tables.adopt(wanted))
        finally:
            self.handing -= arriving
        runs = [t for t in wanted if t in claimed or tables.get(t) is not None]
        if hold:
            self.held.update({t: HELD_ROUNDS for t in runs})
        return runs

    async def _room(self, args: dict[str, Any]) -> int | None:
        """How many more tables this process would take now (None: no limit)."""
        return self.router.tables.room()

    async def _target(self, to: str | None) -> str:
        """Where a table of this process may move: `to`, or the live process with the most
        room. Refused (`TableError`, before anything stops) when it is this process, not a
        live one, does not answer, or has no room: asked itself, not the leases' count."""
        rooms = await self.peers.rooms()
        if to is not None:
            if to == self.router.me:
                raise TableError("invalid_target", f"the table already runs on {to}")
            if to not in {r.process for r in rooms}:
                raise TableError(
                    "no_such_process", f"no live server process {to} (see `tables where`)"
                )
            candidates = [to]
        else:
            candidates = [r.process for r in rooms if r.free > 0]
        for process in candidates:
            try:
                room = await self.router.ask_process(process, "room", {})
            except TableError as exc:
                if to is None:
                    continue  # the next one, then
                raise TableError(exc.code, f"server process {to} did not answer") from None
            if room is None or room > 0:
                return process
        if to is not None:
            raise TableError(
                "server_full",
                f"server process {to} runs as many tables as it may (TABLE_CAPACITY)",
            )
        raise TableError("server_full", "no other server process has room for the table")

    async def _move(self, args: dict[str, Any]) -> dict[str, Any]:
        """Move a table this process runs to another (`to`, or the one with most room) once
        its hand is over (at most `seconds`). The answer: `moved` (False: its hand did not
        end in time, and it plays on here), the `target`, and `owner`, where it runs now: the
        target, or this process again when the target did not take it after all (it filled
        up or went away meanwhile), or None when that is not known here (a heartbeat claims
        it)."""
        table_id = int(args["table"])
        tables = self.router.tables
        if tables.get(table_id) is None:
            raise TableError("table_moved", MOVED)
        to = args.get("to")
        if table_id in self.handing:
            raise busy(table_id)
        target = await self._target(str(to) if to else None)
        seconds = float(args.get("seconds", 30.0))
        moved, owner = await self.move_to(table_id, target, seconds, hold=True)
        return {"moved": moved, "target": target, "owner": owner}

    async def move_to(
        self, table_id: int, target: str, seconds: float, *, hold: bool = False
    ) -> tuple[bool, str | None]:
        """Hand a table run here to `target` once its hand is over (at most `seconds`):
        whether it was let go, and where it runs now: the target, this process (its hand did
        not end in time, or the target did not take it: claimed back at once), or None when
        nobody could claim it (a heartbeat will). A move and a rebalancing both go this way;
        one already under way for the table refuses another (`table_moving`). `hold`: an
        operator's move (the target keeps the table a while)."""
        if table_id in self.handing:
            raise busy(table_id)
        self.handing.add(table_id)  # before any await: the check and the mark are one step
        try:
            return await self._move_to(table_id, target, seconds, hold)
        finally:
            self.handing.discard(table_id)
            if self.router.tables.get(table_id) is None:  # gone: a hold is for a table here
                self.held.pop(table_id, None)

    async def _move_to(
        self, table_id: int, target: str, seconds: float, hold: bool
    ) -> tuple[bool, str | None]:
        tables = self.router.tables
        owner: list[str | None] = [None]  # let go, and (not yet) claimed

        async def then(table_ids: list[int]) -> None:
            # the lease was given to the target: no third process can take it meanwhile
            taken = await self.hand_over(table_ids, target, hold=hold)
            if taken.get(table_id) == target:
                owner[0] = target
            elif table_id in await tables.take_back(table_id):  # not taken: back here now
                owner[0] = self.router.me
            # else the target took it after all (its heartbeat), or it expired and another
            # process claimed it: where it runs is the directory's to say (None here)

        moved = await tables.move(table_id, seconds, then, to=target)
        return moved, owner[0] if moved else self.router.me


def busy(table_id: int) -> TableError:
    return TableError(
        "table_moving",
        f"table {table_id} is being handed over already (a move or a rebalancing): try again",
    )
