"""Which files a run picks up from the folders it is given."""

from __future__ import annotations

from pathlib import Path

from pipeline.catalog_paths import discover
from pipeline.config import Settings


def test_a_folder_yields_catalogs_whatever_the_suffix_case(tmp_path: Path) -> None:
    for name in ("de.po", "FR.PO", "messages.ja.XLF", "app.fr.xliff", "notes.txt", "messages.pot"):
        (tmp_path / name).write_text("", encoding="utf-8")
    found = {p.name for p in discover(Settings(root=tmp_path), [tmp_path])}
    assert found == {"de.po", "FR.PO", "messages.ja.XLF", "app.fr.xliff"}
