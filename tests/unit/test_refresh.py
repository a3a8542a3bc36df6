"""``pipeline refresh``: msgmerge semantics cross-checked with GNU msgmerge, formatting kept, idempotence.

The merge is compared with ``msgmerge --previous`` on what changed (entries, translations, fuzzy
flags, previous msgids, obsolete entries, comments), not on bytes: msgmerge re-serializes the whole
file, the merge here edits only the affected entries.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polib
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.catalogs.merge import merge
from pipeline.catalogs.po_template import find_template
from pipeline.catalogs.similar import FUZZY_THRESHOLD, similarity
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.files import atomic
from pipeline.workflows.refresh import refresh
from tests.sample_project import copy_sample_project

DATA = Path(__file__).resolve().parents[1] / "data" / "refresh"
PAIRS = ["added_changed_removed_revived", "plural_change_and_flags", "format_flag_added", "empty_msgid_plural"]


def _semantics(path: Path) -> dict[tuple[str | None, str, str, bool], dict[str, Any]]:
    """What msgmerge decides about each entry, keyed by identity."""
    out: dict[tuple[str | None, str, str, bool], dict[str, Any]] = {}
    for e in polib.pofile(str(path)):
        out[(e.msgctxt, e.msgid, e.msgid_plural, bool(e.obsolete))] = {
            "msgstr": e.msgstr,
            "plural": dict(e.msgstr_plural),
            "flags": sorted(e.flags),
            "previous": (e.previous_msgctxt, e.previous_msgid),
            "comment": e.comment,
            "tcomment": e.tcomment,
            "occurrences": e.occurrences if not e.obsolete else [],
        }
    return out


def _msgmerge(catalog: Path, template: Path, out: Path) -> Path:
    if shutil.which("msgmerge") is None:
        pytest.skip("GNU msgmerge is not installed")
    subprocess.run(["msgmerge", "--previous", "--quiet", "-o", str(out), str(catalog), str(template)], check=True)
    return out


def _assert_same_as_msgmerge(catalog: Path, template: Path, tmp_path: Path) -> bytes:
    ours = tmp_path / "ours.po"
    ours.write_bytes(merge(catalog, template).data)
    theirs = _semantics(_msgmerge(catalog, template, tmp_path / "theirs.po"))
    mine = _semantics(ours)
    assert mine.keys() == theirs.keys()
    for key, expected in theirs.items():
        got = dict(mine[key])
        if expected["previous"] == (None, None):
            # msgmerge gives no #| when the lending entry was fuzzy without one; we always record it.
            got["previous"] = (None, None)
        assert got == expected, key
    return ours.read_bytes()


@pytest.mark.parametrize("name", PAIRS)
def test_merge_matches_msgmerge(name: str, tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    _assert_same_as_msgmerge(DATA / f"{name}.po", DATA / f"{name}.pot", tmp_path)
    msgfmt_check(tmp_path / "ours.po")


def test_merge_counts_and_placement() -> None:
    result = merge(DATA / "added_changed_removed_revived.po", DATA / "added_changed_removed_revived.pot")
    assert (result.added, result.fuzzy, result.obsoleted, result.revived, result.removed) == (1, 2, 1, 1, 1)
    text = result.data.decode()
    # Header lines stay where they were; only the template date changes.
    assert text.startswith('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n')
    assert '"POT-Creation-Date: 2026-02-01 00:00+0000\\n"' in text
    # The changed entry is replaced where it stood, the removed one goes to the end.
    assert text.index('msgid "Delete %(name)s right now"') < text.index('msgid "Brand new message"')
    assert text.rstrip().endswith('#~ msgid "Gone away"\n#~ msgstr "Weg"')


@pytest.mark.parametrize("name", PAIRS)
def test_merge_twice_changes_nothing(name: str, tmp_path: Path) -> None:
    catalog = tmp_path / "de.po"
    catalog.write_bytes(merge(DATA / f"{name}.po", DATA / f"{name}.pot").data)
    again = merge(catalog, DATA / f"{name}.pot")
    assert not again.changed and again.data == catalog.read_bytes()


def _edited_template(tmp_path: Path, source: Path) -> Path:
    """The sample template with one message added, one changed a little, one changed a lot, one removed."""
    text = source.read_text(encoding="utf-8")
    for old, new in [('msgid "My files"', 'msgid "All my files"'), ('msgid "Trash"', 'msgid "Recycle bin"')]:
        assert text.count(old + "\n") == 1
        text = text.replace(old + "\n", new + "\n")
    start = text.index('#: driftwood/templates/base.html:63\nmsgid "Settings"')
    end = text.index("\n\n", start)
    text = text[:start] + text[end + 2 :]
    text += '\n#: driftwood/new.py:1\nmsgid "Nightly builds are ready"\nmsgstr ""\n'
    path = tmp_path / "messages.pot"
    path.write_text(text, encoding="utf-8")
    return path


def test_sample_catalogs_merge_like_msgmerge_and_keep_their_formatting(tmp_path: Path) -> None:
    project = copy_sample_project(tmp_path, "embedded")
    template = _edited_template(tmp_path, project / "sample_locales" / "messages.pot")
    for catalog in sorted((project / "sample_locales").glob("*/LC_MESSAGES/*.po")):
        work = tmp_path / catalog.parent.parent.name
        work.mkdir()
        data = _assert_same_as_msgmerge(catalog, template, work)
        before = catalog.read_bytes().decode().rstrip("\n").split("\n\n")
        after = data.decode().rstrip("\n").split("\n\n")
        # Every entry but the four touched ones (and the header's date) is byte for byte as it was.
        untouched = [
            b for b in before if not any(s in b for s in ('"My files"', '"Trash"', '"Settings"', "POT-Creation-Date"))
        ]
        assert all(block in after for block in untouched)


def test_merge_keeps_crlf_and_a_missing_final_newline(tmp_path: Path) -> None:
    catalog = tmp_path / "de.po"
    catalog.write_bytes(
        b'msgid ""\r\nmsgstr ""\r\n"Content-Type: text/plain; charset=UTF-8\\n"\r\n\r\nmsgid "Old"\r\nmsgstr "Alt"'
    )
    template = tmp_path / "de.pot"
    template.write_text('msgid "Old"\nmsgstr ""\n\nmsgid "New"\nmsgstr ""\n', encoding="utf-8")
    data = merge(catalog, template).data
    assert data == (
        b'msgid ""\r\nmsgstr ""\r\n"Content-Type: text/plain; charset=UTF-8\\n"\r\n\r\n'
        b'msgid "Old"\r\nmsgstr "Alt"\r\n\r\nmsgid "New"\r\nmsgstr ""'
    )


def test_merge_keeps_a_catalog_in_its_own_charset(tmp_path: Path) -> None:
    # The merge copies the lines the reader decoded in the header's charset, and writes them back in it.
    catalog = tmp_path / "ja.po"
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=EUC-JP\\n"\n\n'
    entries = '#: a.c:1\nmsgid "Old"\nmsgstr "古い"\n\nmsgid "Gone"\nmsgstr "消えた"\n'
    catalog.write_bytes(f"{header}{entries}".encode("euc-jp"))
    template = tmp_path / "ja.pot"
    template.write_text(
        '#: a.c:2\nmsgid "Old"\nmsgstr ""\n\nmsgid "Gone away"\nmsgstr ""\n\nmsgid "New ü"\nmsgstr ""\n',
        encoding="utf-8",
    )
    data = merge(catalog, template).data
    assert data.decode("euc-jp") == (
        f'{header}#: a.c:2\nmsgid "Old"\nmsgstr "古い"\n\n'
        '#, fuzzy\n#| msgid "Gone"\nmsgid "Gone away"\nmsgstr "消えた"\n\nmsgid "New ü"\nmsgstr ""\n'
    )


def test_similarity_threshold_is_msgmerges() -> None:
    assert FUZZY_THRESHOLD == 0.6
    assert similarity("Modified", "Modified on") > FUZZY_THRESHOLD
    assert similarity("Size", "File size") < FUZZY_THRESHOLD


def test_template_is_found_next_to_the_locale_folders(tmp_path: Path) -> None:
    lc = tmp_path / "locale" / "de" / "LC_MESSAGES"
    lc.mkdir(parents=True)
    (lc / "app.po").touch()
    (tmp_path / "locale" / "app.pot").touch()
    assert find_template(lc / "app.po") == tmp_path / "locale" / "app.pot"
    flat = tmp_path / "po"
    flat.mkdir()
    (flat / "de.po").touch()
    assert find_template(flat / "de.po") is None
    (flat / "project.pot").touch()
    assert find_template(flat / "de.po") == flat / "project.pot"
    assert find_template(flat / "de.po", tmp_path / "x.pot") == tmp_path / "x.pot"


def test_template_is_found_next_to_language_folders_without_lc_messages(tmp_path: Path) -> None:
    # KDE's layout (po/de/konsole.po, po/ja/konsole.po): the template beside the language folders,
    # where the "no template found" message tells the user to put it.
    de = tmp_path / "po" / "de"
    de.mkdir(parents=True)
    (de / "konsole.po").touch()
    assert find_template(de / "konsole.po") is None
    (tmp_path / "po" / "konsole.pot").touch()
    assert find_template(de / "konsole.po") == tmp_path / "po" / "konsole.pot"


def _entry(path: Path, msgid: str, obsolete: bool = False) -> polib.POEntry:
    return next(e for e in polib.pofile(str(path)) if e.msgid == msgid and bool(e.obsolete) == obsolete)


def test_refresh_updates_translates_stale_keeps_humans_and_is_idempotent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_sample_project(tmp_path, "embedded")
    monkeypatch.chdir(project)
    pot = project / "sample_locales" / "messages.pot"
    de = project / "sample_locales" / "de" / "LC_MESSAGES" / "messages.po"
    assert main(["refresh", "-q"]) == 0  # first night: everything untranslated gets a machine translation
    machine = _entry(de, "Modified")
    assert "fuzzy" in machine.flags and machine.msgstr
    human = _entry(de, "Share")
    assert human.msgstr == "Teilen" and "fuzzy" not in human.flags

    pot.write_text(
        _edited_template(tmp_path, pot)
        .read_text(encoding="utf-8")
        .replace('msgid "Modified"\n', 'msgid "Modified on"\n')
        .replace('msgid "Share"\n', 'msgid "Share it"\n'),
        encoding="utf-8",
    )
    assert main(["refresh", "-q"]) == 0
    restale = _entry(de, "Modified on")
    assert restale.previous_msgid == "Modified" and restale.msgstr != machine.msgstr  # re-translated
    assert "on" in restale.msgstr.replace("ö", "o").replace("\u0308", "")
    kept = _entry(de, "Share it")  # a human translation whose source changed: fuzzy, never overwritten
    assert kept.msgstr == "Teilen" and "fuzzy" in kept.flags and kept.previous_msgid == "Share"
    assert _entry(de, "All my files").msgstr == "Meine Dateien"
    assert _entry(de, "Nightly builds are ready").msgstr
    assert _entry(de, "Trash", obsolete=True).msgstr == "Papierkorb"
    assert _entry(de, "Recycle bin").msgstr not in ("", "Papierkorb")

    catalogs = sorted((project / "sample_locales").glob("*/LC_MESSAGES/*.po"))
    before = {p: p.read_bytes() for p in catalogs}
    assert main(["refresh", "-q"]) == 0
    assert {p: p.read_bytes() for p in catalogs} == before


def test_refresh_merge_only_sends_nothing(tmp_path: Path) -> None:
    project = copy_sample_project(tmp_path, "http://127.0.0.1:9/unreachable")
    settings = load_settings(project / "pipeline.toml")
    pot = project / "sample_locales" / "messages.pot"
    _edited_template(tmp_path, pot).replace(pot)
    outcome, report = refresh(settings, merge_only=True)
    assert report is None and outcome.issues == []
    assert len(outcome.catalogs) == 8 and all(c.written for c in outcome.catalogs)
    # The Irish catalog has no translation to carry over: the two renamed messages come in as new ones.
    added = {Path(c.path).parent.parent.name: (c.added, c.removed) for c in outcome.catalogs}
    assert added.pop("ga") == (3, 3) and {a for a, _ in added.values()} == {2}


def test_refresh_reports_a_catalog_without_template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = tmp_path / "po" / "de.po"
    catalog.parent.mkdir()
    catalog.write_bytes((DATA / "plural_change_and_flags.po").read_bytes())
    assert main(["refresh", "--merge-only", str(catalog)]) == 1
    assert "no template found" in capsys.readouterr().err


def test_merge_reads_hex_and_octal_escapes_as_msgfmt_and_keeps_their_bytes(tmp_path: Path) -> None:
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    template = tmp_path / "x.pot"
    template.write_text(
        header + 'msgid "Key \\x41"\nmsgstr ""\n\nmsgid "Bell \\a"\nmsgstr ""\n\nmsgid "New"\nmsgstr ""\n'
    )
    catalog = tmp_path / "de.po"
    body = 'msgid "Key \\101"\nmsgstr "Taste \\x41"\n\nmsgid "Bell \\007"\nmsgstr "Klingel \\a"\n'
    catalog.write_text(header + body)
    data = merge(catalog, template).data.decode()
    # "\x41" in the template and "\101" in the catalog are one msgid to msgfmt: kept, not made obsolete
    assert data.startswith(header + body) and "#~" not in data and 'msgid "New"' in data


def test_references_written_on_other_lines_are_the_same_references(tmp_path: Path) -> None:
    """An entry keeps its lines where the template lists the same references on other lines (as polib
    reads them), and takes the template's where a reference changed."""
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    template = tmp_path / "x.pot"
    template.write_text(
        header + '#: a.py:1 b.py:2\nmsgid "Same"\nmsgstr ""\n\n#: a.py:1\n#: b.py:3\nmsgid "Moved"\nmsgstr ""\n'
    )
    catalog = tmp_path / "de.po"
    same = '#: a.py:1\n#:  b.py:2\nmsgid "Same"\nmsgstr "Gleich"\n'
    catalog.write_text(header + same + '\n#: a.py:1\n#: b.py:2\nmsgid "Moved"\nmsgstr "Verschoben"\n')
    result = merge(catalog, template)
    assert result.data.decode() == header + same + '\n#: a.py:1 b.py:3\nmsgid "Moved"\nmsgstr "Verschoben"\n'
    assert (result.fuzzy, result.added) == (0, 0)


