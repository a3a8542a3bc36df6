"""Round-trip properties of the XLIFF adapter over generated catalogs (1.2 and 2.x)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.catalogs import UnitState, read_catalog
from pipeline.catalogs.xliff.units import NS_2, NS_12
from pipeline.catalogs.xliff.xmltext import escape_text
from pipeline.placeholders.protect import protect, restore

WORDS = st.sampled_from(
    [
        "Open",
        "the",
        "file",
        "Wört",
        "日本",
        "&",
        "<",
        ">",
        '"',
        "'",
        "{name}",
        "%s",
        " ",
        "  ",
        "\t",
        "\n",
        "a@b.org",
        "https://example.com/?a=1&b=2",
        "&lt;b&gt;",
        "]]>",
    ]
)
TEXT = st.lists(WORDS, min_size=1, max_size=5).map(lambda ws: escape_text("".join(ws)))


@st.composite
def inline(draw: st.DrawFn, version: str, depth: int = 0) -> str:
    """A source's inner XML: escaped text mixed with inline elements of the version, nested."""
    pieces = []
    for n in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["text", "text", "empty", "native", "protected", "paired"] if depth < 2 else ["text", "empty"]
            )
        )
        if kind == "text":
            pieces.append(draw(TEXT))
        elif kind == "empty":
            pieces.append(
                draw(
                    st.sampled_from(
                        ['<x id="{n}"/>', "<x id='{n}' ctype='lb'/>"]
                        if version == "1.2"
                        else ['<ph id="{n}"/>', '<sc id="{n}"/>', '<cp hex="0009"/>']
                    )
                ).format(n=depth * 10 + n)
            )
        elif kind == "native":
            if version == "1.2":
                pieces.append(f'<ph id="{depth * 10 + n}">{draw(TEXT)}</ph>')
            else:
                pieces.append(f'<mrk id="m{depth * 10 + n}" translate="no">{draw(TEXT)}</mrk>')
        elif kind == "protected":  # never sent: nested, or (2.x) an sm/em span; SECRET only ever appears here
            inner = f"{draw(TEXT)}SECRET{draw(TEXT)}"
            if version == "1.2":
                pieces.append(f'<mrk mtype="protected">{inner}<mrk mtype="protected">SECRET</mrk>{draw(TEXT)}</mrk>')
            elif draw(st.booleans()):
                pieces.append(
                    f'<mrk id="o{depth}{n}" translate="no">{inner}<mrk id="i{depth}{n}" translate="no">'
                    f"SECRET</mrk>{draw(TEXT)}</mrk>"
                )
            else:
                pieces.append(f'<sm id="s{depth}{n}" translate="no"/>{inner}<em startRef="s{depth}{n}"/>')
        else:
            name = "g" if version == "1.2" else "pc"
            pieces.append(f'<{name} id="{depth * 10 + n}">{draw(inline(version, depth + 1))}</{name}>')
    return "".join(pieces)


