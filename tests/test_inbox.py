"""`app.inbox.Inbox`: the one-reader queue behind a table's mailbox and a subscriber's queue."""

from __future__ import annotations

import asyncio

import pytest

from app.inbox import Inbox, InboxFull


async def test_items_come_out_in_the_order_they_went_in() -> None:
    inbox: Inbox[int] = Inbox()
    for n in range(5):
        inbox.put_nowait(n)
    assert inbox.qsize() == 5
    assert [await inbox.get() for _ in range(3)] == [0, 1, 2]
    assert inbox.take_all() == [3, 4]
    assert inbox.empty()


async def test_a_waiting_reader_wakes_for_the_next_item() -> None:
    inbox: Inbox[str] = Inbox()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    inbox.put_nowait("turn")
    assert await reader == "turn"


async def test_a_full_inbox_refuses_and_keeps_what_it_has() -> None:
    inbox: Inbox[int] = Inbox(maxsize=2)
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    with pytest.raises(InboxFull):
        inbox.put_nowait(3)
    assert inbox.take_all() == [1, 2]


async def test_a_second_reader_is_refused() -> None:
    inbox: Inbox[int] = Inbox()
    first = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await inbox.get()
    inbox.put_nowait(7)
    assert await first == 7


async def test_a_cancelled_reader_leaves_the_inbox_usable() -> None:
    inbox: Inbox[int] = Inbox()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait(1)  # no stale waiter swallows it
    assert await inbox.get() == 1


async def test_ready_is_a_future_done_once_something_is_in() -> None:
    inbox: Inbox[int] = Inbox()
    waiting = inbox.ready()
    assert not waiting.done()
    with pytest.raises(RuntimeError, match="one reader"):
        inbox.ready()
    inbox.put_nowait(3)
    await waiting
    assert inbox.take_all() == [3]
    inbox.put_nowait(4)
    assert inbox.ready().done()  # something is in already


async def test_a_reader_cancelled_while_ready_can_wait_again() -> None:
    inbox: Inbox[int] = Inbox()
    inbox.ready().cancel()
    again = inbox.ready()
    inbox.put_nowait(5)
    await again
    assert inbox.get_nowait() == 5


async def test_an_urgent_item_goes_ahead_and_wakes_the_reader() -> None:
    inbox: Inbox[str] = Inbox(maxsize=1)
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    inbox.put_first("drain")
    assert await reader == "drain"
    inbox.put_nowait("start")
    inbox.put_first("drain")  # never refused, even by a full inbox
    assert inbox.take_all() == ["drain", "start"]
