"""``engine.instructions``: the variant keyed by the instructions, and length limits that keep markup whole."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pipeline.alphabets import alphabet
from pipeline.catalogs.po import read_po
from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.instructions import (
    InstructionFollowingEngine,
    read,
    shorten,
    variant,
    vary,
)
from pipeline.service.engine.markup import TOKEN
from pipeline.service.engine.pseudo import PseudoEngine
from pipeline.service.engine.tm_match import MemoryIndex

XML = MarkupOptions("xml")
IGNORE_X = MarkupOptions("xml", ignore_tags=frozenset({"x"}))
ENGINE = InstructionFollowingEngine(PseudoEngine())


def translate(*texts: str, **fields: Any) -> list[str]:
    settings = {"source_lang": "EN", "target_lang": "DE", "model_type": "quality_optimized", **fields}
    request = EngineRequest(texts=texts, **settings)
    return [t.text for t in asyncio.run(ENGINE.translate(request))]


# --- reading the instructions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instruction", "limit"),
    [
        ("Use at most 40 characters.", 40),
        ("AT MOST 40 CHARACTERS", 40),
        ("no more than 12 characters please", 12),
        ("Maximum 30 characters", 30),
        ("a maximum of 30 characters", 30),
        ("max. 8 characters", 8),
        ("max 8 chars", 8),
        ("at most 1,000 characters", 1000),
        ("Keep it shorter than 20 characters", 19),
        ("shorter than 1 character", 0),
        ("shorter than 0 characters", 0),
    ],
)
def test_the_common_phrasings_of_a_length_limit_are_read(instruction: str, limit: int) -> None:
    assert read(("Be polite", instruction)).limit == limit


@pytest.mark.parametrize(
    "instruction",
    [
        "Use informal language",
        "at most 40 words",
        "40 characters at most",
        "almost 40 characters",
        "Use abbreviations of less than 5 characters",
        "up to 3 characters",
    ],
)
def test_other_instructions_set_no_limit(instruction: str) -> None:
    assert read((instruction,)).limit is None


def test_the_smallest_limit_wins_and_the_key_is_keyed_by_all_instructions() -> None:
    asked = read(("at most 40 characters", "Be brief. No more than 25 characters."))
    assert asked.limit == 25 and asked.key is not None
    assert read(("at most 40 characters", "Be brief. No more than 25 characters.")) == asked  # same text, same answer
    shifts = {variant(key, "DE").shift for n in range(40) if (key := read((f"instruction {n}",)).key) is not None}
    assert len(shifts) > 1  # other instructions, other variants
    assert read(()).key is None and read(()).limit is None


# --- the variant --------------------------------------------------------------------------------

#: A key whose German variant moves each letter of the alphabet on by one place (ä -> b, z -> ä).
ONE = 0
GERMAN = variant(ONE, "DE")


def test_the_variant_rewrites_the_first_letter_of_each_word_within_the_alphabet() -> None:
    assert GERMAN.shift == 1 and GERMAN.cycle == alphabet("DE").table
    assert vary("Hällö wörld", GERMAN, None) == "Iällö xörld"
    assert vary("zürück", GERMAN, None) == "äürück"  # round the alphabet's end
    assert vary("Straße", GERMAN, None) == "Ätraße"  # s is no letter of the table (ß is): the key's letter


def test_the_variant_drops_the_first_letters_own_marks() -> None:
    assert vary("H\u0308ello w\u0301orld", GERMAN, None) == "Iello xorld"


def test_the_variant_keeps_codes_numbers_markup_and_ignored_content() -> None:
    text = 'Buy <b>MP3</b> 42 <x id="1"/> <x>keep me</x> now'
    assert vary(text, GERMAN, IGNORE_X) == 'Cuy <b>MP3</b> 42 <x id="1"/> <x>keep me</x> ■ow'.replace("■", "ö")


def test_the_variant_leaves_the_given_phrases_alone() -> None:
    assert (
        vary("die Datei open", GERMAN, None, frozenset({"die Datei"})) == "die Datei äpen"
    )  # o is no letter of the table either


@pytest.mark.parametrize(
    ("target", "charset"),
    [("PL", "iso-8859-2"), ("DE", "iso-8859-1"), ("JA", "euc-jp"), ("RU", "koi8-r"), ("HE", "iso-8859-8")],
)
def test_an_instructed_translation_holds_only_letters_of_the_targets_legacy_charset(target: str, charset: str) -> None:
    text = "Zażółć gęślą jaźń: Hello wonderful Ärger, Ω and 東京 at the café"
    for n in range(30):
        [out] = translate(text, target_lang=target, instructions=(f"Be brief {n}",))
        out.encode(charset)  # raises when the variant put in a character the charset lacks
        assert out != translate(text, target_lang=target)[0]


def test_a_length_limited_polish_translation_can_be_written_into_an_iso_8859_2_catalog(tmp_path: Path) -> None:
    path = tmp_path / "pl.po"
    path.write_bytes(
        b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-2\\n"\n"Language: pl\\n"\n\n'
        b'msgid "Save the changes to your profile"\nmsgstr ""\n'
    )
    catalog = read_po(path)
    [out] = translate(catalog.units[0].sources[0], target_lang="PL", instructions=("at most 20 characters",))
    assert 0 < len(out) <= 20 and catalog.write_problem(out) is None
    path.write_bytes(catalog.render({0: (out,)}))
    assert read_po(path).units[0].targets == (out,)


def test_instructions_change_the_output_visibly_and_deterministically() -> None:
    plain = translate("I am testing if custom instructions are working correctly.")
    instructed = translate(
        "I am testing if custom instructions are working correctly.",
        instructions=("Use informal language", "Be concise"),
    )
    again = translate(
        "I am testing if custom instructions are working correctly.",
        instructions=("Use informal language", "Be concise"),
    )
    assert instructed == again != plain
    # Each word differs from the plain translation in its first letter only.
    pairs = list(zip(instructed[0].split(), plain[0].split(), strict=True))
    assert all(a[1:] == b[1:] and a[0] != b[0] for a, b in pairs if b[0].isalpha())


def test_glossary_phrases_stay_verbatim_under_instructions() -> None:
    [out] = translate("Open the file", glossary=(("the file", "die Datei"),), instructions=("Use du.",))
    assert out.endswith(" die Datei") and out != "Open die Datei"


def test_a_text_already_in_the_target_language_is_not_varied() -> None:
    assert translate("Hallo Welt", instructions=("Be brief",), source_lang=None) == ["Hallo Welt"]


# --- the length limit ---------------------------------------------------------------------------


def test_words_are_dropped_from_the_end_and_edge_whitespace_kept() -> None:
    assert shorten("Hello wonderful world\n", 16, None) == "Hello wonderful\n"
    assert shorten("  Hello world  ", 9, None) == "  Hello  "
    assert shorten("Hello world", 11, None) == "Hello world"


def test_a_first_word_too_long_is_cut_between_characters_never_before_a_mark() -> None:
    assert shorten("Supercalifragilistic", 5, None) == "Super"
    assert shorten("H\u0308ello", 2, None) == "H\u0308"
    assert shorten("H\u0308ello", 1, None) == ""


def test_markup_and_ignored_content_are_never_cut() -> None:
    assert shorten("<p>Hello <b>wonderful</b> world</p>", 22, XML) == "<p>Hello <b></b></p>"
    assert shorten('<p>Hello <x id="1"/> world</p>', 23, XML) == '<p>Hello<x id="1"/></p>'
    assert shorten("<p>Hello <x>keep me</x> world</p>", 5, IGNORE_X) == "<p><x>keep me</x></p>"


def test_the_limit_holds_for_every_text_through_the_engine() -> None:
    texts = ("A long sentence that will not fit.", "<p>Short <b>one</b></p>", "Fits")
    out = translate(*texts, instructions=("Answer in at most 12 characters",), markup=XML)
    assert [len(t) <= 12 for t in out] == [True, False, True]  # the second one's tags alone take 14
    assert out[1] == "<p><b></b></p>"
    assert out[2][1:] == translate("Fits")[0][1:] and out[2][0] != translate("Fits")[0][0]


def test_a_memory_match_is_cut_too() -> None:
    memory = MemoryIndex("en", "de", (("Save the file", "Die Datei speichern"),))
    [out] = translate("Save the file", memory=memory, instructions=("at most 9 characters",))
    assert len(out) <= 9 and out.startswith("ie ", 1) and out[0] != "D"


def test_tags_come_back_whole_and_in_order_whatever_the_limit() -> None:
    text = '<p>Open <b>the</b> <x id="1"/> file<br/> now</p>'
    tags = [m.group() for m in TOKEN().finditer(text)]
    for limit in range(len(text) + 2):
        cut = shorten(text, limit, XML)
        assert [m.group() for m in TOKEN().finditer(cut)] == tags
        assert len(cut) <= max(limit, len("".join(tags)))
