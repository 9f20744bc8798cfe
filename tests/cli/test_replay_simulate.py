"""`python -m app replay` and `python -m app simulate`."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from app.__main__ import main
from app.cli import simulate as simulate_module
from app.engine import Hand
from app.engine.policies import Policy, play_out


def simulate_to(tmp_path: Path, *extra: str) -> list[Path]:
    code = main(
        [
            "simulate",
            "--variant",
            "stud8",
            "--players",
            "4",
            "--hands",
            "12",
            "--seed",
            "5",
            "--phh-dir",
            str(tmp_path),
            *extra,
        ]
    )
    assert code == 0
    return sorted(tmp_path.glob("*.phh"))


def test_simulate_writes_one_phh_per_hand_and_reports_the_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = simulate_to(tmp_path)
    assert [f.name for f in files] == [f"hand-{i:06d}.phh" for i in range(1, 13)]
    out, err = capsys.readouterr()
    assert "12 stud8 hands, 4 players, random policy" in out
    assert "hands/s" in out and "chips conserved" in out
    assert err == ""  # no progress bar when stderr is not a terminal


def test_simulate_shows_a_progress_bar_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["simulate", "--hands", "30", "--policy", "calldown", "--players", "8"]) == 0
    assert "\r[" in terminal.getvalue() and "30/30" in terminal.getvalue()
    assert "30 stud hands, 8 players, calldown policy" in capsys.readouterr().out


def test_replay_prints_one_json_line_per_file_with_finishing_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = simulate_to(tmp_path)
    capsys.readouterr()
    assert main(["replay", *map(str, files)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["file"] for line in lines] == [str(f) for f in files]
    for line, path in zip(lines, files, strict=True):
        expected = path.read_text().split("finishing_stacks = ", 1)[1].split("\n", 1)[0]
        assert line["finishing_stacks"] == json.loads(expected)


def test_replay_names_the_first_illegal_action_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, *_ = simulate_to(tmp_path)
    text = good.read_text()
    lines = text.split("actions = [\n", 1)[1].split("\n]", 1)[0].splitlines()
    index, wager = next(
        (i, line) for i, line in enumerate(lines) if " cbr " in line or " cc" in line
    )
    bad_line = wager.split('"')[1].rsplit(" ", 1)[0] + " cbr 999999"
    bad = tmp_path / "bad.phh"
    bad.write_text(text.replace(wager, f'    "{bad_line}",', 1))
    missing = tmp_path / "missing.phh"
    capsys.readouterr()
    assert main(["replay", str(bad), str(good), str(missing)]) == 1
    out, err = capsys.readouterr()
    first, second, third = (json.loads(line) for line in out.splitlines())
    assert first["file"] == str(bad)
    assert first["error"].startswith(f"action {index} '{bad_line}': ")
    assert "finishing_stacks" in second
    assert "cannot read the file" in third["error"]
    assert "2 of 3 files failed" in err


def test_simulate_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "9"]) == 2
    assert main(["simulate", "--bring-in", "30"]) == 2
    assert "error" in capsys.readouterr().err


def test_simulate_stops_on_a_chip_leak(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def leaky(hand: Hand, policy: Policy) -> Hand:
        play_out(hand, policy)
        hand.players[-1].stack -= 1
        return hand

    monkeypatch.setattr(simulate_module, "play_out", leaky)
    assert main(["simulate", "--hands", "5"]) == 1
    assert "hand 1: chips not conserved" in capsys.readouterr().err
