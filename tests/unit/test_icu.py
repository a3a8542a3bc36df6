"""ICU MessageFormat through protect/restore: structure protected, case bodies translated, damage refused."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from pipeline.placeholders import icu
from pipeline.placeholders.checks import check_translation
from pipeline.placeholders.protect import PlaceholderMismatch, protect, restore
from pipeline.segments import Protected

PLURAL = "{n, plural, one {# file} other {# files}}"
SELECT = "{gender, select, male {He replied} female {She replied} other {They replied}}"
NESTED = (
    "{host, select, female {{guests, plural, offset:1 =0 {She stays home} one {She invites {guest}} "
    "other {She invites {guest} and # others}}} other {{guests, plural, =0 {They stay home} "
    "other {They invite # people}}}}"
)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(ph.text, ph.kind) for ph in protect(text).placeholders]


def visible(text: str) -> str:
    """What the engine gets to translate: the protected text without the tags."""
    return re.sub(r'<x id="\d+"/>', "|", protect(text).text)


def accent(protected_text: str) -> str:
    """A stand-in translation: upper-case every text run, keep the tags."""
    return re.sub(r"(<x id=\"\d+\"/>)|([^<]+)", lambda m: m.group(1) or m.group(2).upper(), protected_text)


def test_select_keywords_are_protected_and_bodies_translated() -> None:
    assert visible(SELECT) == "||He replied||She replied||They replied||"
    assert [k for _, k in kinds(SELECT)] == [
        "icu-head",
        "icu-case",
        "icu-close",
        "icu-case",
        "icu-close",
        "icu-case",
        "icu-close",
        "icu-close",
    ]
    assert (
        restore(accent(protect(SELECT).text), protect(SELECT))
        == "{gender, select, male {HE REPLIED} female {SHE REPLIED} other {THEY REPLIED}}"
    )


def test_plural_hash_and_offset_and_exact_keys_are_protected() -> None:
    text = "You have {count, plural, offset:1 =0 {no messages} one {a message from {name}} other {# messages}}."
    assert visible(text) == "You have ||no messages||a message from |||| messages||."
    assert ("{count, plural, offset:1 ", "icu-head") in kinds(text)
    assert ("{name}", "icu-arg") in kinds(text) and ("#", "icu-hash") in kinds(text)


def test_nested_arguments_round_trip_and_translate() -> None:
    p = protect(NESTED)
    assert restore(p.text, p) == NESTED
    out = restore(accent(p.text), p)
    assert "{guests, plural, offset:1 =0 {SHE STAYS HOME}" in out and "{guest} AND # OTHERS" in out


def test_simple_arguments_with_styles_are_one_placeholder() -> None:
    text = "{n, plural, other {# items at {price, number, ::currency/EUR} on {d, date, short}}}"
    assert ("{price, number, ::currency/EUR}", "icu-arg") in kinds(text)
    assert ("{d, date, short}", "icu-arg") in kinds(text)


def test_quoted_literals_are_protected_and_doubled_apostrophes_are_text() -> None:
    text = "{n, plural, one {it''s '{'one'}'} other {# of them}}"
    assert ("'{'", "icu-quote") in kinds(text) and ("'}'", "icu-quote") in kinds(text)
    assert "it''s " in visible(text)


def test_html_inside_a_case_body_is_protected_too() -> None:
    text = "{n, plural, one {<b>#</b> file} other {<b>#</b> files}}"
    assert ("<b>", "html-tag") in kinds(text) and ("</b>", "html-tag") in kinds(text)


@pytest.mark.parametrize(
    "text", ["{n, plural, one {x}", "{n, plural, }", "{n, plural, one x}", "{n, plural, one {'{ unterminated}}"]
)
def test_malformed_icu_is_not_taken_apart(text: str) -> None:
    assert icu.spans(text) is None
    p = protect(text)
    assert restore(p.text, p) == text  # still a faithful round trip through the safe kinds


def test_a_format_flag_switches_icu_off() -> None:
    assert not any(
        k.startswith("icu") for _, k in [(ph.text, ph.kind) for ph in protect(PLURAL, ["python-format"]).placeholders]
    )


def _tags(p: Protected) -> list[str]:
    return re.findall(r'<x id="\d+"/>', p.text)


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        # case key moved into another body
        (lambda t, tags: t.replace(tags[1], "", 1).replace(tags[4], tags[4] + tags[1], 1), "structure"),
        # the "#" of the first case moved into the second case
        (lambda t, tags: t.replace(tags[2], "", 1).replace(tags[5], tags[5] + tags[2], 1), "another ICU case"),
        # words put between two cases
        (lambda t, tags: t.replace(tags[3], tags[3] + "und ", 1), "between ICU cases"),
        # a brace in translated text
        (lambda t, tags: t.replace(" file", " {file", 1), "brace"),
        # a hash in the text of a plural case
        (lambda t, tags: t.replace(" files", " #files", 1), "'#'"),
    ],
)
def test_restore_refuses_broken_structure(mangle: Callable[[str, list[str]], str], reason: str) -> None:
    p = protect(PLURAL)
    with pytest.raises(PlaceholderMismatch, match=reason):
        restore(mangle(p.text, _tags(p)), p)


def test_an_apostrophe_before_an_argument_is_doubled_so_it_stays_an_apostrophe() -> None:
    text = "{n, plural, other {the {app} file}}"
    p = protect(text)
    translated = p.text.replace("the ", "l'", 1).replace(" file", " fichier", 1)
    assert restore(translated, p) == "{n, plural, other {l''{app} fichier}}"


def test_select_bodies_made_only_of_placeholders_need_no_translation() -> None:
    assert not protect("{g, select, male {{name}} other {{name}}}").needs_translation
    assert protect(SELECT).needs_translation


def test_angular_icu_with_braces_in_an_interpolation_attribute_keeps_its_structure() -> None:
    source = '{VAR_PLURAL, plural, =0 {just now} other {<x id="INTERPOLATION" equiv-text="{{minutes}}"/> minutes ago}}'
    protected = protect(source, ("xliff-inline",))
    assert re.sub(r'<x id="\d+"/>', "|", protected.text) == "||just now||| minutes ago||"
    assert (
        restore(accent(protected.text), protected)
        == '{VAR_PLURAL, plural, =0 {JUST NOW} other {<x id="INTERPOLATION" equiv-text="{{minutes}}"/> MINUTES AGO}}'
    )


def test_an_icu_plural_shown_in_a_placeholder_attribute_gets_no_categories() -> None:
    # Angular writes a nested ICU message as <ph equiv="ICU" disp="{minutes, plural, ...}"/>: the
    # attribute only shows it. Russian's categories were added inside it, so the unit's inline markup
    # differed from the source's and no translation of "Updated: ..." was ever written.
    ph = '<ph id="0" equiv="ICU" disp="{minutes, plural, =0 {...} =1 {...} other {...}}"/>'
    protected = protect(f"Updated: {ph}", ("xliff-inline", "icu-locale:ru"))
    assert [p.text for p in protected.placeholders] == [ph]


def test_a_case_holding_markup_is_not_copied_into_the_categories_added() -> None:
    # Copies of <ph id="0"/> would repeat an inline id XLIFF wants unique, and the gate refuses markup
    # that comes back more often than the source has it: such a plural keeps the source's categories.
    source = '{VAR_PLURAL, plural, =0 {just now} other {<ph id="0" equiv="INTERPOLATION" disp="{{m}}"/> minutes ago}}'
    protected = protect(source, ("xliff-inline", "icu-locale:ru"))
    assert [p.text for p in protected.placeholders].count('<ph id="0" equiv="INTERPOLATION" disp="{{m}}"/>') == 1
    assert "few" not in "".join(p.text for p in protected.placeholders)


def test_a_case_holding_markup_outside_xliff_is_copied_into_the_categories_added() -> None:
    # A PO catalog's HTML has no inline ids to repeat: Russian's few and many get the <b> of other, as
    # the engine needs them to write "2 файла" and "5 файлов" (without them ICU shows other's form).
    source = "{n, plural, one {<b>#</b> file} other {<b>#</b> files}}"
    protected = protect(source, ("icu-locale:ru",))
    assert [p.text for p in protected.placeholders].count("<b>") == 4
    assert "few {" in restore(protected.text, protected)


def test_a_case_holding_escaped_markup_is_not_copied_either() -> None:
    # Symfony's ICU XLIFF escapes its HTML: "&lt;b&gt;#&lt;/b&gt; files". Four copies of &lt;/b&gt;
    # where the source has two: the gate refused every answer, and the unit was never written.
    source = "{n, plural, one {&lt;b&gt;#&lt;/b&gt; file} other {&lt;b&gt;#&lt;/b&gt; files}}"
    protected = protect(source, ("xliff-inline", "icu-locale:ru"))
    assert "few" not in "".join(p.text for p in protected.placeholders)


def test_markup_in_the_cases_the_target_adds_is_held_to_the_sources_other_case() -> None:
    # docs/plurals-placeholders.md: a case the source lacks is held to the source's "other". A Russian
    # translation of a PO entry with HTML in its cases (the run adds few and many, copying other's <b>)
    # drew "markup '<b>' 4 times, the source has it 2" on every run and every `pipeline check`.
    source = "{count, plural, one {<b>#</b> file} other {<b>#</b> files}}"
    russian = "{count, plural, one {<b>#</b> файл} few {<b>#</b> файла} many {<b>#</b> файлов} other {<b>#</b> файла}}"
    assert check_translation(source, russian) == []
    link = 'You have {n, plural, one {<a href="/inbox">one message</a>} other {<a href="/inbox"># messages</a>}}'
    polish = link.replace("other {", 'few {<a href="/inbox"># wiadomości</a>} many {<a href="/inbox"># x</a>} other {')
    assert check_translation(link, polish) == []
    # Each case is still held to its own: a few case without other's <b> is a warning, as before.
    bare = russian.replace("few {<b>#</b> файла}", "few {# файла}")
    assert {p.reason for p in check_translation(source, bare)} == {
        "markup '<b>' missing (3 of 4)",
        "markup '</b>' missing (3 of 4)",
    }
    # A source case left out is the structure check's warning alone.
    japanese = "{count, plural, other {<b>#</b> ファイル}}"
    assert [p.reason for p in check_translation(source, japanese)] == [
        "the ICU plural leaves out the source's case(s) one"
    ]