@st.composite
def catalogs(draw: st.DrawFn) -> tuple[bytes, str]:
    """A whole XLIFF file as bytes, with its version."""
    version = draw(st.sampled_from(["1.2", "2.0", "2.1"]))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    indent = draw(st.sampled_from(["  ", "\t", ""]))
    q = draw(st.sampled_from(['"', "'"]))
    units = []
    for i in range(draw(st.integers(0, 5))):
        source = draw(inline(version))
        target = draw(st.sampled_from([None, "<target/>", "<target></target>", "<target> </target>", "filled"]))
        if target == "filled":
            target = f"<target>{draw(inline(version))}</target>"
        translate = draw(st.sampled_from(["", f" translate={q}no{q}", f" translate={q}yes{q}"]))
        note = draw(st.sampled_from(["", "Button label", "A &amp; B"]))
        pad = nl + indent * 4
        if version == "1.2":
            state = draw(st.sampled_from(["", f" state={q}new{q}", f" state={q}translated{q}"]))
            target_xml = pad + target.replace("<target", f"<target{state}", 1) if target else ""
            note_xml = f"{pad}<note>{note}</note>" if note else ""
            units.append(
                f"{nl}{indent * 3}<trans-unit id={q}u{i}{q}{translate}>{pad}<source>{source}</source>"
                f"{target_xml}{note_xml}{nl}{indent * 3}</trans-unit>"
            )
        else:
            state = draw(st.sampled_from(["", f" state={q}initial{q}", f" state={q}final{q}"]))
            notes = f"{pad}<notes><note>{note}</note></notes>" if note else ""
            ignorable = draw(st.sampled_from(["", f"{pad}<ignorable><source> </source></ignorable>"]))
            target_xml = pad + indent + target if target else ""
            units.append(
                f"{nl}{indent * 2}<unit id={q}u{i}{q}{translate}>{notes}{pad}<segment{state}>{pad}{indent}"
                f"<source>{source}</source>{target_xml}{pad}</segment>{ignorable}{nl}{indent * 2}</unit>"
            )
    if version == "1.2":
        body = (
            f"<xliff version={q}1.2{q} xmlns={q}{NS_12}{q}>{nl}{indent}<file original={q}a{q} "
            f"source-language={q}en{q} target-language={q}de{q} datatype={q}plaintext{q}>{nl}{indent * 2}<body>"
            f"{''.join(units)}{nl}{indent * 2}</body>{nl}{indent}</file>{nl}</xliff>"
        )
    else:
        body = (
            f"<xliff version={q}{version}{q} xmlns={q}{NS_2}{q} srcLang={q}en{q} trgLang={q}de{q}>{nl}{indent}"
            f"<file id={q}f{q}>{''.join(units)}{nl}{indent}</file>{nl}</xliff>"
        )
    declaration = draw(
        st.sampled_from(
            [
                "",
                f"<?xml version={q}1.0{q} encoding={q}UTF-8{q}?>{nl}",
                f"<?xml version='1.0'?>{nl}<!-- a comment -->{nl}",
            ]
        )
    )
    final = draw(st.sampled_from(["", nl]))
    return (declaration + body + final).encode("utf-8"), version


def _write(data: bytes) -> Path:
    directory = Path(tempfile.mkdtemp(prefix="xliff-prop-"))
    path = directory / "generated.de.xlf"
    path.write_bytes(data)
    return path


@settings(settings.get_profile("files"), max_examples=150)
@given(catalogs())
def test_read_then_render_without_changes_is_byte_identical(generated: tuple[bytes, str]) -> None:
    data, _ = generated
    assert read_catalog(_write(data)).render({}) == data


@settings(settings.get_profile("files"), max_examples=150)
@given(catalogs(), st.booleans())
def test_translated_units_read_back_and_nothing_else_changes(generated: tuple[bytes, str], mark_fuzzy: bool) -> None:
    data, version = generated
    path = _write(data)
    catalog = read_catalog(path)
    wanted = {}
    for unit in catalog.units:
        if unit.state is UnitState.UNTRANSLATED:
            protected = protect(unit.sources[0], unit.flags)
            assert "SECRET" not in protected.text
            assert restore(protected.text, protected) == unit.sources[0]
            wanted[unit.position] = ("Übersetzt: " + restore(protected.text, protected),)
            assert catalog.write_problem(wanted[unit.position][0], unit.position) is None
    out = catalog.render(wanted, mark_fuzzy=mark_fuzzy)
    path.write_bytes(out)
    again = read_catalog(path)
    assert again.render({}) == out
    assert len(again.units) == len(catalog.units)
    for old, new in zip(catalog.units, again.units, strict=True):
        assert new.sources == old.sources and new.notes == old.notes
        if old.position in wanted:
            assert new.state is (UnitState.FUZZY if mark_fuzzy else UnitState.TRANSLATED)
            assert new.targets[0].startswith("Übersetzt: ")
            assert len(new.targets[0]) >= len(wanted[old.position][0])  # text re-escaped, markup verbatim
        else:
            assert (new.targets, new.state) == (old.targets, old.state)
    if not wanted:
        assert out == data
