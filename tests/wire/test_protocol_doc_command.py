"""`python -m app protocol-doc`: writes the catalog's tables between the document's markers;
`--check` changes nothing and fails on a stale document."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.__main__ import main
from app.wire import markdown


def test_protocol_doc_writes_the_catalog_and_check_fails_when_stale(tmp_path: Path) -> None:
    doc = tmp_path / "protocol.md"
    stale = f"# Protocol\n\n{markdown.BEGIN}\n| `old` | gone |\n{markdown.END}\n\nthe end\n"
    doc.write_text(stale)
    assert main(["protocol-doc", "--path", str(doc), "--check"]) == 1
    assert doc.read_text() == stale  # --check changes nothing
    assert main(["protocol-doc", "--path", str(doc)]) == 0
    written = doc.read_text()
    assert "`old`" not in written and "| `host_close` |" in written
    assert written.startswith("# Protocol\n\n") and written.endswith("\n\nthe end\n")
    assert main(["protocol-doc", "--path", str(doc), "--check"]) == 0


def test_a_document_without_markers_is_refused(tmp_path: Path) -> None:
    doc = tmp_path / "protocol.md"
    doc.write_text("# Protocol\n")
    with pytest.raises(ValueError, match="markers"):
        main(["protocol-doc", "--path", str(doc)])
