"""``pipeline check``: fixtures in tests/data/check, named after what they pin, cross-checked with msgfmt.

``bad_*`` files fail both ``msgfmt --check`` and ours; ``stricter_*`` fail only ours (on purpose: a
placeholder missing, added or changed that msgfmt does not see); ``warn_*`` pass both with a warning
(style); ``ok_*`` pass both without one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.run.gate import check_translation
from pipeline.workflows.check import check_paths
from tests.sample_project import SAMPLES

CHECK_DATA = Path(__file__).resolve().parents[1] / "data" / "check"
FIXTURES = sorted(CHECK_DATA.glob("*.po"))
SAMPLE_CATALOGS = sorted(SAMPLES.glob("*/LC_MESSAGES/*.po"))


def _errors(path: Path, include_fuzzy: bool = True) -> list[str]:
    checked = check_paths([path], include_fuzzy=include_fuzzy)
    assert checked.read == 1
    return [i.reason for i in checked.issues + checked.fuzzy if i.severity == "error"]


def test_fixture_names_cover_every_outcome() -> None:
    prefixes = {p.name.split("_", 1)[0] for p in FIXTURES}
    assert prefixes == {"bad", "stricter", "warn", "ok"}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_outcome(path: Path) -> None:
    errors = _errors(path)
    if path.name.startswith(("ok_", "warn_")):
        assert errors == []
        checked = check_paths([path])
        warnings = [i for i in checked.issues + checked.fuzzy if i.severity == "warning"]
        assert bool(warnings) == path.name.startswith("warn_")
    else:
        assert errors, f"{path.name} should fail"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_at_least_as_strict_as_msgfmt(path: Path) -> None:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU msgfmt is not installed")
    done = subprocess.run(
        [msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True, errors="replace"
    )
    expected_msgfmt_failure = path.name.startswith("bad_")  # warn_, stricter_ and ok_ pass msgfmt
    assert (done.returncode != 0) == expected_msgfmt_failure, done.stderr
    if done.returncode != 0:
        assert _errors(path), f"msgfmt rejects {path.name} but pipeline check accepts it:\n{done.stderr}"


@pytest.mark.parametrize("path", SAMPLE_CATALOGS, ids=lambda p: p.parent.parent.name)
def test_sample_catalogs_pass_even_with_fuzzy_entries(path: Path) -> None:
    assert _errors(path, include_fuzzy=True) == []


def test_fuzzy_entries_are_checked_unless_left_out_as_msgfmt_does() -> None:
    path = CHECK_DATA / "stricter_fuzzy_entry_missing_argument.po"
    assert _errors(path) == ["C format: the number of arguments differs from the source's"]
    assert _errors(path, include_fuzzy=False) == []


def test_fuzzy_brace_field_replaced_by_printf_fails_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    # The "Badge layout" regression: a fuzzy machine translation with another format's placeholder.
    path = CHECK_DATA / "stricter_fuzzy_brace_field_became_printf.po"
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr()
    # "{}" is no valid Python brace format to msgfmt, so the placeholder rule judges it; %(name)s is
    # protected whatever the flag says, and a program would print it as it is.
    where = f"{path.relative_to(Path.cwd())}:8: fuzzy entry: placeholder"
    assert out.out.splitlines() == [f"{where} '%(name)s' not in the source", f"{where} '{{}}' missing"]
    assert "2 of the errors in fuzzy entries" in out.err
    assert main(["check", "--skip-fuzzy", "-q", str(path)]) == 0


def test_reasons_are_specific() -> None:
    assert check_translation("%(n)d files", "%(n)s Dateien", ["python-format"])[0].reason == (
        "Python format: argument 'n' has another type than in the source"
    )
    assert [(p.reason, p.severity) for p in check_translation("Name: ", "Name:")] == [
        ("trailing whitespace '' differs from the source's ' '", "warning")
    ]
    assert [p.reason for p in check_translation("<b>x</b>", "<b>x</b><b>")] == [
        "markup '<b>' 2 times, the source has it 1",
        "HTML/XML tags are not balanced and nested as in the source",
    ]


def test_url_changes_are_warnings_not_errors() -> None:
    problems = check_translation("See https://example.org/help", "Siehe https://example.org/de/hilfe")
    assert problems and {p.severity for p in problems} == {"warning"}


def test_a_backslash_command_or_a_css_declaration_changed_by_hand_is_a_warning() -> None:
    # LilyPond's ca.po writes "\\applycontent" for "\\applycontext", fr.po of Odoo's account_financial_report
    # "Largeur : 16,21% ;" for "width: 16.21%;": code broken, but no format msgfmt checks
    for source, target in (
        ("\\applycontext argument", "argument de \\applycontent"),
        ("width: 16.21%;", "Largeur : 16,21% ;"),
    ):
        problems = check_translation(source, target)
        assert problems and {p.severity for p in problems} == {"warning"}
    # a German compound of the command keeps it
    assert check_translation("new \\header format", "neues \\header-Format") == []


def test_a_quoted_command_is_judged_as_code_a_translator_may_adapt() -> None:
    # git's German translators quote a command the source names bare, and keep the quoted ones' words
    assert check_translation("git write-tree failed", '"git write-tree" schlug fehl') == []
    kept = check_translation('(use "git add <file>...")', '(benutzen Sie "git add <Datei>...")')
    assert kept == []
    dropped = check_translation('(use "git add <file>...")', '(benutzen Sie "git hinzufügen <Datei>...")')
    assert [(p.severity, p.reason) for p in dropped] == [("warning", "placeholder 'git add' missing")]


def test_a_metavariable_of_the_source_is_one_in_its_translation_too() -> None:
    # roundup's de.po: its usage label translated ("Verwendung:"), the translation no longer reads as a usage
    # line, yet its <command>, kept or translated, is the metavariable the source's is, not added code
    source = "Usage: help topic\n        <command> -- help specific to a command\n"
    for kept in ("<command>", "<Befehl>"):
        assert check_translation(source, f"Verwendung: help topic\n        {kept} -- Hilfe zu einem Befehl\n") == []
    # a header a translation adds is still code the source does not have
    added = check_translation(source, "Verwendung: help topic\n        <command> -- siehe <stdio.h>\n")
    assert [p.reason for p in added] == ["placeholder '<stdio.h>' not in the source"]


def test_relaxed_plural_form_may_only_drop_trailing_arguments() -> None:
    # Polish form 0 is used for n == 1 only, so it may leave out arguments, but not the first of two.
    flags = ["c-format"]
    assert check_translation("%d files in %s", "%1$d plik", flags, strict=False) == []
    reasons = [p.reason for p in check_translation("%d files in %s", "plik w %2$s", flags, strict=False)]
    assert reasons == [
        "C format: not a valid format string: the string refers to argument number 2 but ignores argument number 1"
    ]
    # PHP's printf may skip an argument: msgfmt lets a form of one number leave out the first of two.
    assert check_translation("%d files in %s", "plik w %2$s", ["php-format"], strict=False) == []


def test_cli_prints_file_and_line_and_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "de.po"
    bad.write_bytes((CHECK_DATA / "bad_c_format_missing_argument.po").read_bytes())
    ok = tmp_path / "ok" / "fr.po"
    ok.parent.mkdir()
    ok.write_bytes((CHECK_DATA / "ok_percent_escape.po").read_bytes())
    assert main(["check", str(bad), str(ok.parent)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"{bad}:8: C format: the number of arguments differs from the source's"]
    assert "1 error(s), 0 warning(s) in 2 catalog(s)" in out.err
    assert main(["check", "-q", str(ok)]) == 0
    assert capsys.readouterr().out == ""


def test_unreadable_catalog_is_an_error_with_its_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # paths are shown relative to the project root
    path = Path("tests/data/po/syntax_error.po")
    assert main(["check", "-q", str(path)]) == 1
    assert capsys.readouterr().out.startswith("tests/data/po/syntax_error.po:23: unrecognised line")


def test_check_translation_answers_a_fresh_list_each_time() -> None:
    # The gate keeps its judgements (verify, then admit, ask the same question): a caller that adds
    # to the list it got must not change what the next caller is told.
    missing = "Python format: argument 'n' of the source is missing from the translation"
    first = check_translation("%(n)s files", "files", ["python-format"])
    assert [p.reason for p in first] == [missing]
    first.append(first[0])
    again = check_translation("%(n)s files", "files", ("python-format",))
    assert [p.reason for p in again] == [missing]
    assert check_translation("%(n)s files", "%(n)s Dateien", ["python-format"]) == []


def test_angular_start_and_close_placeholders_must_nest_as_in_the_source() -> None:
    start, close = '<x id="START_TAG_SPAN" ctype="x-span"/>', '<x id="CLOSE_TAG_SPAN" ctype="x-span"/>'
    source = f"Read {start}this{close} first"
    assert check_translation(source, f"Lies {start}das{close} zuerst", ["xliff-inline"]) == []
    swapped = check_translation(source, f"Lies {close}das{start} zuerst", ["xliff-inline"])
    assert [p.reason for p in swapped] == ["HTML/XML tags are not balanced and nested as in the source"]
    assert swapped[0].severity == "error"


def test_an_equiv_text_written_otherwise_is_the_same_inline_element() -> None:
    source = 'Logged in as <x id="PH" equiv-text="this.displayName || this.userName"/>'
    target = 'Angemeldet als <x id="PH" equiv-text="this.displayName || this.userName\n"/>'
    assert [p for p in check_translation(source, target, ["xliff-inline"]) if p.severity == "error"] == []


def test_an_answer_gluing_a_url_to_a_word_is_refused_and_may_be_recovered() -> None:
    from pipeline.placeholders.protect import protect
    from pipeline.run.gate import verify
    from pipeline.segments import Segment, SegmentKey

    source = "Read https://example.com/docs and more."
    segment, protected = Segment(SegmentKey("c.po", 0, 0), source, 1), protect(source)
    glued = verify(protected, 'Lies <x id="1"/>und mehr.', segment)
    assert (glued.text, glued.retryable) == (None, True) and "glued" in (glued.problem or "")
    assert verify(protected, 'Lies <x id="1"/> und mehr.', segment).text == "Lies https://example.com/docs und mehr."
    assert verify(protected, '请阅读<x id="1"/>了解更多。', segment).text is not None  # no spaces in Chinese


def test_an_answer_moving_a_synopsis_command_into_an_options_bracket_is_refused_and_may_be_recovered() -> None:
    from pipeline.placeholders.protect import protect
    from pipeline.run.gate import verify
    from pipeline.segments import Segment, SegmentKey

    source = "git submodule set-branch [-q|--quiet] (-b|--branch) <branch> <path>"
    segment, protected = Segment(SegmentKey("c.po", 0, 0), source, 1), protect(source)
    swapped = verify(
        protected, 'git submodule <x id="2"/> [<x id="1"/>|<x id="3"/>] (<x id="4"/>|<x id="5"/>)', segment
    )
    assert (swapped.text, swapped.retryable) == (None, True) and "moved among its options" in (swapped.problem or "")
    assert verify(protected, protected.text, segment).text == source


def test_an_answer_swapping_angular_start_and_close_is_refused_for_recovery() -> None:
    from pipeline.placeholders.protect import protect
    from pipeline.run.gate import verify
    from pipeline.segments import Segment, SegmentKey

    source = 'Read <x id="START_TAG_SPAN"/>this<x id="CLOSE_TAG_SPAN"/> first'
    flags = ("xliff-inline",)
    protected = protect(source, flags)
    segment = Segment(SegmentKey("m.xlf", 0, 0), source, 1, flags)
    swapped = verify(protected, 'Lies <x id="2"/>das<x id="1"/> zuerst', segment)
    assert (swapped.text, swapped.retryable) == (None, True)
    kept = verify(protected, 'Lies <x id="1"/>das<x id="2"/> zuerst', segment)
    assert kept.text == 'Lies <x id="START_TAG_SPAN"/>das<x id="CLOSE_TAG_SPAN"/> zuerst'


def test_usage_lines_and_macro_directives_of_human_translations_are_judged_as_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # What the gate refuses in an engine's answer, pipeline check reports in a human translation; a
    # program reads each of them all the same, so none is an error (msgfmt accepts the catalog too:
    # test_at_least_as_strict_as_msgfmt).
    path = CHECK_DATA / "warn_usage_lines_human.po"
    assert main(["check", str(path)]) == 0
    where = f"{path.relative_to(Path.cwd())}"
    assert capsys.readouterr().out.splitlines() == [
        f"{where}:15: warning: command 'git commit-graph write' of the usage synopsis moved among its options",
        f"{where}:18: warning: command 'git commit-graph write' is glued to the bracket after it",
        f"{where}:22: warning: placeholder '%<PRIuMAX>' is glued to the word after it",
        f"{where}:26: warning: placeholder '%s' is glued to the bracket after it",
    ]
    assert main(["check", "--strict", "-q", str(path)]) == 1


@pytest.mark.parametrize(
    "name", ["findutils-cs.po", "util-linux-cs.po", "util-linux-ja.po", "gnupg-de.po", "e2fsprogs-cs.po", "gawk-de.po"]
)
def test_published_usage_lines_and_macro_directives_pass_check(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Published human translations (verbatim) that msgfmt -c accepts: %'<PRIuMAX> (the locale's digit
    # grouping), %3$<PRIu64> (a position) keep their directive's '%'; "Aufruf: @GPG@-connect-agent" keeps
    # the command whose build macro is a placeholder of its own; translated argument names are text.
    path = Path(__file__).resolve().parents[1] / "data" / "damage" / name
    assert main(["check", "--strict", str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_a_macro_directive_is_judged_as_msgfmt_judges_it() -> None:
    # %'<PRIuMAX> is one C directive, as msgfmt reads it: protected whole, and compared by its type, so the
    # locale's digit grouping and a position are the translator's, and a directive without its '%' is missing.
    from pipeline.placeholders.glue import in_translation
    from pipeline.placeholders.protect import protect

    flags = ("c-format",)
    grouped = protect("Your environment variables take up %<PRIuMAX> bytes\n", flags)
    assert in_translation(grouped, protect("Vaše proměnné prostředí zabírají %'<PRIuMAX> bajtů\n", flags)) is None
    placed = protect("%s: Zero-filled %<PRIu64> bytes from the offset %<PRIu64>\n", flags)
    ja = "%1$s: 開始位置 %3$<PRIu64> から %2$<PRIu64> バイトを 0で埋めました\n"
    assert in_translation(placed, protect(ja, flags)) is None
    assert check_translation("%s: Zero-filled %<PRIu64> bytes from the offset %<PRIu64>\n", ja, flags) == []
    source = "%s: %s (%'<PRIu64> bytes) trimmed on %s\n"
    lost = check_translation(source, "%s: %s ('<PRIu64> bajtů) zahozeno v %s\n", flags)
    assert [p.reason for p in lost if p.severity == "error"] == [
        "C format: the number of arguments differs from the source's"
    ]


class _CountingPattern:
    """A compiled pattern that adds up the length of every text its ``sub`` is given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.read = pattern, 0

    def sub(self, repl: Any, text: str) -> str:
        self.read += len(text)
        return self.pattern.sub(repl, text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


@pytest.mark.parametrize("line", ["%s [--opt] <file>", "word %s [x] ", "Usage: %s [%s]", "%s [x]\n"])
def test_checking_a_text_reads_it_a_bounded_number_of_times_whatever_its_placeholders(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 50 KB text of 7,000 placeholders on one line took 3-7 s: what came before each placeholder on its
    line was read again for each (the work grew with the square of their number)."""
    from pipeline.placeholders import glue
    from pipeline.placeholders.protect import protect

    counting = _CountingPattern(glue._TAG_AT)
    monkeypatch.setattr(glue, "_TAG_AT", counting)
    source = protect(line * 2000, ("c-format",))
    assert len(source.placeholders) >= 2000
    check_translation(line * 2000, (line * 2000).replace("opt", "Opt"), ("c-format",))
    assert 0 < counting.read <= 4 * len(source.text)


def test_markup_values_are_held_to_the_argument_the_source_gives_them() -> None:
    # the source's unnumbered conversions read the arguments in order: the translation's numbers say
    # which one a link reads (glib's ja and tr translations write them so)
    source = "See <a href='%s'>the docs</a> or <a href='%s'>the FAQ</a>"
    reordered = "<a href='%2$s'>FAQ</a> oder <a href='%1$s'>Doku</a>"
    assert [p.reason for p in check_translation(source, reordered, ["c-format"])] == []
    wrong = "<a href='%2$s'>Doku</a> oder <a href='%2$s'>FAQ</a> (%1$s)"
    assert [p.reason for p in check_translation(source, wrong, ["c-format"]) if p.severity == "error"] == [
        "markup \"<a href='%1$s'>\" missing",
        "markup \"<a href='%2$s'>\" 2 times, the source has it 1",
    ]


@pytest.mark.parametrize(
    ("source", "target", "flags"),
    [
        # dpkg's po/da.po: the metavariable <part> written as the Danish word "del" (a part).
        (
            "  -j|--join <part> <part> ...      Join parts together.\n",
            "  -j|--join <del> <del> ...       Splejs dele.\n",
            ["c-format"],
        ),
        # git's po/ca.po: <upstream> as "font" (a source), <head> as "cap".
        ("git cherry [-v] [<upstream> [<head> [<limit>]]]", "git cherry [-v] [<font> [<cap> [<límit>]]]", []),
        # git's po/ca.po:7818: <upstream> named in a sentence (code where it stands) as "font", all the same.
        (
            "Could not find a tracked remote branch, please specify <upstream> manually.\n",
            "No s'ha pogut trobar una branca remota seguida. Especifiqueu <font> manualment.\n",
            ["c-format"],
        ),
        # git's po/it.po: <to> as "a".
        ("convert <from> to <to> in anonymized output", "converte <da> ad <a> nell'output in forma anonima", []),
        # dpkg's man/po/de.po (POD): I<dd> (a day) as I<tt> (Tag).
        ("I<day-of-week>B<,> I<dd> I<month> I<yyyy>", "I<Wochentag>B<,> I<tt> I<Monat> I<jjjj>", []),
    ],
)
def test_a_metavariable_translated_as_a_word_that_names_an_html_element_is_not_markup(
    source: str, target: str, flags: list[str]
) -> None:
    assert check_translation(source, target, flags) == []


def test_a_formatting_tag_put_where_the_source_has_markup_is_still_judged() -> None:
    # phpMyAdmin's po/zh_CN.po: the source's <br> written as <b>, which bolds the rest of the page.
    problems = check_translation("please add one.<br>Hint: A primary key", "请添加。<b>提示：主键")
    assert "HTML/XML tags are not balanced and nested as in the source" in [p.reason for p in problems]
    # A source with a metavariable and markup: the translation's lone <b> is not one of its words.
    problems = check_translation("Copy <file> to <b>here</b>", "Kopiere <Datei> nach <b>hier")
    assert "HTML/XML tags are not balanced and nested as in the source" in [p.reason for p in problems]
    # nor where the <word> a sentence names is code: one bare tag added beside the source's own
    source = "Could not find a tracked remote branch, please specify <upstream> manually.\n"
    problems = check_translation(
        source, "No s'ha pogut trobar. Especifiqueu <upstream> <b> manualment.\n", ["c-format"]
    )
    assert "HTML/XML tags are not balanced and nested as in the source" in [p.reason for p in problems]
