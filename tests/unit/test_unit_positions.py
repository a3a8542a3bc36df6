"""A catalog's units by state, found without making every unit: the same positions as looking at each unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "new"
msgstr ""

#, fuzzy
msgid "looked at"
msgstr "angesehen"

msgid "done"
msgstr "fertig"

msgid "one file"
msgid_plural "%d files"
msgstr[0] "eine Datei"
msgstr[1] ""

#, fuzzy
msgid "again"
msgstr "wieder"

#~ msgid "gone"
#~ msgstr "weg"
"""

XLIFF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="app">
    <body>
      <trans-unit id="a"><source>new</source></trans-unit>
      <trans-unit id="b"><source>looked at</source>
        <target state="needs-review-translation">angesehen</target></trans-unit>
      <trans-unit id="c"><source>done</source><target state="translated">fertig</target></trans-unit>
    </body>
  </file>
</xliff>
"""


@pytest.mark.parametrize(("name", "text"), [("de.po", PO), ("de.xlf", XLIFF)])
def test_positions_are_those_of_the_units_in_each_state(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    catalog = read_catalog(path)
    seen = set()
    for state in UnitState:
        expected = [u.position for u in catalog.units if u.state is state]
        assert catalog.positions(state) == expected
        seen.update(expected)
    assert seen == set(range(len(catalog.units)))
    several = (UnitState.UNTRANSLATED, UnitState.FUZZY)
    assert catalog.positions(*several) == [u.position for u in catalog.units if u.state in several]
    assert catalog.positions(UnitState.FUZZY), "the fixture has units under review"
