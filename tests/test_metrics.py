"""The metrics' own rules (app/metrics.py) and the log lines' format (app/logs.py): the
Grafana dashboard asks only for metrics the server exports; the hot path's histogram reads
as the library's would; a table with players that deals nothing for a minute is counted
stalled; log lines carry the table, hand and user they are about, as text or JSON."""

from __future__ import annotations

import io
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from app import logs, metrics
from app.tables.lifecycle import Hold, Life

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "stud.json"
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
METRIC_NAME = re.compile(r"\b(?:stud|process)_[a-z0-9_]+\b")


def exported() -> set[str]:
    """Every family and sample name this server's registry exports."""
    names: set[str] = set()
    for family in text_string_to_metric_families(generate_latest(metrics.REGISTRY).decode()):
        names.add(family.name)
        names.update(s.name for s in family.samples)
    return names


def _exprs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["expr"]] if isinstance(node.get("expr"), str) else []
        return found + [e for value in node.values() for e in _exprs(value)]
    if isinstance(node, list):
        return [e for value in node for e in _exprs(value)]
    return []


def test_the_dashboard_asks_only_for_metrics_the_server_exports() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = _exprs(dashboard)
    assert len(exprs) >= 10
    asked = {name for expr in exprs for name in METRIC_NAME.findall(expr)}
    assert asked and asked <= exported(), sorted(asked - exported())
    titles = " ".join(p["title"] for p in dashboard["panels"]).lower()
    for shown in ("tables", "hands", "p50", "p99", "sockets", "backlog", "lease", "routed", "mail"):
        assert shown in titles, shown


def test_the_alerting_rules_name_only_exported_metrics() -> None:
    asked = set(METRIC_NAME.findall(RULES.read_text()))
    assert asked and asked <= exported(), sorted(asked - exported())


def test_the_hot_histogram_reads_as_a_prometheus_histogram() -> None:
    h = metrics.FastHistogram((0.1, 1.0))
    for value in (0.05, 0.1, 0.5, 3.0):
        h.observe(value)
    assert h.buckets() == [("0.1", 2.0), ("1.0", 3.0), ("+Inf", 4.0)]  # le: inclusive
    assert h.total == 3.65


def test_an_action_is_timed_to_its_publication_once() -> None:
    before = metrics.ACTION_SECONDS.buckets()[-1][1]
    metrics.acting()
    metrics.published()
    metrics.published()  # a later publication that no action waited for is not timed
    assert metrics.ACTION_SECONDS.buckets()[-1][1] == before + 1


@dataclass
class FakeSeat:
    sitting_out: bool = False
    bot: bool = False
    stack: int = 1000
    auto_post: bool = True


@dataclass
class FakeTable:
    id: int
    hand_number: int | None = None
    seats: dict[int, FakeSeat] = field(default_factory=dict)
    paused: bool = False
    frozen: str | None = None
    lifecycle: str = "open"
    directed: None = None

    @property
    def state(self) -> FakeTable:  # the actor's game state, read by a scrape
        return self

    @property
    def life(self) -> Life:
        life = Life()
        life.held(Hold.PAUSED, self.paused)
        return life


def test_a_table_with_players_and_no_hand_for_a_minute_is_stalled() -> None:
    now = [1000.0]
    collector = metrics.StateCollector(clock=lambda: now[0])
    two = {0: FakeSeat(), 1: FakeSeat(bot=True)}
    dealing = FakeTable(1, hand_number=7, seats=dict(two))
    waiting = FakeTable(2, hand_number=3, seats=dict(two))
    paused = FakeTable(3, seats=dict(two), paused=True)
    bots = FakeTable(4, seats={0: FakeSeat(bot=True), 1: FakeSeat(bot=True)})
    alone = FakeTable(5, seats={0: FakeSeat(), 1: FakeSeat(stack=0)})
    unready = FakeTable(6, seats={0: FakeSeat(), 1: FakeSeat(auto_post=False)})
    tables = [dealing, waiting, paused, bots, alone, unready]
    assert collector._stalled(tables) == 0
    now[0] += 59
    dealing.hand_number = 8
    assert collector._stalled(tables) == 0
    now[0] += 2  # 61 s since table 2's hand 3; table 1 dealt 2 s ago
    assert collector._stalled(tables) == 1
    waiting.hand_number = 4
    assert collector._stalled(tables) == 0


def _line(log_format: str, *, table: Any = None, user: int | None = None) -> str:
    out = io.StringIO()
    handler = logs.handler(log_format, out)
    logger = logging.getLogger("tests.metrics.lines")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logs.unbind()
        if table is not None:
            logs.bind_table(table)
        logs.bind_user(user)
        logger.warning("something about %s", "it")
        logger.warning("a link: %s", "/verify?token=s3cret")
    finally:
        logs.unbind()
        logger.removeHandler(handler)
    return out.getvalue().strip()


def test_json_lines_carry_the_table_its_hand_and_the_user() -> None:
    table = FakeTable(12, hand_number=40)
    line, link = map(json.loads, _line("json", table=table, user=5).splitlines())
    assert "s3cret" not in link["message"]  # secrets never logged
    assert line["message"] == "something about it" and line["level"] == "WARNING"
    assert (line["table_id"], line["hand"], line["user_id"]) == (12, 40, 5)
    bare = json.loads(_line("json").splitlines()[0])
    assert "table_id" not in bare and "user_id" not in bare


def test_text_lines_say_what_they_are_about() -> None:
    line = _line("text", table=FakeTable(3, hand_number=9)).splitlines()[0]
    assert line.endswith("something about it [table_id=3 hand=9]"), line
    assert "[" not in _line("text").splitlines()[0]
