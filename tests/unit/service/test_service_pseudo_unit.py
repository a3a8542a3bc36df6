"""The pseudo-translation engine's promises (the pipeline's tests rely on them)."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.alphabets import alphabet
from pipeline.service.engine import pseudo
from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.pseudo import PseudoEngine, transliterate
from pipeline.service.languages import Language, text_targets

ENGINE = PseudoEngine()


def run(*texts: str, **fields: Any) -> list[str]:
    fields.setdefault("source_lang", "EN")
    fields.setdefault("target_lang", "DE")
    request = EngineRequest(texts=texts, **fields)
    return [t.text for t in asyncio.run(ENGINE.translate(request))]


PANGRAM = "The quick brown fox jumps over the lazy dog"
#: A legacy charset each language's catalogs are found in (GNU projects' po/ folders), and what it must hold.
LEGACY = {
    "PL": "iso8859_2",
    "CS": "iso8859_2",
    "SK": "iso8859_2",
    "SL": "iso8859_2",
    "HR": "iso8859_2",
    "HU": "iso8859_2",
    "RO": "iso8859_2",
    "DE": "iso8859_1",
    "FR": "iso8859_1",
    "ES": "iso8859_1",
    "IT": "iso8859_1",
    "PT-BR": "iso8859_1",
    "NL": "iso8859_1",
    "DA": "iso8859_1",
    "NB": "iso8859_1",
    "SV": "iso8859_1",
    "FI": "iso8859_1",
    "IS": "iso8859_1",
    "CA": "iso8859_1",
    "GL": "iso8859_1",
    "EU": "iso8859_1",
    "GA": "iso8859_1",
    "AF": "iso8859_1",
    "SQ": "iso8859_1",
    "ET": "iso8859_15",
    "TR": "iso8859_9",
    "LT": "iso8859_13",
    "LV": "iso8859_13",
    "MT": "iso8859_3",
    "EO": "iso8859_3",
    "CY": "iso8859_14",
    "VI": "cp1258",
    "RU": "koi8_r",
    "UK": "koi8_u",
    "BG": "cp1251",
    "BE": "cp1251",
    "MK": "cp1251",
    "SR": "cp1251",
    "EL": "iso8859_7",
    "HE": "iso8859_8",
    "YI": "cp1255",
    "AR": "iso8859_6",
    "FA": "cp1256",
    "UR": "cp1256",
    "TH": "tis_620",
    "JA": "euc_jp",
    "KO": "euc_kr",
    "ZH-HANS": "gb2312",
    "ZH-HANT": "big5",
    "EN-US": "ascii",
    "EN-GB": "ascii",
    "ID": "ascii",
}


def _source_for(target: Language) -> str:
    return "DE" if target.base == "en" else "EN"


def test_no_two_targets_translate_a_pangram_alike() -> None:
    outputs = {t.v2: run(PANGRAM, source_lang=_source_for(t), target_lang=t.v2)[0] for t in text_targets()}
    assert PANGRAM not in outputs.values()
    assert len(set(outputs.values())) == len(outputs)


@pytest.mark.parametrize("next_gen", [False, True])
@pytest.mark.parametrize(("target", "codec"), sorted(LEGACY.items()))
def test_a_translation_holds_only_what_the_languages_legacy_charset_holds(
    target: str, codec: str, next_gen: bool
) -> None:
    text = f"{PANGRAM.upper()}: {PANGRAM}, MP3 and 42 dogs (naïve café, Straße, Łódź)"
    model = "quality_optimized" if next_gen else None
    [out] = run(text, source_lang="DE" if target.startswith("EN") else "EN", target_lang=target, model_type=model)
    out.encode(codec)  # raises if the charset cannot hold a character
    assert out != text and "MP3" in out and "42" in out
    assert alphabet(target).letters.encode(codec)


def test_a_translation_is_in_the_target_languages_script() -> None:
    [ru] = run("Open the file", target_lang="RU")
    [ja] = run("Open the file", target_lang="JA")
    [pl] = run("Hello world", target_lang="PL")
    assert all(unicodedata.name(c).startswith("CYRILLIC") for c in ru if c.isalpha())
    assert all(unicodedata.name(c).startswith("KATAKANA") for c in ja if c.isalpha())
    assert pl == "Hęłłó wórłd"


@pytest.mark.parametrize("target", ["HE", "AR", "FA", "UR", "YI"])
def test_a_right_to_left_target_comes_back_right_to_left(target: str) -> None:
    [out] = run("Save the file, then close it", target_lang=target)
    assert {unicodedata.bidirectional(c) for c in out if c.isalpha()} <= {"R", "AL"}


def test_hebrew_words_end_in_final_letters() -> None:
    [out] = run("him mean", target_lang="HE")
    assert out.split()[0][-1] == "ם" and out.split()[1][-1] == "ן"


def test_the_next_gen_model_can_be_told_apart() -> None:
    [classic] = run(PANGRAM, target_lang="PL")
    [next_gen] = run(PANGRAM, target_lang="PL", model_type="quality_optimized")
    assert classic != next_gen and len(classic.split()) == len(next_gen.split())


def test_a_word_the_table_keeps_gets_the_signature_letter() -> None:
    [out] = run("by 42", target_lang="PL")
    assert out == "by" + alphabet("PL").signature + " 42"


def test_same_input_same_output() -> None:
    assert run("Same text, same result.") == run("Same text, same result.")


def test_non_latin_scripts_change_too() -> None:
    [out] = run("日本語のテキスト", source_lang="JA", target_lang="EN-US")
    assert out != "日本語のテキスト" and out.isascii()


def test_variants_and_equal_languages_unchanged() -> None:
    assert run("Colour", source_lang="EN", target_lang="EN-US") == ["Colour"]
    assert run("Farbe", source_lang="DE", target_lang="DE-CH") == ["Farbe"]
    assert run("Hallo", source_lang="DE", target_lang="DE") == ["Hallo"]


def test_detection_when_source_missing() -> None:
    request = EngineRequest(texts=("Das ist ein deutscher Satz.", "1234"), source_lang=None, target_lang="FR")
    result = asyncio.run(ENGINE.translate(request))
    assert [t.detected_source_language for t in result] == ["DE", "EN"]


def test_detection_of_norwegian_is_nb() -> None:
    request = EngineRequest(
        texts=("Jeg heter Ola og bor i Oslo sammen med familien min.",), source_lang=None, target_lang="DE"
    )
    assert asyncio.run(ENGINE.translate(request))[0].detected_source_language == "NB"


def test_glossary_phrases_come_out_verbatim() -> None:
    glossary = (("api key", "API-Schlüssel"), ("key", "Taste"), ("C++", "C++"))
    [out] = run("Your API Key and a key, not a keyboard; C++ rocks.", glossary=glossary)
    assert "API-Schlüssel" in out and "Taste" in out
    assert transliterate("keyboard", "DE") in out
    assert out.count("Taste") == 1


def test_markup_and_ignored_content_byte_identical() -> None:
    text = '<p class="Intro" title=\'Hello\'>Hello <x id="1"/> &nbsp;<keep>Do not touch</keep></p>'
    markup = MarkupOptions("xml", frozenset({"x", "keep"}))
    [out] = run(text, markup=markup)
    hello = transliterate("Hello", "DE")
    assert out == f'<p class="Intro" title=\'Hello\'>{hello} <x id="1"/> &nbsp;<keep>Do not touch</keep></p>'


@pytest.mark.parametrize("target", ["DE", "JA", "ZH-HANT", "FR-CA", "HE"])
@given(text=st.text(st.characters(exclude_categories=["Mn", "Mc", "Me", "Cs"]), max_size=60))
def test_only_letters_change_and_words_stay_words(target: str, text: str) -> None:
    [out] = run(text, source_lang="EN" if not target.startswith("EN") else "DE", target_lang=target)
    assert [c for c in out if not c.isalpha()] == [c for c in text if not c.isalpha()]
    assert len(out.split()) == len(text.split())
    assert set(c for c in out if c.isalpha()) - set(text) <= set(alphabet(target).letters)


def _retained(feed: Callable[[], object]) -> int:
    """Bytes still allocated after ``feed()`` has run and its garbage is collected."""
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        feed()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_long_distinct_words_are_not_kept_by_the_engine() -> None:
    # A service answering anyone: 200 requests of one distinct 50,000-letter word each (10 MB) must not
    # be held in memory once answered.
    words = ["".join(chr(0x61 + (i * 7 + k) % 26) for k in range(50_000)) + f"{i:c}" for i in range(0x61, 0x61 + 200)]

    def feed() -> None:
        for word in words:
            transliterate(word, "JA")

    assert _retained(feed) < 1_000_000


def test_distinct_words_for_every_target_and_model_are_not_all_kept() -> None:
    # Each target and model has its own word memo: an attacker cycling through all of them with words
    # never seen before must not make the engine hold them all (248 memos x 1,000 words here, 35 MB).
    targets = [lang.v2 for lang in text_targets()]
    for target in targets:  # the alphabets themselves are built once and kept
        transliterate("warm", target), transliterate("warm", target, True)
    words = ["w" + "".join(chr(0x61 + (i // 26**k) % 26) for k in range(25)) for i in range(1000)]

    def feed() -> None:
        for target in targets:
            for next_gen in (False, True):
                for word in words:
                    transliterate(word, target, next_gen)

    assert _retained(feed) < 14_000_000


def test_every_letter_there_is_in_every_target_is_not_all_kept() -> None:
    # Each target and model fills a letter table as letters are met: text holding every letter of
    # Unicode (some 140,000) sent to every target would make the engine hold gigabytes.
    targets = [lang.v2 for lang in text_targets()][:8]
    for target in targets:  # the alphabets themselves are built once and kept
        transliterate("warm", target), transliterate("warm", target, True)
    letters = [chr(c) for c in range(0x4E00, 0x4E00 + 20_000) if chr(c).isalpha()]
    texts = ["".join(letters[i : i + 40]) for i in range(0, len(letters), 40)]  # words too long for the word memo

    def feed() -> None:
        for target in targets:
            for next_gen in (False, True):
                for text in texts:
                    transliterate(text, target, next_gen)

    assert _retained(feed) < 12_000_000  # 320,000 letters met; every one of them kept: 29 MB


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_an_ascii_text_has_the_words_the_unicode_pattern_finds(text: str) -> None:
    # transliterate reads an ASCII text with a pattern of its own, for speed: the same words, always.
    assert pseudo._ASCII_WORD.findall(text) == pseudo._WORD().findall(text)
