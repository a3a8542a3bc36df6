"""XLIFF files that their producers write and the reader refused or misread: each read as the XLIFF spec
and the tools that write it have it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.catalogs.base import Reviewed, UnitState
from pipeline.catalogs.xliff.catalog import read_xliff
from pipeline.cli import main
from pipeline.plural_rules import plural_rule_for
from pipeline.run.plurals import plan_unit

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


# translate-toolkit's po2xliff writes a gettext plural entry as a group of trans-units, one per form: the
# singular's source in form 0, the plural's in the others (its tests' "cow"/"cows"); Qt's lconvert writes
# the one source a numerus message has in every form.
PLURAL_GROUP = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app.po" source-language="en-US" target-language="ru" datatype="po">
    <body>
      <group id="1" restype="x-gettext-plurals">
        <trans-unit id="1[0]" xml:space="preserve">
          <source>{0}</source>
        </trans-unit>
        <trans-unit id="1[1]" xml:space="preserve">
          <source>{1}</source>
        </trans-unit>
        <trans-unit id="1[2]" xml:space="preserve">
          <source>{1}</source>
        </trans-unit>
      </group>
      <trans-unit id="2"><source>Save</source></trans-unit>
    </body>
  </file>
</xliff>
"""


@pytest.mark.parametrize(
    ("singular", "plural"),
    [("%d file", "%d files"), ("%n file(s)", "%n file(s)")],
    ids=["translate-toolkit", "Qt lconvert"],
)
def test_a_gettext_plural_group_is_one_plural_unit_each_form_from_its_own_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], singular: str, plural: str
) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "app.ru.xlf"
    path.write_text(PLURAL_GROUP.format(singular, plural), encoding="utf-8")
    catalog = read_xliff(path)
    group, save = catalog.units
    assert (group.sources, group.targets, group.nforms, group.plural, group.line) == (
        (singular, plural),
        ("", "", ""),
        3,
        True,
        7,  # form 0's source
    )
    assert save.sources == ("Save",) and not save.plural
    # as a gettext run sends a Russian plural entry: each form from a sentence with a number of its own
    texts = plan_unit(group.sources, group.flags, group.nforms, plural_rule_for("ru")).texts
    assert len(set(texts.values())) == 3
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = read_xliff(path)
    assert [len(u.targets) for u in after.units] == [3, 1] and all(t for u in after.units for t in u.targets)
    assert path.read_text(encoding="utf-8").count("<target") == 4
    accepted = read_xliff(path, after.render_reviewed({0: Reviewed()})).units[0]  # every form's target, accepted
    assert accepted.state is UnitState.TRANSLATED and accepted.targets == after.units[0].targets


# Okapi and translate-toolkit segment a 1.2 trans-unit in a <seg-source> of <mrk mtype="seg"> (XLIFF 1.2,
# 2.8.3): a target that belongs to it has the same segments, each translated, in the same order.
SEGMENTED = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="doc.txt">
    <body>
      <trans-unit id="1">
        <source>Open the file. Save it.</source>
        <seg-source><mrk mtype="seg" mid="1">Open the file.</mrk> <mrk mtype="seg" mid="2">Save it.</mrk></seg-source>
      </trans-unit>
    </body>
  </file>
</xliff>
"""


def test_a_segmented_source_has_its_segments_carried_into_the_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "doc.de.xlf"
    path.write_text(SEGMENTED, encoding="utf-8")
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    target = after.split("<target", 1)[1].split("</target>")[0]
    assert target.count('<mrk mtype="seg" mid="1">') == 1 and target.count('<mrk mtype="seg" mid="2">') == 1
    assert target.index('mid="1"') < target.index('mid="2"') and "Open the file." not in target
    assert after.replace(target, "").count("\n") == SEGMENTED.count("\n") + 1  # the target's own line
    assert main(["check", str(path)]) == 0
