"""The stud server's event-loop stalls in a benchmark window (issue 26): the server records
them (`app.stalls`, `STALL_MS`), the load puts each of its slowest deliveries (the p99
tail) down to the stall that overlapped it most, and this writes the table of causes."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

# start, end (monotonic s), cause, seconds in gc, the other threads' most sampled frame,
# seconds the loop thread ran on a CPU and waited for one (the kernel's account), samples,
# and distinct tasks sampled running
Span = tuple[float, float, str, float, str, float, float, int, int]


@dataclass
class Cause:
    cause: str
    stalls: int
    total_ms: float
    longest_ms: float
    tail_share: float  # of the deliveries at or above the p99, the share this cause held
    others: str = ""  # what the process's other threads were seen running in those stalls
    on_cpu_ms: float = 0.0  # of the total, the loop thread on a CPU
    runqueue_ms: float = 0.0  # of the total, the loop thread ready but waiting for a CPU
    samples: int = 0  # the watchdog's samples in these stalls
    tasks: int = 0  # of the tasks running in them, the distinct ones it found (summed)


def causes(stalls: list[Span], tail: list[tuple[float, float]], n: int = 10) -> list[Cause]:
    """Stalls by cause, the most stalled time first; `tail`: the (sent, received) spans of
    the deliveries at or above the p99 (the same monotonic clock as the server's)."""
    ordered = sorted(stalls)
    starts = [s[0] for s in ordered]
    longest_stall = max((s[1] - s[0] for s in ordered), default=0.0)
    held: dict[str, int] = {}
    for sent, received in tail:
        best, overlap = "", 0.0
        # stalls that began before this delivery ended and may reach into it
        i = bisect_left(starts, sent - longest_stall)
        while i < len(ordered) and ordered[i][0] < received:
            start, end, cause = ordered[i][:3]
            o = min(end, received) - max(start, sent)
            if o > overlap:
                best, overlap = cause, o
            i += 1
        held[best or "no stall"] = held.get(best or "no stall", 0) + 1
    by: dict[str, list[float]] = {}
    seen: dict[str, Counter[str]] = {}
    kernel: dict[str, list[float]] = {}
    for start, end, cause, _gc, others, on_cpu, runqueue, sampled, tasks in ordered:
        by.setdefault(cause, []).append(end - start)
        k = kernel.setdefault(cause, [0.0, 0.0, 0, 0])
        k[0] += on_cpu
        k[1] += runqueue
        k[2] += sampled
        k[3] += tasks
        if others:
            seen.setdefault(cause, Counter())[others] += 1
    rows = [
        Cause(
            c,
            len(v),
            sum(v) * 1000,
            max(v) * 1000,
            held.get(c, 0) / max(1, len(tail)),
            seen[c].most_common(1)[0][0] if c in seen else "",
            kernel[c][0] * 1000,
            kernel[c][1] * 1000,
            int(kernel[c][2]),
            int(kernel[c][3]),
        )
        for c, v in by.items()
    ]
    rows.sort(key=lambda r: -r.total_ms)
    rows = rows[:n]
    if "no stall" in held:
        rows.append(Cause("no stall", 0, 0.0, 0.0, held["no stall"] / max(1, len(tail))))
    return rows


HEADER = (
    "| what held the loop | stalls | total ms | longest ms | loop thread on a CPU ms "
    "| waiting for a CPU ms | samples (tasks) | share of the p99 tail "
    "| other threads running then |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def table(rows: list[Cause]) -> str:
    lines = [HEADER]
    for r in rows:
        if r.cause == "no stall":
            lines.append(f"| (no stall over the threshold) | | | | | | | {r.tail_share:.0%} | |")
        else:
            lines.append(
                f"| `{r.cause}` | {r.stalls} | {r.total_ms:,.0f} | {r.longest_ms:.0f} "
                f"| {r.on_cpu_ms:,.0f} | {r.runqueue_ms:,.0f} | {r.samples} ({r.tasks}) "
                f"| {r.tail_share:.0%} "
                f"| {f'`{r.others}`' if r.others else ''} |"
            )
    return "\n".join(lines)
