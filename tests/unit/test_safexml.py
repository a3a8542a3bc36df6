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
