"""The pseudo-translation engine's promises (the pipeline's tests rely on them)."""

from __future__ import annotations

import asyncio
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.pseudo import MARK_BY_TARGET, PseudoEngine
from pipeline.service.languages import text_targets

ENGINE = PseudoEngine()


def run(*texts: str, **fields) -> list[str]:
    fields.setdefault("source_lang", "EN")
    fields.setdefault("target_lang", "DE")
    request = EngineRequest(texts=texts, **fields)
    return [t.text for t in asyncio.run(ENGINE.translate(request))]


def test_every_target_has_its_own_mark():
    targets = [lang.v2 for lang in text_targets()]
    marks = [MARK_BY_TARGET[t] for t in targets]
    assert len(set(marks)) == len(marks)
    assert all(unicodedata.combining(m) for m in marks)


def test_output_differs_from_input_and_between_targets():
    outputs = {
        t.v2: run("Open file", source_lang="DE" if t.base == "en" else "EN", target_lang=t.v2)[0]
        for t in text_targets()
    }
    assert "Open file" not in outputs.values()
    assert len(set(outputs.values())) == len(outputs)


def test_same_input_same_output():
    assert run("Same text, same result.") == run("Same text, same result.")


def test_non_latin_scripts_change_too():
    [out] = run("日本語のテキスト", source_lang="JA", target_lang="EN-US")
    assert out != "日本語のテキスト"


def test_variants_and_equal_languages_unchanged():
    assert run("Colour", source_lang="EN", target_lang="EN-US") == ["Colour"]
    assert run("Farbe", source_lang="DE", target_lang="DE-CH") == ["Farbe"]
    assert run("Hallo", source_lang="DE", target_lang="DE") == ["Hallo"]


def test_detection_when_source_missing():
    request = EngineRequest(texts=("Das ist ein deutscher Satz.", "1234"), source_lang=None, target_lang="FR")
    result = asyncio.run(ENGINE.translate(request))
    assert [t.detected_source_language for t in result] == ["DE", "EN"]


def test_detection_of_norwegian_is_nb():
    request = EngineRequest(
        texts=("Jeg heter Ola og bor i Oslo sammen med familien min.",), source_lang=None, target_lang="DE"
    )
    assert asyncio.run(ENGINE.translate(request))[0].detected_source_language == "NB"


def test_glossary_phrases_come_out_verbatim():
    glossary = (("api key", "API-Schlüssel"), ("key", "Taste"), ("C++", "C++"))
    [out] = run("Your API Key and a key, not a keyboard; C++ rocks.", glossary=glossary)
    assert "API-Schlüssel" in out and "Taste" in out
    assert "k\u0308eyboard" in out
    assert out.count("Taste") == 1


def test_markup_and_ignored_content_byte_identical():
    text = '<p class="Intro" title=\'Hello\'>Hello <x id="1"/> &nbsp;<keep>Do not touch</keep></p>'
    markup = MarkupOptions("xml", frozenset({"x", "keep"}))
    [out] = run(text, markup=markup)
    assert out == '<p class="Intro" title=\'Hello\'>H\u0308ello <x id="1"/> &nbsp;<keep>Do not touch</keep></p>'


@pytest.mark.parametrize("target", ["DE", "JA", "ZH-HANT", "FR-CA"])
@given(text=st.text(max_size=60))
def test_removing_the_mark_gives_the_input_back(target, text):
    mark = MARK_BY_TARGET[target]
    if mark in text:
        return
    [out] = run(text, source_lang="EN" if not target.startswith("EN") else "DE", target_lang=target)
    assert out.replace(mark, "") == text
    assert len(out.split()) == len(text.split())
