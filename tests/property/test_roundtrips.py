"""Round-trip properties: protect/restore, PO read/render, write/read back, batching limits."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pipeline import protocol
from pipeline.catalogs import read_catalog
from pipeline.catalogs.po_strings import format_field
from pipeline.placeholders.protect import protect, restore
from pipeline.run.send.packing import pack

FLAGS = st.lists(
    st.sampled_from(
        [
            "python-format",
            "c-format",
            "python-brace-format",
            "php-format",
            "javascript-format",
            "ruby-format",
            "qt-format",
            "no-c-format",
        ]
    ),
    max_size=2,
    unique=True,
)
# Text made of the pieces placeholders are made of, so the regexes are really exercised.
PIECES = st.sampled_from(
    [
        "%s",
        "%d",
        "%(name)s",
        "%1$s",
        "%%",
        "{0}",
        "{count}",
        "{{",
        "}}",
        "<b>",
        "</b>",
        '<a href="x">',
        "&amp;",
        "&",
        "<",
        ">",
        "https://example.com/a",
        "a@b.org",
        "\n",
        "\t",
        " ",
        "  ",
        "word",
        "Wört",
        "日本",
        "${HOME}",
        "%{n}",
        "{{ v }}",
        "#",
        "}",
        "{",
        "%",
    ]
)
TEXT = st.one_of(st.text(max_size=60), st.lists(PIECES, max_size=12).map("".join))


@given(TEXT, FLAGS)
def test_restore_of_protect_is_identity(text: str, flags: list[str]) -> None:
    protected = protect(text, flags)
    assert restore(protected.text, protected) == text


@given(TEXT, FLAGS)
def test_placeholder_ids_appear_once_each_in_order(text: str, flags: list[str]) -> None:
    import re

    protected = protect(text, flags)
    ids = [int(i) for i in re.findall(r'<x id="(\d+)"/>', protected.text)]
    assert ids == list(range(1, len(protected.placeholders) + 1))


# What write_problem() lets through: every character but NUL (control characters are written as escapes).
PO_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters=["\x00"]), max_size=120)
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
)


def _po(entries: list[tuple[str | None, str, str]], crlf: bool, final_newline: bool) -> str:
    blocks = [HEADER]
    for i, (ctxt, msgid, msgstr) in enumerate(entries):
        lines = [f"#: src.py:{i}"]
        if ctxt is not None:
            lines += format_field("msgctxt", ctxt)
        lines += format_field("msgid", f"{i}:{msgid}") + format_field("msgstr", msgstr)
        blocks.append("\n".join(lines) + "\n")
    text = "\n".join(blocks)
    if not final_newline:
        text = text.rstrip("\n")
    return text.replace("\n", "\r\n") if crlf else text


ENTRIES = st.lists(st.tuples(st.none() | PO_TEXT, PO_TEXT, PO_TEXT), max_size=8)


@settings(settings.get_profile("files"), max_examples=60)
@given(ENTRIES, st.booleans(), st.booleans())
def test_po_read_then_render_without_changes_is_byte_identical(
    tmp_path: Path, entries: list[tuple[str | None, str, str]], crlf: bool, final_newline: bool
) -> None:
    path = tmp_path / "x.po"
    path.write_bytes(_po(entries, crlf, final_newline).encode("utf-8"))
    catalog = read_catalog(path)
    assert [(u.context, u.sources[0], u.targets[0]) for u in catalog.units] == [
        (c, f"{i}:{m}", s) for i, (c, m, s) in enumerate(entries)
    ]
    assert catalog.render({}) == path.read_bytes()


@settings(settings.get_profile("files"), max_examples=60)
@given(ENTRIES, st.lists(PO_TEXT, min_size=8, max_size=8), st.booleans())
def test_po_write_then_read_gives_back_the_translations(
    tmp_path: Path, entries: list[tuple[str | None, str, str]], translations: list[str], crlf: bool
) -> None:
    path = tmp_path / "x.po"
    path.write_bytes(_po([(c, m, "") for c, m, _ in entries], crlf, True).encode("utf-8"))
    catalog = read_catalog(path)
    wanted = {u.position: (translations[u.position],) for u in catalog.units}
    path.write_bytes(catalog.render(wanted))
    again = read_catalog(path)
    assert [u.targets for u in again.units] == [wanted[u.position] for u in again.units]
    assert all("fuzzy" in u.flags for u in again.units)
    assert again.render({}) == path.read_bytes()


@given(st.lists(st.text(max_size=3000), max_size=300), st.integers(1, 60))
def test_batches_respect_both_limits_and_place_every_text_once(texts: list[str], max_texts: int) -> None:
    params: dict[str, object] = {"source_lang": "EN", "target_lang": "DE", "tag_handling": "xml", "ignore_tags": ["x"]}
    limit = 20_000
    packing = pack(texts, params, max_texts=max_texts, max_bytes=limit)
    placed = sorted(i for batch in packing.batches for i in batch)
    assert sorted(placed + list(packing.too_large)) == list(range(len(texts)))
    for batch in packing.batches:
        assert len(batch) <= max_texts
        assert len(protocol.encode_json({**params, "text": [texts[i] for i in batch]})) <= limit
    for i in packing.too_large:
        assert len(protocol.encode_json({**params, "text": [texts[i]]})) > limit
    assert len(packing.batches) <= packing.lower_bound + 1


def _po_with_flags(
    entries: list[tuple[str | None, str, bool]], written: dict[int, str], mark_fuzzy: bool, crlf: bool
) -> str:
    """A catalog of ``entries`` (context, msgid, has a flags line), with ``written`` translations as
    the writer must put them: its msgstr, and the fuzzy flag in its flags line or a new one."""
    blocks = [HEADER]
    for i, (ctxt, msgid, flagged) in enumerate(entries):
        fuzzy = i in written and mark_fuzzy
        lines = [f"#: src.py:{i}"]
        if flagged:
            lines.append("#, fuzzy, python-format" if fuzzy else "#, python-format")
        elif fuzzy:
            lines.append("#, fuzzy")
        if ctxt is not None:
            lines += format_field("msgctxt", ctxt)
        lines += format_field("msgid", f"{i}:{msgid}") + format_field("msgstr", written.get(i, ""))
        blocks.append("\n".join(lines) + "\n")
    text = "\n".join(blocks)
    return text.replace("\n", "\r\n") if crlf else text


@settings(settings.get_profile("files"), max_examples=60)
@given(
    st.lists(st.tuples(st.none() | PO_TEXT, PO_TEXT, st.booleans()), max_size=8),
    st.dictionaries(st.integers(0, 7), PO_TEXT),
    st.booleans(),
    st.booleans(),
)
def test_po_render_changes_the_translated_entries_and_no_other_byte(
    tmp_path: Path,
    entries: list[tuple[str | None, str, bool]],
    translations: dict[int, str],
    mark_fuzzy: bool,
    crlf: bool,
) -> None:
    written = {i: text for i, text in translations.items() if i < len(entries)}
    path = tmp_path / "x.po"
    path.write_bytes(_po_with_flags(entries, {}, mark_fuzzy, crlf).encode("utf-8"))
    catalog = read_catalog(path)
    out = catalog.render({i: (text,) for i, text in written.items()}, mark_fuzzy=mark_fuzzy)
    assert out == _po_with_flags(entries, written, mark_fuzzy, crlf).encode("utf-8")


#: Every character protection's triggers are made of (a dash, slash, dot or tilde only starting a word;
#: camel case is left to ``assume``).
NO_TRIGGER = "<&:@{}%$[]`'\n\t\r\v\f-/.~_()"


@given(st.text(st.characters(exclude_characters=NO_TRIGGER, exclude_categories=["Cs"]), max_size=80), FLAGS)
def test_a_text_without_any_trigger_character_has_no_regex_placeholder(text: str, flags: list[str]) -> None:
    # protect skips its regex scan for such texts: every kind must need one of those characters.
    from pipeline.placeholders import kinds
    from pipeline.placeholders import protect as protect_module

    assume(protect_module.TRIGGERS.search(text) is None)  # a small letter before a capital: a trigger too
    scanned = [kinds._scanned_pattern(i) for i in range(len(kinds._SCANNED))]
    assert [m.group() for pattern in scanned for m in pattern.finditer(text)] == []
    assert protect(text, flags).placeholders == ()