def test_a_lone_cr_inside_a_line_does_not_move_the_entries_of_a_merge(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    """msgfmt (and the reader) end a line at LF only: "# note\\r# more" is one line. Split at the CR
    too, every entry after it was one line off, and the new entry landed between a msgid and its msgstr."""
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    catalog = tmp_path / "de.po"
    catalog.write_bytes(
        (
            header + '# note\r# more\n#: a.py:1\nmsgid "One"\nmsgstr "Eins"\n\n#: a.py:2\nmsgid "Two"\nmsgstr "Zwei"\n'
        ).encode()
    )
    msgfmt_check(catalog)
    template = tmp_path / "de.pot"
    template.write_text(header + 'msgid "One"\nmsgstr ""\n\nmsgid "Two"\nmsgstr ""\n\nmsgid "Three"\nmsgstr ""\n')
    catalog.write_bytes(merge(catalog, template).data)
    expected = (
        header
        + '# note\r# more\nmsgid "One"\nmsgstr "Eins"\n\nmsgid "Two"\nmsgstr "Zwei"\n\nmsgid "Three"\nmsgstr ""\n'
    )
    assert catalog.read_bytes() == expected.encode()
    msgfmt_check(catalog)


def test_refresh_makes_fuzzy_what_a_new_format_flag_refuses_and_the_catalog_still_compiles(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    # Issue #35: the template adds #, python-brace-format; the translation lacks {default.__name__}.
    catalog = tmp_path / "po" / "de.po"
    catalog.parent.mkdir()
    shutil.copy(DATA / "format_flag_added.po", catalog)
    shutil.copy(DATA / "format_flag_added.pot", tmp_path / "po" / "messages.pot")
    msgfmt_check(catalog)
    assert main(["refresh", "--merge-only", "--quiet", str(catalog)]) == 0
    units = {u.sources[0]: u for u in read_catalog(catalog).units}
    assert units["Default: {default.__name__}"].state is UnitState.FUZZY  # the new flag's field is missing
    assert units["%d files"].state is UnitState.FUZZY  # %s for %d: c-format refuses it
    assert units["Level %d"].state is UnitState.FUZZY  # range widened from 1..5 to 0..10
    assert units["Value: {value}"].state is UnitState.TRANSLATED  # satisfies its new flag
    assert units["%s was saved"].state is UnitState.TRANSLATED
    msgfmt_check(catalog)
    assert main(["check", "--skip-fuzzy", str(catalog)]) == 0


#: Run ``pipeline refresh --merge-only`` in a fresh process (what a release build starts); which of
#: :data:`WATCHED` it loaded.
MERGE_PROBE = """
import json, sys
from pipeline.cli import main
code = main(["refresh", "--merge-only", "--quiet"])
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}))
"""
WATCHED = ("pipeline.placeholders.grammars", "rapidfuzz")
#: What a merge alone never loads: a translation run's stages, records and report.
RUN = ("pipeline.run.orchestrate", "pipeline.run.records", "pipeline.run.report", "asyncio", "httpx")
#: What a merge has no use for: polib (the PO reader is the package's own).
UNUSED = ("polib",)


@pytest.mark.parametrize(
    ("pair", "loaded"),
    [
        ("added_changed_removed_revived", ["rapidfuzz"]),  # new messages, no flag changed
        ("format_flag_added", ["pipeline.placeholders.grammars"]),  # flags changed, no new message
    ],
)
def test_a_merge_loads_the_format_grammars_and_the_fuzzy_ranking_only_where_the_template_needs_them(
    tmp_path: Path, pair: str, loaded: list[str]
) -> None:
    catalog = tmp_path / "po" / "de.po"
    catalog.parent.mkdir()
    shutil.copy(DATA / f"{pair}.po", catalog)
    shutil.copy(DATA / f"{pair}.pot", tmp_path / "po" / "messages.pot")
    (tmp_path / "pipeline.toml").write_text('catalogs = ["po/*.po"]\n[cache]\ndir = "cache"\n')
    probe = MERGE_PROBE % ((*WATCHED, *RUN, *UNUSED),)
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(done.stdout) == {"code": 0, "loaded": loaded}, done.stderr
    assert catalog.read_bytes() != (DATA / f"{pair}.po").read_bytes()  # merged all the same


@pytest.mark.parametrize("saves", [1, 2])
def test_a_save_while_refresh_merges_a_catalog_is_kept_and_merged_or_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool, saves: int
) -> None:
    # The merge step replaced the catalog whatever it held by then (atomic_write): a translator's
    # save, or the translations another run wrote, made while it merged were lost. A save made while
    # the merge is written is now merged in turn (read again, under the catalog's lock); a second save
    # in the instant of that write is left as it is, and the catalog reported.
    project = copy_sample_project(tmp_path, "http://127.0.0.1:9/unreachable")
    settings = load_settings(project / "pipeline.toml")
    pot = project / "sample_locales" / "messages.pot"
    _edited_template(tmp_path, pot).replace(pot)
    catalog = project / "sample_locales" / "de" / "LC_MESSAGES" / "messages.po"
    saved = [
        catalog.read_bytes() + f'\nmsgid "Saved by a translator {n}"\nmsgstr "Gespeichert"\n'.encode() for n in (1, 2)
    ]
    real = atomic.new_beside
    made: list[bytes] = []

    def new_beside(target: Path, tag: str = "") -> tuple[int, str]:
        if target == catalog and len(made) < saves:  # the instant before the merge's write
            made.append(saved[len(made)])
            catalog.write_bytes(made[-1])
        return real(target, tag)

    monkeypatch.setattr(atomic, "new_beside", new_beside)
    outcome, _ = refresh(settings, merge_only=True)
    if saves == 1:
        assert outcome.issues == []
        text = catalog.read_text(encoding="utf-8")
        assert 'msgid "Saved by a translator 1"' in text  # the save is kept,
        [merged] = [c for c in outcome.catalogs if c.path == "sample_locales/de/LC_MESSAGES/messages.po"]
        assert merged.written and merged.added == 2  # and merged
    else:
        assert catalog.read_bytes() == saved[1]
        assert [(i.catalog, i.reason) for i in outcome.issues] == [
            (
                "sample_locales/de/LC_MESSAGES/messages.po",
                "not merged: the catalog was changed during the run; run again",
            )
        ]
    assert len(outcome.catalogs) == 9 - saves and not [p for p in catalog.parent.iterdir() if p.name.endswith(".tmp")]


# plone.app.locales' shape (i18ndude): the text is the Default, the msgid its name.
ZOPE_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
ZOPE_ENTRY = '#. Default: "{text}"\n#: plone/app/users/browser/login.py\nmsgid "label_log_in"\nmsgstr "{target}"\n'


def test_refresh_makes_fuzzy_a_translation_whose_default_text_the_template_changed(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    """msgmerge keeps the entry as it is (the msgid did not change) and writes the new Default above the old
    translation: a translation of the old text, unmarked. The merge marks it fuzzy, for a translator or a run."""
    catalog = tmp_path / "locales" / "de" / "LC_MESSAGES" / "plone.po"
    catalog.parent.mkdir(parents=True)
    catalog.write_text(ZOPE_HEADER + ZOPE_ENTRY.format(text="Log in", target="Anmelden"), encoding="utf-8")
    template = tmp_path / "locales" / "plone.pot"
    template.write_text(ZOPE_HEADER + ZOPE_ENTRY.format(text="Log in with your e-mail", target=""), encoding="utf-8")
    assert main(["refresh", "--merge-only", "--quiet", str(catalog)]) == 0
    (unit,) = read_catalog(catalog).units
    assert (unit.sources, unit.targets, unit.state) == (("Log in with your e-mail",), ("Anmelden",), UnitState.FUZZY)
    msgfmt_check(catalog)
    assert merge(catalog, template).changed is False  # a second merge changes nothing
