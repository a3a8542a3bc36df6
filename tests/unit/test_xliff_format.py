"""The XLIFF adapter: units and states, inline markup as placeholders, in-place write-back."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from pipeline.catalogs import UnitState, read_catalog
from pipeline.catalogs.xliff.catalog import XliffCatalog, read_xliff
from pipeline.catalogs.xliff.units import NS_2, NS_12
from pipeline.catalogs.xliff.xmltext import set_attributes
from pipeline.errors import CatalogError
from pipeline.placeholders.protect import XLIFF_INLINE, PlaceholderMismatch, protect, restore
from tests.sample_project import SAMPLES

DATA = Path(__file__).resolve().parent.parent / "data" / "xliff"
READABLE = sorted(
    p
    for p in [*DATA.glob("*.xlf"), *DATA.glob("*.xliff")]
    if p.name
    not in {
        "entity_expansion.xlf",
        "external_entity.xlf",
        "xliff12_not_well_formed.xlf",
        "xliff12_mixed_target_languages.xlf",
    }
)
SAMPLE_XLIFF = SAMPLES / "xliff"


def read(name: str) -> XliffCatalog:
    catalog = read_catalog(DATA / name)
    assert isinstance(catalog, XliffCatalog)
    return catalog


def translate_all(catalog: XliffCatalog, mark_fuzzy: bool = True) -> bytes:
    """Render a pseudo-translation (markup kept, text upper-cased) of every untranslated unit."""
    translations = {}
    for unit in catalog.units:
        if unit.state is UnitState.UNTRANSLATED:
            protected = protect(unit.sources[0], unit.flags)
            translations[unit.position] = (restore(protected.text.upper().replace("<X ID=", "<x id="), protected),)
    return catalog.render(translations, mark_fuzzy=mark_fuzzy)


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.unified_diff(
        before.decode("utf-8").splitlines(), after.decode("utf-8").splitlines(), lineterm="", n=0
    )
    return [line for line in diff if not line.startswith(("---", "+++", "@@"))]


@pytest.mark.parametrize("path", READABLE + sorted(SAMPLE_XLIFF.glob("*.xlf")), ids=lambda p: p.name)
def test_read_then_render_without_translations_is_byte_identical(path: Path) -> None:
    assert read_catalog(path).render({}) == path.read_bytes()


@pytest.mark.parametrize("name", ["entity_expansion.xlf", "external_entity.xlf"])
def test_entities_are_refused_with_the_line_and_nothing_leaks(name: str) -> None:
    with pytest.raises(CatalogError) as caught:
        read_catalog(DATA / name)
    assert caught.value.line == 1 and "DOCTYPE" in caught.value.reason
    assert "root:" not in str(caught.value) and "lol" not in str(caught.value)


def test_a_malformed_catalog_is_refused_with_its_line() -> None:
    with pytest.raises(CatalogError) as caught:
        read_catalog(DATA / "xliff12_not_well_formed.xlf")
    assert caught.value.line == 7 and "not well-formed" in caught.value.reason


def test_files_with_different_target_languages_are_refused() -> None:
    with pytest.raises(CatalogError) as caught:
        read_catalog(DATA / "xliff12_mixed_target_languages.xlf")
    assert caught.value.line == 7 and "(de, fr)" in caught.value.reason


def test_a_non_xliff_document_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.de.xlf"
    path.write_text('<?xml version="1.0"?>\n<html><body/></html>\n', encoding="utf-8")
    with pytest.raises(CatalogError, match="not an XLIFF"):
        read_catalog(path)


def test_existing_targets_only_missing_empty_and_blank_ones_are_untranslated() -> None:
    catalog = read("xliff12_existing_targets.xlf")
    assert [u.state for u in catalog.units] == [UnitState.UNTRANSLATED] * 4 + [
        UnitState.FUZZY,
        UnitState.FUZZY,
        UnitState.TRANSLATED,
        UnitState.TRANSLATED,
    ]
    assert catalog.units[4].targets == ("Verschieben",)  # a draft, though not started: never overwritten
    assert all(u.flags == (XLIFF_INLINE,) and u.nforms == 1 and not u.plural for u in catalog.units)


def test_a_target_that_copies_the_source_in_a_not_started_state_is_untranslated() -> None:
    # Angular merge tools (ng-extract-i18n-merge, xliffmerge) bring a new string as its source copied
    # into the target, 1.2 state="new" (or needs-translation), 2.0 segment state="initial": a stand-in,
    # not a translation. A target that differs, or one no state marks as not started, is somebody's.
    v12, v20 = read("xliff12_new_targets_copy_the_source.xlf"), read("xliff20_initial_targets_copy_the_source.xlf")
    assert [u.state for u in v12.units] == [UnitState.UNTRANSLATED] * 2 + [
        UnitState.FUZZY,
        UnitState.TRANSLATED,
        UnitState.TRANSLATED,
    ]
    assert [u.state for u in v20.units] == [UnitState.UNTRANSLATED, UnitState.FUZZY, UnitState.FUZZY]
    assert v12.units[0].targets == ("",) and v12.units[2].targets == ("Rechercher",)
    after = translate_all(v12)
    visit = ' Visit the platform in "<x id="INTERPOLATION" equiv-text="{{ lang }}"/>" '
    assert changed_lines((DATA / "xliff12_new_targets_copy_the_source.xlf").read_bytes(), after) == [
        '-        <source>Reload the application.</source><target state="new">Reload the application.</target>',
        '+        <source>Reload the application.</source><target state="needs-review-translation"'
        ' state-qualifier="leveraged-mt">RELOAD THE APPLICATION.</target>',
        f'-        <source>{visit}</source><target state="needs-translation">{visit}</target>',
        f'+        <source>{visit}</source><target state="needs-review-translation" state-qualifier="leveraged-mt">'
        f"{visit.replace('Visit the platform in', 'VISIT THE PLATFORM IN')}</target>",
    ]
    after = translate_all(v20)
    assert changed_lines((DATA / "xliff20_initial_targets_copy_the_source.xlf").read_bytes(), after) == [
        '-      <segment state="initial">',
        '+      <segment state="translated" subState="pipeline:needs-review">',
        '-        <target> The spot for <ph id="0" equiv="INTERPOLATION" disp="{{ sport }}"/>. </target>',
        '+        <target> THE SPOT FOR <ph id="0" equiv="INTERPOLATION" disp="{{ sport }}"/>. </target>',
    ]


def test_symfony_extracts_new_messages_behind_its_prefix_and_they_are_untranslated() -> None:
    # `translation:extract --force` fills a new message's target with "__" and the source (in CDATA
    # where the text holds & < >); the application shows "__Welcome" until somebody translates it.
    catalog = read("symfony_extract_new_messages.de.xlf")
    states = [UnitState.UNTRANSLATED, UnitState.UNTRANSLATED, UnitState.TRANSLATED, UnitState.TRANSLATED]
    assert [u.state for u in catalog.units] == states
    assert [u.targets for u in catalog.units] == [("",), ("",), ("Abmelden",), ("__init",)]
    after = translate_all(catalog)
    mt = '<target state="needs-review-translation" state-qualifier="leveraged-mt">'
    assert changed_lines((DATA / "symfony_extract_new_messages.de.xlf").read_bytes(), after) == [
        "-        <target>__Welcome, %name%!</target>",
        f"+        {mt}WELCOME, %name%!</target>",
        "-        <target><![CDATA[__Terms & conditions]]></target>",
        f"+        {mt}TERMS &amp; CONDITIONS</target>",
    ]


def test_a_copy_or_prefixed_source_somebody_marked_as_theirs_is_kept() -> None:
    # approved="yes", a state-qualifier or a finished state says a human (or their tool) chose the text:
    # the not-started-copy and Symfony-prefix rules never make it untranslated, so no run replaces it.
    v12, v20 = read("xliff12_marked_copies_are_kept.xlf"), read("xliff20_marked_prefixes_are_kept.xlf")
    assert [u.state for u in v12.units] == [
        UnitState.FUZZY,
        UnitState.FUZZY,
        UnitState.TRANSLATED,
        UnitState.TRANSLATED,
        UnitState.TRANSLATED,
        UnitState.UNTRANSLATED,
        UnitState.UNTRANSLATED,
    ]
    assert [u.targets for u in v12.units[:5]] == [("OK",), ("Email",), ("__init",), ("__main",), ("__name",)]
    assert [u.state for u in v20.units] == [UnitState.TRANSLATED] * 3 + [UnitState.UNTRANSLATED] * 2
    mt = '<target state="needs-review-translation" state-qualifier="leveraged-mt">'
    assert changed_lines((DATA / "xliff12_marked_copies_are_kept.xlf").read_bytes(), translate_all(v12)) == [
        '-        <target state="new">Home</target>',
        f"+        {mt}HOME</target>",
        "-        <target>__Save</target>",
        f"+        {mt}SAVE</target>",
    ]


def test_existing_empty_targets_are_filled_in_place_and_nothing_else_changes() -> None:
    catalog = read("xliff12_existing_targets.xlf")
    before = (DATA / "xliff12_existing_targets.xlf").read_bytes()
    after = translate_all(catalog)
    state = 'state="needs-review-translation" state-qualifier="leveraged-mt"'
    assert changed_lines(before, after) == [
        "+        <target " + state + ">UPLOAD</target>",
        "-        <target/>",
        "+        <target " + state + ">DOWNLOAD</target>",
        '-        <target state="new"></target>',
        '+        <target state="needs-review-translation" state-qualifier="leveraged-mt">RENAME</target>',
        "-        <target state='needs-translation' xml:lang='de'>  </target>",
        "+        <target state='needs-review-translation' xml:lang='de' state-qualifier='leveraged-mt'>DELETE</target>",  # noqa: E501
    ]


def test_rendered_catalog_reads_back_as_fuzzy_or_translated(tmp_path: Path) -> None:
    for mark_fuzzy, state in ((True, UnitState.FUZZY), (False, UnitState.TRANSLATED)):
        path = tmp_path / f"{mark_fuzzy}.de.xlf"
        shutil.copy(DATA / "xliff12_existing_targets.xlf", path)
        path.write_bytes(translate_all(read_xliff(path), mark_fuzzy=mark_fuzzy))
        again = read_catalog(path)
        assert [u.state for u in again.units[:4]] == [state] * 4
        assert [u.targets for u in again.units[:4]] == [("UPLOAD",), ("DOWNLOAD",), ("RENAME",), ("DELETE",)]
        assert again.render({}) == path.read_bytes()


def test_xliff2_state_and_substate_go_on_the_segment(tmp_path: Path) -> None:
    path = tmp_path / "x.xlf"
    shutil.copy(DATA / "xliff20_ignorable_segments_notes.xlf", path)
    before = path.read_bytes()
    after = translate_all(read_xliff(path))
    assert changed_lines(before, after) == [
        '-      <segment id="s1">',
        '+      <segment id="s1" state="translated" subState="pipeline:needs-review">',
        "+        <target>WELCOME.</target>",
        '-      <segment id="s3" state="initial">',
        '+      <segment id="s3" state="translated" subState="pipeline:needs-review">',
        "-        <target/>",
        "+        <target>HAVE FUN.</target>",
    ]
    path.write_bytes(after)
    assert [u.state for u in read_catalog(path).units] == [UnitState.FUZZY, UnitState.TRANSLATED, UnitState.FUZZY]
    path.write_bytes(before)
    path.write_bytes(translate_all(read_xliff(path), mark_fuzzy=False))
    assert b'state="translated" subState="pipeline:mt"' in path.read_bytes()
    assert [u.state for u in read_catalog(path).units] == [UnitState.TRANSLATED] * 3


def test_xliff22_with_its_own_namespace_is_read_and_written() -> None:
    catalog = read("xliff22_namespace.xlf")
    assert catalog.language == "de" and catalog.units[0].notes == "Shown on the start page"
    assert [u.state for u in catalog.units] == [UnitState.UNTRANSLATED, UnitState.TRANSLATED]
    assert changed_lines((DATA / "xliff22_namespace.xlf").read_bytes(), translate_all(catalog)) == [
        "-      <segment>",
        '+      <segment state="translated" subState="pipeline:needs-review">',
        '+        <target>HELLO <ph id="1"/>, SEE <pc id="2">THE GUIDE</pc></target>',
    ]


def test_xliff2_ignorable_translate_no_and_notes() -> None:
    catalog = read("xliff20_ignorable_segments_notes.xlf")
    assert [u.sources[0] for u in catalog.units] == ["Welcome.", "Let us begin.", "Have fun."]
    assert catalog.units[0].notes == "Shown on the first start.\nTwo sentences."
    assert catalog.units[1].targets == ("Commençons.",) and catalog.language == "fr"


def test_multiple_files_and_inherited_translate_no() -> None:
    catalog = read("xliff12_multiple_files_translate_no.xlf")
    assert [u.sources[0] for u in catalog.units] == [
        "Open",
        "You receive this mail because you asked for it.",
        "Your files are ready",
    ]
    assert [u.line for u in catalog.units] == [8, 22, 26] and catalog.language == "de"


def test_unit_notes_are_the_units_notes_and_the_header_note_is_not() -> None:
    catalog = read("xliff12_notes.xlf")
    assert [u.notes for u in catalog.units] == ["Button label.\nKeep it short.", ""]
    assert all(u.context is None for u in catalog.units)


def test_crlf_file_gets_crlf_in_new_targets() -> None:
    catalog = read("xliff12_crlf_line_endings.xlf")
    assert catalog.units[1].sources == ("First line\r\nsecond line",)
    after = translate_all(catalog)
    assert b"\n" not in after.replace(b"\r\n", b"")
    assert b"</source>\r\n        <target state=" in after
    assert b'<target state="needs-review-translation" state-qualifier="leveraged-mt">FIRST LINE\r\nSECOND LINE' in after


def test_no_final_newline_stays_without_one() -> None:
    after = translate_all(read("xliff21_no_final_newline.xlf"))
    assert after.endswith(b"<target>OPEN</target></segment></unit></file></xliff>")
    assert b'<segment state="translated" subState="pipeline:needs-review"><source>' in after


def test_legacy_encoding_is_kept_and_missing_characters_become_references() -> None:
    catalog = read("xliff12_latin1_encoding.xlf")
    assert catalog.units[0].sources == ("Café opening hours",) and catalog.language == "ja"
    out = catalog.render({0: ("カフェ & Café",)})
    before = (DATA / "xliff12_latin1_encoding.xlf").read_bytes()
    assert out.decode("latin-1").count("&#12459;&#12501;&#12455; &amp; Caf\xe9") == 1
    assert out.replace(out[out.index(b"\n        <target") : out.index(b"</target>") + 9], b"") == before


def test_language_from_the_path_when_the_file_has_none(tmp_path: Path) -> None:
    from pipeline.locales import locale_from_path

    path = tmp_path / "messages.pt_BR.xliff"
    path.write_text(
        f'<xliff version="1.2" xmlns="{NS_12}"><file original="a" source-language="en" datatype="x">'
        '<body><trans-unit id="a"><source>Hi</source></trans-unit></body></file></xliff>',
        encoding="utf-8",
    )
    catalog = read_catalog(path)
    assert catalog.language is None and locale_from_path(path) == "pt_BR"


def test_nested_inline_markup_travels_as_placeholders_and_comes_back() -> None:
    catalog = read("xliff12_inline_markup.xlf")
    unit = catalog.units[0]
    protected = protect(unit.sources[0], unit.flags)
    assert protected.text == (
        'Read the <x id="1"/>new <x id="2"/>sharing<x id="3"/> rules<x id="4"/> before you '
        '<x id="5"/>invite <x id="6"/><x id="7"/>.'
    )
    assert protected.placeholders[5].text == '<ph id="4">{user}</ph>'  # native code goes whole
    moved = protected.text.replace("Read the ", "Lies ").replace(" before you ", " bevor du ")
    assert catalog.write_problem(restore(moved, protected), 0) is None
    bpt = protect(catalog.units[1].sources[0], unit.flags)
    assert [p.kind for p in bpt.placeholders] == ["xliff-native", "xliff-native", "html-tag"]
    mrk = protect(catalog.units[2].sources[0], unit.flags)
    assert mrk.text == '<x id="1"/>Warning: <x id="2"/> links are public.'


def test_xliff2_inline_markup_pc_sc_ec_mrk_translate_no() -> None:
    catalog = read("xliff20_inline_markup.xlf")
    texts = [protect(u.sources[0], u.flags).text for u in catalog.units]
    assert texts[1] == '<x id="1"/>Bold, <x id="2"/>bold and italic<x id="3"/>, italic<x id="4"/>.'
    assert texts[2] == 'Install <x id="1"/> on <x id="2"/><x id="3"/> and <x id="4"/><x id="5"/>.'
    assert texts[3] == 'Field<x id="1"/>separator'


def test_sm_em_translate_no_and_nested_protected_mrk_are_never_sent_and_come_back_verbatim() -> None:
    catalog = read("xliff20_protected_spans_sm_em_nested_mrk.xlf")
    protected = [protect(u.sources[0], u.flags) for u in catalog.units]
    assert [p.text for p in protected] == [
        'Install <x id="1"/> on every <x id="2"/>device<x id="3"/>.',  # an sm/em without translate="no" is markup
        '<x id="1"/>Open <x id="2"/> now.',  # the span crosses the pc's end: it goes whole, from sm to em
        'Type <x id="1"/> to sync everything.',
        'Keep it short. <x id="1"/>',  # the em is in a later segment: protected to the segment's end
        "Thanks for reading.",
    ]
    assert protected[0].placeholders[0].text == '<sm id="m1" translate="no"/>Driftwood Sync<em startRef="m1"/>'
    assert protected[2].placeholders[0].text == (
        '<mrk id="m1" translate="no">sync --all <mrk id="m2" translate="no">--force</mrk> --quiet</mrk>'
    )
    out = translate_all(catalog).decode("utf-8")
    assert '<target>INSTALL <sm id="m1" translate="no"/>Driftwood Sync<em startRef="m1"/> ON EVERY' in out
    assert '<target><pc id="1">OPEN <sm id="m1" translate="no"/>Driftwood</pc> Settings<em startRef="m1"/> NOW.' in out
    assert "--force</mrk> --quiet</mrk> TO SYNC EVERYTHING.</target>" in out


def test_a_segment_that_starts_inside_an_earlier_segments_translate_no_span_is_left_alone() -> None:
    catalog = read("xliff20_protected_spans_sm_em_nested_mrk.xlf")
    assert [u.sources[0] for u in catalog.units[3:]] == [
        'Keep it short. <sm id="m1" translate="no"/>Driftwood Sync',
        "Thanks for reading.",
    ]  # not "Cloud Edition", not "Pro<em/>"
    out = translate_all(catalog).decode("utf-8")
    assert "<source>Cloud Edition</source>\n      </segment>" in out and "CLOUD" not in out and "PRO" not in out


def test_nested_protected_mrk_in_xliff12_is_one_placeholder() -> None:
    catalog = read("xliff12_nested_protected_mrk.xlf")
    texts = [protect(u.sources[0], u.flags).text for u in catalog.units]
    assert texts == ['Run <x id="1"/> to overwrite the server copy.', 'See <x id="1"/> for details.']
    out = translate_all(catalog).decode("utf-8")
    assert (
        '<target state="needs-review-translation" state-qualifier="leveraged-mt">RUN <mrk mtype="protected">sync '
        '<mrk mtype="protected">--force</mrk> now</mrk> TO OVERWRITE THE SERVER COPY.</target>'
    ) in out


def test_escaped_markup_in_text_is_one_placeholder_and_references_stay() -> None:
    text = "Press &lt;b&gt;Save&lt;/b&gt; &amp; go"
    protected = protect(text, (XLIFF_INLINE,))
    assert protected.text == 'Press <x id="1"/>Save<x id="2"/> <x id="3"/> go'
    assert restore(protected.text, protected) == text


def test_write_problem_refuses_broken_or_different_markup() -> None:
    catalog = read("xliff12_inline_markup.xlf")
    source = catalog.units[0].sources[0]
    assert catalog.write_problem(source, 0) is None
    swapped = source.replace('<g id="3" ctype="link">', "", 1).replace("</g>.", '</g><g id="3" ctype="link">.')
    assert "not well-formed" in (catalog.write_problem(swapped, 0) or "")
    doubled = source.replace("</g>.", '</g><ph id="4">{user}</ph>.')
    assert "inline markup" in (catalog.write_problem(doubled, 0) or "")
    foreign = source.replace("</g>.", '</g><x id="9"/>.')  # not the source's markup: written as text
    assert catalog.write_problem(foreign, 0) is None and '&lt;x id="9"/&gt;' in catalog._content(0, foreign)
    assert "U+0007" in (catalog.write_problem("bell\a", 0) or "")
    assert "U+D800" in (catalog.write_problem("half \ud800", None) or "")


def test_text_around_markup_is_escaped_and_markup_is_kept() -> None:
    catalog = read("xliff12_inline_markup.xlf")
    source = catalog.units[1].sources[0]
    translation = source.replace("Open ", "Öffne <Tom & Jerry> ").replace("or write to us.", "oder schreib uns.")
    assert catalog.write_problem(translation, 1) is None
    out = catalog.render({1: (translation,)}).decode("utf-8")
    assert (
        '<target state="needs-review-translation" state-qualifier="leveraged-mt">Öffne &lt;Tom &amp; Jerry&gt; '
        '<bpt id="1">&lt;a href="<sub>{url}</sub>"&gt;</bpt>the help page<ept id="1">&lt;/a&gt;</ept>'
        '<x id="2" ctype="lb"/>oder schreib uns.</target>'
    ) in out


def test_mangled_translations_are_refused_before_they_reach_the_catalog() -> None:
    unit = read("xliff12_inline_markup.xlf").units[0]
    protected = protect(unit.sources[0], unit.flags)
    dropped = protected.text.replace('<x id="6"/>', "")
    duplicated = protected.text.replace('<x id="6"/>', '<x id="6"/><x id="6"/>')
    moved = '<x id="4"/>' + protected.text.replace('<x id="4"/>', "")  # a closing tag moved to the start
    for bad in (dropped, duplicated, moved):
        with pytest.raises(PlaceholderMismatch):
            restore(bad, protected)


def test_render_refuses_what_write_problem_refuses() -> None:
    catalog = read("xliff12_inline_markup.xlf")
    with pytest.raises(ValueError, match="not well-formed"):
        catalog.render({0: ('<g id="1" ctype="bold">',)})
    with pytest.raises(ValueError, match="inline markup"):
        catalog.render({0: ("no markup at all",)})
    with pytest.raises(ValueError, match="one target"):
        catalog.render({0: ("a", "b")})


def test_new_target_copies_the_source_xml_space(tmp_path: Path) -> None:
    path = tmp_path / "x.fr.xlf"
    shutil.copy(SAMPLE_XLIFF / "driftwood.fr.xlf", path)
    catalog = read_catalog(path)
    index = next(u.position for u in catalog.units if u.sources == (" (optional)",))
    out = catalog.render({index: (" (facultatif)",)}).decode("utf-8")
    assert (
        '<source xml:space="preserve"> (optional)</source>\n        <target xml:space="preserve"> (facultatif)' in out
    )


@pytest.mark.parametrize(
    ("tag", "values", "expected"),
    [
        ("<target>", {"state": "new"}, '<target state="new">'),
        ("<target/>", {"state": "new"}, '<target state="new"/>'),
        ("<segment id='s1' >", {"state": "translated"}, "<segment id='s1' state='translated' >"),
        ('<target state="x" a="1">', {"state": "y"}, '<target state="y" a="1">'),
        ('<t\n   a="1"\n   state="x"/>', {"state": "y", "b": 'q"'}, '<t\n   a="1"\n   state="y" b="q&quot;"/>'),
    ],
)
def test_set_attributes_touches_only_what_it_sets(tag: str, values: dict[str, str], expected: str) -> None:
    assert set_attributes(tag, values) == expected


def structure_problems(path: Path) -> list[str]:
    """Checks an XLIFF schema would make of what we write: where targets are and which states they carry."""
    root = etree.parse(str(path)).getroot()
    problems = []
    if root.nsmap[None] == NS_12:
        q = f"{{{NS_12}}}"
        for unit in root.iter(f"{q}trans-unit"):
            kids = [etree.QName(k).localname for k in unit if isinstance(k.tag, str)]
            if "target" in kids and kids.index("target") != kids.index("source") + 1 + ("seg-source" in kids):
                problems.append(f"{unit.get('id')}: target not right after source")
            if kids.count("target") > 1:
                problems.append(f"{unit.get('id')}: two targets")
            target = unit.find(f"{q}target")
            if target is not None and target.get("state") not in (
                None,
                "new",
                "needs-translation",
                "translated",
                "needs-review-translation",
                "final",
                "signed-off",
            ):
                problems.append(f"{unit.get('id')}: state {target.get('state')}")
    else:
        q = f"{{{NS_2}}}"
        for segment in root.iter(f"{q}segment"):
            kids = [etree.QName(k).localname for k in segment if isinstance(k.tag, str)]
            if kids not in (["source"], ["source", "target"]):
                problems.append(f"segment children {kids}")
            if segment.get("state", "initial") not in ("initial", "translated", "reviewed", "final"):
                problems.append(f"state {segment.get('state')}")
            sub = segment.get("subState")
            if sub is not None and (":" not in sub or segment.get("state") is None):
                problems.append(f"subState {sub}")
    return problems


@pytest.mark.parametrize("path", READABLE + sorted(SAMPLE_XLIFF.glob("*.xlf")), ids=lambda p: p.name)
def test_what_we_write_keeps_the_structure_valid(tmp_path: Path, path: Path) -> None:
    out = tmp_path / path.name
    shutil.copy(path, out)
    out.write_bytes(translate_all(read_xliff(out)))
    assert structure_problems(out) == []
    again = read_catalog(out)
    assert not [u for u in again.units if u.state is UnitState.UNTRANSLATED]
    for old, new in zip(read_catalog(path).units, again.units, strict=True):
        assert old.sources == new.sources
        if old.state is not UnitState.UNTRANSLATED:
            assert (old.targets, old.state) == (new.targets, new.state)


def translate_with_cli(root: Path, catalogs: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """``pipeline translate`` with the embedded service over ``catalogs`` (TOML list) under ``root``: report.json."""
    import json

    from pipeline.cli import main

    config = root / "pipeline.toml"
    config.write_text(
        f'source_lang = "en"\ncatalogs = {catalogs}\n[service]\nurl = "embedded"\n'
        '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n',
        encoding="utf-8",
    )
    assert main(["translate", "--config", str(config)]) == 0
    capsys.readouterr()
    result: dict[str, Any] = json.loads((root / "report" / "report.json").read_text())
    return result


def test_pipeline_translate_fills_the_sample_xliff_catalogs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "project"
    shutil.copytree(SAMPLE_XLIFF, root / "sample_locales" / "xliff")
    report = translate_with_cli(root, '["sample_locales/xliff/*.xlf"]', capsys)
    assert {c["target_lang"] for c in report["catalogs"]} == {"DE", "FR"} and report["issues"] == []
    filled = 0
    for name in ("driftwood.de.xlf", "driftwood.fr.xlf"):
        original, path = SAMPLE_XLIFF / name, root / "sample_locales" / "xliff" / name
        assert structure_problems(path) == []
        before, after = read_catalog(original), read_catalog(path)
        assert len(before.units) == len(after.units)
        for old, new in zip(before.units, after.units, strict=True):
            if old.state is UnitState.UNTRANSLATED:
                filled += 1
                assert new.state is UnitState.FUZZY and new.targets[0].strip() and new.targets != old.sources
                assert after.write_problem(new.targets[0], new.position) is None  # same inline markup, well-formed
            else:
                assert (new.targets, new.state) == (old.targets, old.state)
        for line in changed_lines(original.read_bytes(), path.read_bytes()):
            assert line.lstrip("+- ").startswith(("<target", "<segment")), line
    totals = report["totals"]
    assert filled == 14 == totals["segments_translated"] + totals["segments_copied"]
    assert totals["segments_failed"] == 0 and totals["requests"] > 0
    snapshot = {p: p.read_bytes() for p in (root / "sample_locales").rglob("*.xlf")}
    again = translate_with_cli(root, '["sample_locales/xliff/*.xlf"]', capsys)
    assert again["totals"]["requests"] == 0 and {p: p.read_bytes() for p in snapshot} == snapshot


def test_an_earlier_machine_translation_can_be_replaced_when_the_run_asks(tmp_path: Path) -> None:
    path = tmp_path / "x.de.xlf"
    shutil.copy(DATA / "xliff12_existing_targets.xlf", path)
    path.write_bytes(translate_all(read_xliff(path)))
    first = path.read_bytes()
    catalog = read_catalog(path)
    assert catalog.units[0].state is UnitState.FUZZY  # never sent again unless the run's provenance says it is ours
    out = catalog.render({0: ("Hochladen",)})
    assert changed_lines(first, out) == [
        '-        <target state="needs-review-translation" state-qualifier="leveraged-mt">UPLOAD</target>',
        '+        <target state="needs-review-translation" state-qualifier="leveraged-mt">Hochladen</target>',
    ]


def test_apple_format_specifiers_are_placeholders() -> None:
    protected = protect("Shared by %1$@ with %2$@: %lld files (%zu KB), %@", (XLIFF_INLINE,))
    assert [ph.text for ph in protected.placeholders] == ["%1$@", "%2$@", "%lld", "%zu", "%@"]
    assert protect("50%less, 100%hello", (XLIFF_INLINE,)).placeholders == ()  # lengths only before integers


def test_apple_stringsdict_variables_are_one_placeholder() -> None:
    # Xcode exports a .stringsdict's format key as "%#@files@": the name between the @s is the key of
    # its plural rule, looked up at run time, so a translated name ("%#@fileß@") breaks the lookup.
    protected = protect("You have %#@files@ in %1$#@d_folders@ (%@)", (XLIFF_INLINE,))
    assert [ph.text for ph in protected.placeholders] == ["%#@files@", "%1$#@d_folders@", "%@"]
    assert protected.text == 'You have <x id="1"/> in <x id="2"/> (<x id="3"/>)'


REAL_WORLD = ["angular_messages.fr.xlf", "symfony_messages.fr.xlf", "xcode_de.xliff", "okapi_xliff20.fr.xlf"]


def test_angular_symfony_xcode_and_okapi_shapes_translate_and_keep_their_placeholders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in REAL_WORLD:
        shutil.copy(DATA / name, tmp_path / name)
    report = translate_with_cli(tmp_path, '["*.xlf", "*.xliff"]', capsys)
    assert report["issues"] == [] and report["totals"]["segments_translated"] == 13
    for name in REAL_WORLD:
        before, after = read_catalog(DATA / name), read_catalog(tmp_path / name)
        assert len(before.units) == len(after.units)
        for old, new in zip(before.units, after.units, strict=True):
            if old.state is UnitState.UNTRANSLATED:
                assert new.state is UnitState.FUZZY and new.targets != old.sources
                # Angular's <x equiv-text="{{n}}"/> and ICU, Symfony's %name%, Xcode's %lld and %1$@ ...
                assert sorted(ph.text for ph in protect(new.targets[0], new.flags).placeholders) == sorted(
                    ph.text for ph in protect(old.sources[0], old.flags).placeholders
                )
            else:
                assert (new.targets, new.state) == (old.targets, old.state)
        for line in changed_lines((DATA / name).read_bytes(), (tmp_path / name).read_bytes()):
            assert line.lstrip("+- ").startswith(("<target", "<segment")), line
    xcode = read_catalog(tmp_path / "xcode_de.xliff")
    assert [u.targets[0].split()[0] for u in xcode.units[:1]] == ["%lld"]
