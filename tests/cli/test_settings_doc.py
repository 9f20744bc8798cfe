"""`python -m app settings-doc`: docs/settings.md's table is `Settings`' fields, their defaults
and descriptions; `--check` changes nothing and fails on a stale document."""

from __future__ import annotations

import re
from pathlib import Path

from app.__main__ import main
from app.cli import settings_doc
from app.config import Settings


def test_the_settings_document_is_current() -> None:
    assert main(["settings-doc", "--check"]) == 0, "run `python -m app settings-doc`"


def test_the_document_names_every_setting_with_its_default() -> None:
    text = settings_doc.DOCUMENT.read_text()
    rows = dict(re.findall(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \|", text, re.MULTILINE))
    assert set(rows) == {name.upper() for name in Settings.model_fields}
    assert rows["LEASE_SECONDS"].strip() == f"`{Settings.model_fields['lease_seconds'].default}`"
    assert rows["LEASE_SECONDS"].strip() == "`5.0`"
    assert rows["FORWARDED_ALLOW_IPS"].strip() == "`127.0.0.1,::1`"
    assert rows["DATABASE_URL"].strip() == "none"


def test_every_setting_is_described() -> None:
    missing = [name for name, f in Settings.model_fields.items() if not f.description]
    assert not missing, f"add Field(description=…) in app/config.py: {missing}"


def test_settings_doc_rewrites_a_stale_table(tmp_path: Path) -> None:
    doc = tmp_path / "settings.md"
    stale = f"# Settings\n\n{settings_doc.BEGIN}\n| `GONE` | 1 | old |\n{settings_doc.END}\nend\n"
    doc.write_text(stale)
    assert main(["settings-doc", "--path", str(doc), "--check"]) == 1
    assert doc.read_text() == stale  # --check changes nothing
    assert main(["settings-doc", "--path", str(doc)]) == 0
    written = doc.read_text()
    assert "`GONE`" not in written and "| `TABLE_CAPACITY` | `500` |" in written
    assert written.startswith("# Settings\n\n") and written.endswith("\nend\n")
    assert main(["settings-doc", "--path", str(doc), "--check"]) == 0
