"""The one parser for untrusted XML refuses entities and DTDs and reports lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.safexml import UnsafeXmlError, parse


def test_predefined_and_character_references_are_plain_text(data_dir: Path) -> None:
    assert parse(b"<a>&amp;&lt;&#233;</a>").getroot().text == "&<\u00e9"


@pytest.mark.parametrize("name", ["entity_expansion.xlf", "external_entity.xlf"])
def test_documents_with_a_doctype_are_refused_before_parsing(data_dir: Path, name: str) -> None:
    with pytest.raises(UnsafeXmlError, match="DOCTYPE"):
        parse((data_dir / "xliff" / name).read_bytes())


def test_a_utf16_doctype_is_refused_too() -> None:
    data = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'.encode("utf-16")
    with pytest.raises(UnsafeXmlError, match="DOCTYPE"):
        parse(data)


def test_undefined_entities_and_broken_markup_name_the_line() -> None:
    with pytest.raises(UnsafeXmlError) as exc:
        parse(b"<a>\n<b>&nbsp;</b></a>")
    assert exc.value.line == 2
    with pytest.raises(UnsafeXmlError, match="not well-formed") as exc:
        parse(b"<a>\n\n<b></a>")
    assert exc.value.line == 3


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-be"])
def test_doctype_as_text_inside_the_document_is_text(encoding: str) -> None:
    # An HTML mail template in CDATA, a comment quoting one: only the prolog can hold a DOCTYPE.
    declared = encoding.upper().removesuffix("-SIG").removesuffix("-BE")
    text = (
        f'<?xml version="1.0" encoding="{declared}"?>\n<!-- a <b>prolog</b> comment -->\n'
        "<a><!-- <!DOCTYPE html> --><b><![CDATA[<!DOCTYPE html><p>Hi</p>]]></b></a>"
    )
    assert parse(text.encode(encoding)).getroot()[1].text == "<!DOCTYPE html><p>Hi</p>"


@pytest.mark.parametrize(
    "prolog",
    [
        "<!-- <a> --><!DOCTYPE a>",  # after a comment that looks like a tag
        '<?pi <a>?>\n<!DOCTYPE a [<!ENTITY e "x">]>',  # after a processing instruction
        "\ufeff<!DOCTYPE a>",  # after a byte order mark
        "<!-- unterminated <!DOCTYPE a>",  # a prolog that cannot be read: refused as before
    ],
)
def test_a_doctype_in_the_prolog_is_refused_whatever_precedes_it(prolog: str) -> None:
    for encoding in ("utf-8", "utf-8-sig", "utf-16", "utf-16-be"):
        with pytest.raises(UnsafeXmlError, match="DOCTYPE"):
            parse(f"{prolog}<a><![CDATA[<!DOCTYPE html>]]></a>".encode(encoding))
