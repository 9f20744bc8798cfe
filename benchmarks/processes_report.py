"""The "Server: N processes" section of docs/benchmarks.md, from one `--processes` run: the
one-process baseline, the N processes and the bare server side by side, with what Redis and
PostgreSQL did in each window and the per-message costs a capacity estimate starts from."""

from __future__ import annotations

import argparse
import os

from benchmarks.report import SEATS, Result, machine_and_date, mark, play_notes, wrap

SECTION = "## Server: N processes"


def _redis_lines(r: Result) -> str:
    u = r.redis
    if u is None:
        return ""
    per_frame = u.cpu / max(1, r.frames) * 1e6
    if not u.publishes:
        return f"  - {r.name}: redis-server {u.cpu / r.seconds:.0%} of a core, no PUBLISH\n"
    per_publish = u.cpu / u.publishes * 1e6
    share = u.cpu / (u.cpu + r.server_cpu * r.seconds) if u.cpu + r.server_cpu else 0.0
    return (
        f"  - {r.name}: redis-server {u.cpu / r.seconds:.0%} of a core ({share:.0%} of"
        f" servers + Redis), {u.publishes / r.seconds:,.0f} PUBLISH/s in"
        f" {u.scripts / r.seconds:,.0f} script calls/s, {u.commands / r.seconds:,.0f}"
        f" commands/s, {u.net_out / r.seconds / 1e6:.1f} MB/s out (each message went to"
        f" ~{u.net_out / max(1, u.net_in):.1f} processes: bytes out / bytes in);"
        f" {per_publish:.1f} µs of"
        f" Redis CPU per PUBLISH, {per_frame:.1f} µs per delivered frame\n"
    )


def _pg_lines(r: Result) -> str:
    u = r.pg
    if u is None:
        return ""
    hands = r.hands_per_s * r.seconds
    if not hands:
        return f"  - {r.name}: no hand ended in the window\n"
    return (
        f"  - {r.name}: its backends {u.cpu / r.seconds:.0%} of a core (WAL writer,"
        f" checkpointer, background writer {u.background_cpu / r.seconds:.0%}, shared),"
        f" {r.hands_per_s:,.1f} hands/s: {u.cpu / hands * 1e3:.2f} ms of backend CPU"
        f" ({u.active / hands * 1e3:.2f} ms running statements, wall time),"
        f" {u.commits / hands:.2f} commits, {u.rows_written / hands:.0f} rows written and"
        f" {u.wal_bytes / hands / 1024:.1f} KiB of WAL per hand\n"
    )


def row(r: Result) -> str:
    return (
        f"| {r.name} | {r.sockets} of {r.wanted} | {r.frames / r.seconds:,.0f} "
        f"| {r.acts_per_s:,.0f} | {r.p50_ms:.1f} | {r.p99_ms:.1f} | {r.all_p99_ms:.1f} "
        f"| {r.max_ms:.0f} | {r.cpu_us:.1f} | {r.server_cpu:.0%} | {r.runqueue:.0%} "
        f"| {r.rss_mb:.0f} |"
    )


