"""XLIFF files that their producers write and the reader refused or misread: each read as the XLIFF spec
and the tools that write it have it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.catalogs.xliff.catalog import read_xliff
from pipeline.cli import main

CONFIG = 'source_lang = "en"\n[service]\nurl = "embedded"\n[cache]\ndir = ""\n'

# The shape of Algorea's Angular catalog (France-ioi/AlgoreaFrontend, messages.fr.xlf): a trans-unit a merge
# tool left with its target alone, beside the units Angular extracted.
NO_SOURCE = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="fr" datatype="plaintext" original="ng2.template">
    <body>
      <trans-unit id="save" datatype="html">
        <source>Save</source>
      </trans-unit>
      <trans-unit id="orphan" datatype="html">
        <target state="translated">Ancien texte</target>
      </trans-unit>
      <trans-unit id="cancel" datatype="html">
        <source>Cancel</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"""


def test_a_trans_unit_without_a_source_is_skipped_with_a_warning_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "messages.fr.xlf"
    path.write_text(NO_SOURCE, encoding="utf-8")
    catalog = read_xliff(path)
    assert [u.sources for u in catalog.units] == [("Save",), ("Cancel",)]
    assert len(catalog.warnings) == 1 and "line 8" in catalog.warnings[0] and "no <source>" in catalog.warnings[0]
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    out = capsys.readouterr()
    assert out.err.count("no <source>") + out.out.count("no <source>") == 1
    after = path.read_text(encoding="utf-8")
    assert after.count("<target") == 3 and '<target state="translated">Ancien texte</target>' in after


UTF32 = NO_SOURCE.replace('encoding="UTF-8"', 'encoding="UTF-32"').replace(
    """      <trans-unit id="orphan" datatype="html">
        <target state="translated">Ancien texte</target>
      </trans-unit>
""",
    "",
)


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be"])
def test_a_utf32_file_with_a_byte_order_mark_is_read_and_written_in_utf32(tmp_path: Path, codec: str) -> None:
    """The XML spec lets a document be UTF-32 with a BOM (lxml reads it); its UTF-32 LE mark starts with
    UTF-16 LE's, which it was taken for."""
    path = tmp_path / "messages.fr.xlf"
    bom = {"utf-32": b"", "utf-32-be": b"\x00\x00\xfe\xff"}[codec]
    path.write_bytes(bom + UTF32.encode(codec))
    catalog = read_xliff(path)
    assert [u.sources for u in catalog.units] == [("Save",), ("Cancel",)]
    assert catalog.render({}) == path.read_bytes()
    written = catalog.render({0: ("Enregistrer",)})
    assert written.startswith(path.read_bytes()[:4]) and "<target" in written.decode(codec)
    assert [u.targets for u in read_xliff(path, written).units] == [("Enregistrer",), ("",)]
