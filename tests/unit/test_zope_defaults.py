"""Zope/Plone message ids: the ``#. Default:`` text is what is translated and checked, the id is left alone.

The fixture ``layouts/plone`` holds entries of plone.app.locales 7.0.4; the lingua shapes below are
yafowil 3.1.0's ``yafowil.pot`` (lingua 4.15), as polib wrapped it.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import polib
import pytest

from pipeline.catalogs.po import read_po
from pipeline.catalogs.po_scan.defaults import Default, default_of
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.review import views
from pipeline.review.session import Session
from pipeline.run.provenance import unit_identity
from tests.run_fakes import FakeService, run

PLONE = Path(__file__).resolve().parent.parent / "data" / "layouts" / "plone"
CATALOG = Path("locales") / "de" / "LC_MESSAGES" / "plone.po"
CONFIG = '[service]\nurl = "http://x.invalid"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'


@pytest.mark.parametrize(
    ("comment", "msgid", "text"),
    [
        # i18ndude: one PO string, its escapes read
        ('Default: "Revisions of \\"${title}\\""', "title_revisions_of", 'Revisions of "${title}"'),
        # i18ndude: several lines, the first empty (zope.app.locales' "#. " and i18ndude's "#.  " alike)
        ('Default: ""\n"  <p>"\n "    Welcome!"\n"  </p>"', "front-text", "  <p>    Welcome!  </p>"),
        # zope.tal's comments after the Default are no part of it
        ('Default: "HTML"\n<label for="cb_html" i18n:translate="html">\nHTML\n</label>', "html", "HTML"),
        # lingua: wrapped by polib at 79 columns, a line of its own after
        (
            "Default: Value ${val} has to be in stepping of ${step} based on a floor\nvalue of ${minimum}",
            "input_number_step_and_minimum_value",
            "Value ${val} has to be in stepping of ${step} based on a floor value of ${minimum}",
        ),
        ("Default: long integer\npragma: no cover", "datatype_long", "long integer"),
        # lingua: a default of several lines (triple-quoted in the code), a "#." line per line as indented there
        (
            "Default: Enter the mail server.\n    Leave it empty to use the site's.\nUsed in sentence: x",
            "help_mailhost",
            "Enter the mail server.\n    Leave it empty to use the site's.",
        ),
        # msgfmt holds the translation to the msgid's newlines at its ends: the Default's are dropped
        ('Default: "Hello ${name}\\n"', "mail_hello", "Hello ${name}"),
    ],
)
def test_the_default_comment_is_read_as_its_writer_wrote_it(comment: str, msgid: str, text: str) -> None:
    assert default_of(comment, msgid) == Default(text)


@pytest.mark.parametrize(
    ("comment", "msgid"),
    [
        ('Default: "Add"', "Add"),  # the same text as the msgid
        ('Default: ""', "label_empty"),  # nothing to translate from
        ("Default: 10 seconds", "Timeout in seconds"),  # unquoted, and the msgid is text: anybody's note
        ("TRANSLATORS: Default: yes", "label_yes"),  # not a Default comment
    ],
)
def test_no_default_is_read_where_there_is_none_to_use(comment: str, msgid: str) -> None:
    assert default_of(comment, msgid) is None


def test_two_different_defaults_leave_the_text_undecided() -> None:
    assert default_of('Default: "Delete"\nDefault: "Remove"', "label_delete") == Default("Delete", True)
    assert default_of('Default: "Delete"\nDefault: "Delete"', "label_delete") == Default("Delete")


def test_a_units_source_is_its_default_and_its_key_the_id() -> None:
    catalog = read_po(PLONE / CATALOG)
    units = {u.key or u.sources[0]: u for u in catalog.units}
    deleting = units["deleting_contents"]
    assert deleting.sources == ("Following content within <strong>${content}</strong> will also be deleted:",)
    assert deleting.key == "deleting_contents"
    assert unit_identity(deleting) == "deleting_contents"
    assert units["Add"].key is None and units["Add"].sources == ("Add",)
    plain = units["${title} has been reverted to revision ${version}."]
    assert plain.key is None
    # polib's entries (msgmerge-style merging) keep the ids
    assert [e.msgid for e in catalog.entries][1:3] == ["bulkactions_delete", "deleting_contents"]


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "plone"
    shutil.copytree(PLONE, root)
    (root / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    return root


def test_the_default_is_translated_and_written_under_the_id(tmp_path: Path) -> None:
    root = _project(tmp_path)
    service = FakeService()
    report = run(load_settings(root / "pipeline.toml"), service)
    sent = [text for request in service.requests for text in request["text"]]
    ids = ("bulkactions_delete", "label_delete", "html", "front-text", "action_condition_heading")
    assert not any(text in ids for text in sent), sent
    assert sent.count("Condition") == 1, sent  # two ids, one text: sent once
    assert "Delete" not in sent  # the human translation of the text is reused
    written = {e.msgid: e for e in polib.pofile(str(root / CATALOG))}
    assert written["bulkactions_delete"].msgstr == written["label_delete"].msgstr == "Löschen"
    assert written["action_condition_heading"].msgstr == written["label_bundle_condition"].msgstr
    assert written["label_bundle_condition"].msgstr == "[DE] Condition"
    assert written["html"].msgstr == "[DE] HTML"
    assert "fuzzy" in written["html"].flags
    assert written["mail_notification_message_moderator2"].msgstr.endswith("${link}")
    assert "[DE] <div" in written["front-text"].msgstr
    assert written["Add"].msgstr == "[DE] Add"
    assert report.totals.segments_copied == 0
    msgfmt = shutil.which("msgfmt")
    if msgfmt is not None:
        done = subprocess.run(
            [msgfmt, "-c", "--use-fuzzy", "-o", "/dev/null", str(root / CATALOG)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr


def test_a_dry_run_counts_the_defaults(tmp_path: Path) -> None:
    root = _project(tmp_path)
    report = run(load_settings(root / "pipeline.toml"), FakeService(), dry_run=True)
    assert report.would_send is not None
    # "Condition" twice; "Delete" reused from the human translation of the text, twice
    assert report.would_send.segments == 8 and report.would_send.texts == 7
    assert report.totals.segments_reused == 2
    assert report.totals.segments_copied == 0


def test_check_judges_a_translation_against_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], msgfmt_check: Callable[[Path], None]
) -> None:
    root = _project(tmp_path)
    assert main(["check", "--config", str(root / "pipeline.toml")]) == ExitCode.OK
    out, err = capsys.readouterr()
    err = out + err
    assert "not in the source" not in err, err  # <strong>, {portal_url}: the Default has them
    assert "newline" not in err, err  # msgfmt holds the translation to the id's ends, not the Default's
    # a real problem is kept: the human translation lost the Default's placeholder
    assert "plone.po:55: warning: placeholder '$portal_name' missing" in err, err
    assert "0 error(s), 1 warning(s)" in err, err
    msgfmt_check(root / CATALOG)


def test_an_id_with_two_default_texts_is_left_for_a_human(tmp_path: Path) -> None:
    root = _project(tmp_path)
    path = root / CATALOG
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('#. Default: "HTML"\n', '#. Default: "HTML"\n#. Default: "Markup"\n'), "utf-8")
    service = FakeService()
    report = run(load_settings(root / "pipeline.toml"), service)
    sent = [text for request in service.requests for text in request["text"]]
    assert "HTML" not in sent and "html" not in sent
    [warning] = [i for i in report.issues if "two different Default texts" in i.reason]
    assert "'html'" in warning.reason and warning.severity == "warning"
    assert {e.msgid: e.msgstr for e in polib.pofile(str(path))}["html"] == ""


def test_the_review_shows_the_default_as_source_with_the_id_beside_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    settings = load_settings(root / "pipeline.toml")
    run(settings, FakeService())
    session = Session(settings, warn=pytest.fail)
    rows = {row["key"]: row for row in views.listing(session)["entries"]}
    assert rows["title_revisions_of"]["source"] == 'Revisions of "${title}"'
    assert rows["title_revisions_of"]["target"].startswith("[DE] Revisions of")
    entry = session.entries[rows["title_revisions_of"]["id"]]
    assert views.detail(session, entry)["checks"] == [] and entry.level == "ok"
    # an edit is judged against the Default and written under the id
    session.edit(entry.id, entry.version, ['Versionen von „${title}"'])
    written = {e.msgid: e for e in polib.pofile(str(root / CATALOG))}
    assert written["title_revisions_of"].msgstr == 'Versionen von „${title}"'
    assert "fuzzy" not in written["title_revisions_of"].flags


def test_a_lingua_default_of_several_lines_is_read_whole_as_zope_shows_it(tmp_path: Path) -> None:
    """lingua writes ``Default: <the code's text>`` through polib (``POFile(wrapwidth=79)``): a text of several
    lines is a comment line per line, each indented as in the code, and a long one wrapped at 79 columns."""
    text = (
        "Enter the address of the mail server.\n    Leave it empty to use the one the site's settings name, which is "
        "usually localhost at port 25.\n    Ask your administrator."
    )
    pot = polib.POFile(wrapwidth=79)
    pot.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    pot.append(polib.POEntry(msgid="help_mailhost", msgstr="", comment="Default: " + text + "\npragma: no cover"))
    pot.save(str(tmp_path / "app.pot"))
    assert "#.     Leave it empty" in (tmp_path / "app.pot").read_text(encoding="utf-8")
    (unit,) = read_po(tmp_path / "app.pot").units
    assert (unit.sources, unit.key) == ((text,), "help_mailhost")


ZOPE_FORMATS = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    '#. Default: "%(count)d files"\n#, python-format\nmsgid "label_files"\nmsgstr "%(count)d Dateien"\n\n'
    '#. Default: "%(count)d folders"\n#, python-format\nmsgid "label_folders"\nmsgstr "Ordner"\n\n'
    '#. Default: "%(count)d items"\n#, python-format\nmsgid "label_items"\nmsgstr ""\n'
)


def test_a_format_flag_on_a_zope_id_is_judged_against_the_default_and_as_msgfmt_judges_the_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The translation is of the Default, whose directives zope.i18n fills: checked against it. msgfmt -c judges
    it against the msgid, a name without directives, and refuses every translation that keeps them: said as an
    error too, and a run writes none (an untranslated entry is one msgfmt -c passes)."""
    catalog = tmp_path / "locales" / "de" / "LC_MESSAGES" / "plone.po"
    catalog.parent.mkdir(parents=True)
    catalog.write_text(ZOPE_FORMATS, encoding="utf-8")
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    assert main(["check", str(catalog)]) == ExitCode.PARTIAL
    out = capsys.readouterr().out
    assert "plone.po:8: Python format: the translation has argument 'count'" in out
    assert "judged as msgfmt -c judges it: against the message id 'label_files'" in out
    assert "plone.po:13: Python format: argument 'count' of the source is missing from the translation" in out
    before = catalog.read_bytes()
    run(load_settings(tmp_path / "pipeline.toml"), FakeService())
    assert catalog.read_bytes() == before