HEADER = (
    "| run | sockets | frames/s | acts/s | p50 ms | p99 ms | p99 all six ms | max ms "
    "| server CPU µs/frame | server CPU (1 core) | waiting for a CPU | RSS MB |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def costs(args: argparse.Namespace, results: list[Result]) -> str:
    """Each run's cost per act and per hand: what the capacity estimate multiplies."""
    parts = []
    for r in results:
        if not r.acts_per_s:
            continue
        acts = r.acts_per_s * r.seconds
        part = (
            f"{r.name}: {acts / r.seconds / args.tables:.2f} acts and"
            f" {r.hands_per_s / args.tables:.3f} hands per table-second,"
            f" {r.frames / acts:.1f} frames per act; server CPU"
            f" {r.server_cpu * r.seconds / acts * 1e6:,.0f} µs per act"
        )
        if r.redis and r.redis.publishes and r.processes > 1:
            part += (
                f", {r.redis.publishes / acts:.1f} PUBLISH and"
                f" {r.redis.cpu / acts * 1e6:.0f} µs of Redis CPU per act"
            )
        if r.pg and r.hands_per_s:
            hands = r.hands_per_s * r.seconds
            part += (
                f", {r.pg.cpu / hands * 1e3:.2f} ms of PostgreSQL CPU and"
                f" {r.pg.commits / hands:.2f} commits per hand"
            )
        parts.append(part)
    return (
        "- Costs per act and per hand (the capacity estimate's inputs): " + "; ".join(parts) + "."
    )


def report(args: argparse.Namespace, results: list[Result]) -> str:
    many = next(r for r in results if r.processes > 1)
    one = next((r for r in results if r.processes == 1 and r.name != "bare broadcast"), None)
    bare = next((r for r in results if r.name == "bare broadcast"), None)
    size = "--quick" if args.quick else "full size"
    n = args.processes
    rows = "\n".join(row(r) for r in results)
    lines = [
        f"{SECTION}",
        "",
        f"`python benchmarks/server.py --processes {n} --tables {args.tables}` ({size};"
        " written by the benchmark).",
        f"Machine: {machine_and_date()}.",
        "",
        f"{args.tables} tables x {SEATS} players (Stud, think time {args.think_ms} ms +-25% by"
        f" table, pause between hands {args.hand_pause_ms} ms), each player acting from its"
        " own socket, on one fresh PostgreSQL database, measured back to back: the server as"
        f" one process with the in-process fan-out; as {n} processes sharing the database and"
        f" Redis, tables placed {'/'.join(map(str, many.placement))} by `TABLE_CAPACITY`, each"
        f" socket opened on {'a random process' if args.route == 'random' else 'its table owner'}"
        f" ({many.remote:.0%} of them on a process that does not own their table: their acts"
        " travel to the owner through Redis); then the bare broadcast server at the"
        f" baseline's rate. Each window {args.seconds:.0f} s after {args.warmup:.0f} s of"
        " warm-up. Server CPU is every server process's user+system time together.",
        "",
        HEADER,
        rows,
        "",
    ]
    notes = [
        f"- Latency, {r.name}: {play_notes(r)}." for r in results if r.name != "bare broadcast"
    ]
    lines += notes
    if one is not None:
        ratio = many.cpu_us / one.cpu_us if one.cpu_us else float("nan")
        lines.append(
            f"- Targets: p99 < 50 ms with {n} processes: {mark(many.p99_ms < 50)}"
            f" ({many.p99_ms:.1f} ms); CPU per delivered frame at most 1.5x the one-process"
            f" `memory://` run's: {mark(ratio <= 1.5)} ({ratio:.2f}x: {many.cpu_us:.1f}"
            f" against {one.cpu_us:.1f} µs)."
        )
        lines.append(
            f"- The Redis hop adds {many.p50_ms - one.p50_ms:+.1f} ms at p50 and"
            f" {many.p99_ms - one.p99_ms:+.1f} ms at p99 to a delivery, and"
            f" {many.cpu_us - one.cpu_us:+.1f} µs of server CPU per delivered frame."
        )
    if bare is not None:
        against = ", ".join(
            f"{r.name} {r.cpu_us / bare.cpu_us:.2f}x" for r in results if r is not bare
        )
        lines.append(f"- CPU per delivered frame against the bare server: {against}.")
    lines.append("- Redis over each window (its whole server's counters and CPU):")
    lines.append("".join(_redis_lines(r) for r in results if r.redis).rstrip("\n"))
    lines.append("- PostgreSQL over each window (the run's database's backends, by pid):")
    lines.append("".join(_pg_lines(r) for r in results if r.pg).rstrip("\n"))
    lines.append(costs(args, results))
    load = ", ".join(f"{r.name} {r.load_cpu:.0%}" for r in results)
    avg = ", ".join(f"{r.loadavg:.1f}" for r in results)
    elsewhere = ", ".join(f"{r.others:.2f}" for r in results)
    lines.append(
        f"- **Contended**: everything ran on {os.cpu_count()} cores at once: the load process"
        f" (one Python process for every socket: {load} of a core), the server processes,"
        f" Redis and PostgreSQL; load average (1 min) at the end of each window {avg}; other"
        f" work on the machine (not this benchmark's) used {elsewhere} cores' worth of CPU"
        " in each window. The"
        " column 'waiting for a CPU' is the share of the window the server processes were"
        " ready to run while another process had the CPU: latency here is mostly that"
        " queueing, not the servers' own work."
    )
    return wrap("\n".join(lines)) + "\n"
