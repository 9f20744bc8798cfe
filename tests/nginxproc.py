"""The committed nginx config (deploy/nginx/nginx.conf) run by a real nginx on loopback.

`render` rewrites only the lines the file marks `# test:` (who runs it, where its files go,
the port it listens on, the DNS server it asks, the app's port) and adds temporary-file
folders; routing, headers and timeouts stay the committed ones. `nginx` runs it in the
foreground (`daemon off`) and stops it by its pid."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "deploy" / "nginx" / "nginx.conf"
MARK = "# test:"
TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def nginx_binary() -> str:
    """Debian's nginx (scripts/ensure-debian-packages): skipped without it, failed in CI."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )
    if found is None:
        unavailable("nginx is not installed (scripts/ensure-debian-packages installs it)")
    return found


def render(folder: Path, port: int, dns_port: int, app_port: int) -> str:
    """The committed config with its `# test:` lines rewritten for a run in `folder`."""
    lines = {
        "user nginx;": f"user {getpass.getuser()};",  # ignored (a warning) when not root
        "pid /var/run/nginx.pid;": f"pid {folder}/nginx.pid;",
        "error_log /var/log/nginx/error.log warn;": f"error_log {folder}/error.log warn;",
        "access_log /var/log/nginx/access.log stud;": f"access_log {folder}/access.log stud;",
        "resolver 127.0.0.11 valid=5s ipv6=off;": (
            f"resolver 127.0.0.1:{dns_port} valid=5s ipv6=off;"
        ),
        "listen 80;": f"listen 127.0.0.1:{port};",
        "set $app http://app:8000;": f"set $app http://app:{app_port};",
    }
    out, done = [], set()
    for line in CONFIG.read_text().splitlines():
        code, marked, _ = line.partition(MARK)
        if marked and not code.lstrip().startswith("#"):  # a directive, not a comment
            key = code.strip()
            assert key in lines, f"a `{MARK}` line this test does not know: {line!r}"
            indent = line[: len(line) - len(line.lstrip())]
            line = indent + lines[key]
            done.add(key)
        out.append(line)
        if line.strip() == "http {":  # nginx's scratch files, in the run's folder
            out += [f"    {d}_temp_path {folder}/{d};" for d in TEMP_DIRS]
    missing = set(lines) - done
    assert not missing, f"{CONFIG} no longer has these `{MARK}` lines: {sorted(missing)}"
    return "\n".join(out) + "\n"


@contextmanager
def nginx(binary: str, folder: Path, port: int, dns_port: int, app_port: int) -> Iterator[Path]:
    """nginx on 127.0.0.1:`port` until the block ends; yields its access log's path."""
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(render(folder, port, dns_port, app_port))
    error_log = folder / "error.log"
    command = [binary, "-p", f"{folder}/", "-c", str(conf), "-e", str(error_log)]
    check = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr
    proc = subprocess.Popen(
        [*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while True:  # up once it accepts connections
            assert proc.poll() is None, error_log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.05)
        yield folder / "access.log"
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # fast shutdown, open sockets closed
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait()
