"""docs/protocol.md's "Error codes" lists every code the server can refuse with: each
`TableError("…")`, each HTTP `api_error(…, "…")` and `refusal(…, "…")`, each socket `Error(…,
"…")` and each store or mail error class's `code`, as read from app/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATTERNS = (
    r'TableError\(\s*"([a-z_]+)"',
    r'api_error\(\s*[\w.]+\s*,\s*"([a-z_]+)"',
    r'refusal\(\s*\d+\s*,\s*"([a-z_]+)"',
    r'\bError\(\s*[^,()]*(?:\([^)]*\))?\s*,\s*"([a-z_]+)"',
    r'code, message = "([a-z_]+)"',
    r'^\s+return "([a-z_]+)", "',  # a refusal's (code, words)
    r'^    code = "([a-z_]+)"',
    r'"code":\s*"([a-z_]+)"',
)


def codes_in_app() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        text = path.read_text()
        for pattern in PATTERNS:
            found.update(re.findall(pattern, text, re.MULTILINE))
    return found


def listed() -> set[str]:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    section = doc.split("\n## Error codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \|", section, re.MULTILINE)
    return {code for row in rows for code in re.findall(r"`([a-z_]+)`", row)}


def test_every_error_code_in_the_code_is_in_the_protocol() -> None:
    codes = codes_in_app()
    # the grep finds what it should: a multi-line TableError, a socket frame's, a class's
    assert {"request_id_reused", "table_frozen", "bad_json", "name_taken"} <= codes
    missing = sorted(codes - listed())
    assert not missing, f"add to docs/protocol.md, Error codes: {missing}"


def test_the_list_names_no_code_the_server_never_sends() -> None:
    stale = sorted(listed() - codes_in_app())
    assert not stale, f"docs/protocol.md lists codes nothing sends: {stale}"
