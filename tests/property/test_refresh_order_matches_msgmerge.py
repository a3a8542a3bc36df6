"""A refresh of a catalog kept in its template's order gives its entries in the new template's order, as
``msgmerge --previous`` does: new, revived and fuzzy-matched entries each go where the template has them.

No catalog entry here is left out of the new template, so none is replaced where it stands by the one
new entry it lends its translation to (the merge keeps such an entry's place, msgmerge the template's).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import polib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.catalogs.merge import merge

MSGMERGE = shutil.which("msgmerge")
pytestmark = pytest.mark.skipif(MSGMERGE is None, reason="GNU msgmerge is not installed")

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
WORDS = "open save close file folder print quit edit view help undo redo copy paste find".split()
MSGID = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)


@st.composite
def refreshes(draw: st.DrawFn) -> tuple[list[str], list[str], list[str]]:
    """(catalog's live msgids in template order, its obsolete msgids, the new template's msgids)."""
    old = draw(st.lists(MSGID, min_size=1, max_size=10, unique=True))
    live = [m for m in old if draw(st.booleans())]
    dead = [m for m in old if m not in live and draw(st.booleans())]
    new: list[str] = []
    for m in old:
        fate = "kept" if m in live else draw(st.sampled_from(["kept", "removed", "changed"]))
        new += {"kept": [m], "removed": [], "changed": [m + " now"]}[fate]
        if draw(st.booleans()):
            new.append(draw(MSGID) + " added")
    # msgmerge writes no file at all for a template without entries.
    return live, dead, list(dict.fromkeys(new)) or ["help added"]


def _q(text: str) -> str:
    return f'"{text}"'


def _live_order(path: Path) -> list[str]:
    return [e.msgid for e in polib.pofile(str(path)) if not e.obsolete]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(refreshes())
def test_refreshed_entries_come_in_the_order_msgmerge_gives(
    tmp_path: Path, refresh: tuple[list[str], list[str], list[str]]
) -> None:
    live, dead, new = refresh
    work = Path(tempfile.mkdtemp(dir=tmp_path))  # the fixture's folder is shared by every example
    catalog, template = work / "c.po", work / "t.pot"
    catalog.write_text(
        HEADER
        + "".join(f"#: a.c:{i}\nmsgid {_q(m)}\nmsgstr {_q('X ' + m)}\n\n" for i, m in enumerate(live))
        + "".join(f"#~ msgid {_q(m)}\n#~ msgstr {_q('D ' + m)}\n\n" for m in dead),
        encoding="utf-8",
    )
    template.write_text(
        HEADER + "".join(f'#: a.c:{i}\nmsgid {_q(m)}\nmsgstr ""\n\n' for i, m in enumerate(new)), encoding="utf-8"
    )
    ours, theirs = work / "ours.po", work / "theirs.po"
    ours.write_bytes(merge(catalog, template).data)
    assert MSGMERGE is not None
    subprocess.run([MSGMERGE, "--previous", "--quiet", "-o", str(theirs), str(catalog), str(template)], check=True)
    assert _live_order(ours) == _live_order(theirs) == new
