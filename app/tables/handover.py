"""Tables changing hands between server processes: a process that lets tables go (it is
draining, or a table is moved) has another live one claim them at once (`hand_over`) rather
than at its next heartbeat; `tables move` asks a table's owner to move it (the process op
`move`). The ops every server process answers for this: `claim` (take these tables), `room`
(how many more it would take) and `move`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.tables.errors import MOVED, TableError
from app.tables.peers import Peers
from app.tables.rpc import TableRouter

log = logging.getLogger("app.tables.handover")


class Handover:
    def __init__(self, router: TableRouter, peers: Peers) -> None:
        self.router = router
        self.peers = peers
        router.process_op("claim", self._claim)
        router.process_op("move", self._move)
        router.process_op("room", self._room)

    async def hand_over(self, table_ids: list[int], to: str | None = None) -> dict[int, str]:
        """These tables were let go here (between hands): have another live process claim
        them now (`to`, or those with room, the most room first) rather than at its next
        heartbeat. One that nobody takes stays free: any process's heartbeat claims it.
        Returns who claimed which."""
        if not table_ids:
            return {}
        given: dict[str, list[int]] = {}
        targets = await self._targets(len(table_ids), to)
        for table_id, process in zip(table_ids, targets, strict=False):
            given.setdefault(process, []).append(table_id)
        taken: dict[int, str] = {}
        await asyncio.gather(*(self._give(p, t, taken) for p, t in given.items()))
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

    async def _give(self, process: str, tables: list[int], taken: dict[int, str]) -> None:
        try:
            claimed = await self.router.ask_process(process, "claim", {"tables": tables})
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
        the same)."""
        tables = self.router.tables
        wanted = [int(t) for t in args["tables"]]
        claimed = set(await tables.adopt(wanted))
        return [t for t in wanted if t in claimed or tables.get(t) is not None]

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
        up or went away meanwhile), or None when nobody could (a heartbeat claims it)."""
        table_id = int(args["table"])
        tables = self.router.tables
        if tables.get(table_id) is None:
            raise TableError("table_moved", MOVED)
        to = args.get("to")
        target = await self._target(str(to) if to else None)
        moved, owner = await self.move_to(table_id, target, float(args.get("seconds", 30.0)))
        return {"moved": moved, "target": target, "owner": owner}

    async def move_to(self, table_id: int, target: str, seconds: float) -> tuple[bool, str | None]:
        """Hand a table run here to `target` once its hand is over (at most `seconds`):
        whether it was let go, and where it runs now: the target, this process (its hand did
        not end in time, or the target did not take it: claimed back at once), or None when
        nobody could claim it (a heartbeat will). A move and a rebalancing both go this way."""
        tables = self.router.tables
        owner: list[str | None] = [None]  # let go, and (not yet) claimed

        async def then(table_ids: list[int]) -> None:
            taken = await self.hand_over(table_ids, target)
            if taken.get(table_id) == target:
                owner[0] = target
                return
            # back here at once, not free until some heartbeat
            back = await tables.adopt([table_id])
            owner[0] = self.router.me if table_id in back else None

        moved = await tables.move(table_id, seconds, then)
        return moved, owner[0] if moved else self.router.me
