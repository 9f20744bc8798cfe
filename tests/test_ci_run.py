"""`.ci/run` refuses to go green without its services: with Redis not answering (and no
`redis-server` it could start) it stops before any test, naming Redis; and under `CI=true`
a skipped test fails the run (the root conftest's hook), so a missing service cannot hide
behind a row of skips."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _path_without(tmp_path: Path, *names: str) -> str:
    """A PATH of links to every program on this PATH but `names`: a machine without them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not Path(folder).is_dir():
            continue
        for program in Path(folder).iterdir():
            link = bin_dir / program.name
            if program.name in names or link.exists() or link.is_symlink():
                continue
            if program.is_file() and os.access(program, os.X_OK):
                link.symlink_to(program)
    return str(bin_dir)


def test_ci_run_with_redis_away_fails_naming_redis_and_runs_no_test(tmp_path: Path) -> None:
    port = _closed_port()
    env = {
        **os.environ,
        "PATH": _path_without(tmp_path, "redis-server"),
        "TEST_REDIS_URL": f"redis://127.0.0.1:{port}/0",
        "SERVICE_WAIT": "1",
    }
    env.pop("CI", None)  # .ci/run sets it itself
    run = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode != 0
    assert f"Redis at 127.0.0.1:{port} (TEST_REDIS_URL) does not answer" in run.stderr
    assert "PostgreSQL at" in run.stdout  # checked first, and found
    assert "pytest" not in run.stdout + run.stderr  # stopped before the test command


def test_under_ci_a_skipped_test_fails_the_run(tmp_path: Path) -> None:
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_skipped():\n    pytest.skip('no service here')\n"
    )
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(ci: str | None) -> subprocess.CompletedProcess[str]:
        e = {k: v for k, v in env.items() if k != "CI"} | ({"CI": ci} if ci else {})
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "-p", "no:randomly", str(tmp_path / "test_skips.py")],
            cwd=tmp_path, env=e, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    quiet = run(None)
    assert quiet.returncode == 0 and "1 skipped" in quiet.stdout
    strict = run("true")
    assert strict.returncode == 1 and "1 failed" in strict.stdout
    assert "skipped with CI=true" in strict.stdout