# plone.app.locales 7.0.4: de/LC_MESSAGES/plone.po's Default, which a translator's edit corrupted (plone.pot has
# none for this msgid), and a Default of our own making whose placeholder a translator renamed in the catalog.
CORRUPTED = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    '#. Default: "Order in folder6 Unterstützung [deinstallieren]"\n'
    '#: plone/app/querystring/profiles/default/registry.xml\nmsgid "Order in folder"\nmsgstr ""\n\n'
    '#. Default: "Moved to ${folder}"\nmsgid "label_moved"\nmsgstr "Verschoben nach ${ordner}"\n'
)
TEMPLATE = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    '#: plone/app/querystring/profiles/default/registry.xml\nmsgid "Order in folder"\nmsgstr ""\n\n'
    '#. Default: "Moved to ${ordner}"\nmsgid "label_moved"\nmsgstr ""\n'
)


@pytest.mark.parametrize("template", [True, False], ids=["with its template", "without one"])
def test_a_default_changed_in_a_language_catalog_gives_way_to_its_templates(
    tmp_path: Path, template: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """msgmerge writes the template's extracted comments over the catalog's: where the catalog has a template
    (``locales/plone.pot`` for ``locales/de/LC_MESSAGES/plone.po``), its text is the template's (its Default, or
    its msgid where it has none); without one, the catalog's own Default."""
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    catalog = tmp_path / CATALOG
    catalog.parent.mkdir(parents=True)
    catalog.write_text(CORRUPTED, encoding="utf-8")
    if template:
        (tmp_path / "locales" / "plone.pot").write_text(TEMPLATE, encoding="utf-8")
    main(["check", "--config", str(tmp_path / "pipeline.toml"), str(catalog)])
    said = capsys.readouterr().out
    assert ("plone.po:12: warning: placeholder '$ordner' not in the source" in said) is not template
    service = FakeService()
    run(load_settings(tmp_path / "pipeline.toml"), service)
    sent = [text for request in service.requests for text in request["text"]]
    assert sent == (["Order in folder"] if template else ["Order in folder6 Unterstützung [deinstallieren]"])
    written = {e.msgid: e.msgstr for e in polib.pofile(str(catalog))}
    assert written["Order in folder"] == f"[DE] {sent[0]}"
    # the review shows it as the run read it
    rows = views.listing(Session(load_settings(tmp_path / "pipeline.toml"), warn=pytest.fail))["entries"]
    assert sent[0] in [row["source"] for row in rows]
