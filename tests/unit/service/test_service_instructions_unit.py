"""``engine.instructions``: the variant keyed by the instructions, and length limits that keep markup whole."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.instructions import (
    VARIANT_MARKS,
    InstructionFollowingEngine,
    read,
    shorten,
    vary,
)
from pipeline.service.engine.markup import TOKEN
from pipeline.service.engine.pseudo import PseudoEngine
from pipeline.service.engine.tm_match import MemoryIndex

XML = MarkupOptions("xml")
IGNORE_X = MarkupOptions("xml", ignore_tags=frozenset({"x"}))
ENGINE = InstructionFollowingEngine(PseudoEngine())


def translate(*texts: str, **fields) -> list[str]:
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
def test_the_common_phrasings_of_a_length_limit_are_read(instruction, limit):
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
def test_other_instructions_set_no_limit(instruction):
    assert read((instruction,)).limit is None


def test_the_smallest_limit_wins_and_the_mark_is_keyed_by_all_instructions():
    asked = read(("at most 40 characters", "Be brief. No more than 25 characters."))
    assert asked.limit == 25 and asked.mark in VARIANT_MARKS
    assert read(("at most 40 characters", "Be brief. No more than 25 characters.")) == asked  # same text, same answer
    marks = {read((f"instruction {n}",)).mark for n in range(40)}
    assert len(marks) > 1  # other instructions, other variants
    assert read(()).mark is None and read(()).limit is None


# --- the variant --------------------------------------------------------------------------------


def test_the_variant_marks_each_word_after_its_first_letter_and_its_marks():
    assert vary("Hello\u0308 w\u0301orld", "\u20d1", None) == "H\u20d1ello\u0308 w\u0301\u20d1orld"


def test_the_variant_keeps_codes_numbers_markup_and_ignored_content():
    text = 'Buy <b>MP3</b> 42 <x id="1"/> <x>keep me</x> now'
    assert vary(text, "\u20d1", IGNORE_X) == 'B\u20d1uy <b>MP3</b> 42 <x id="1"/> <x>keep me</x> n\u20d1ow'


def test_the_variant_leaves_the_given_phrases_alone():
    assert vary("die Datei open", "\u20d1", None, frozenset({"die Datei"})) == "die Datei o\u20d1pen"


def test_instructions_change_the_output_visibly_and_deterministically():
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
    assert instructed[0].replace(read(("Use informal language", "Be concise")).mark or "?", "") == plain[0]


def test_glossary_phrases_stay_verbatim_under_instructions():
    [out] = translate("Open the file", glossary=(("the file", "die Datei"),), instructions=("Use du.",))
    assert out.endswith(" die Datei") and out != "Open die Datei"


def test_a_text_already_in_the_target_language_is_not_varied():
    assert translate("Hallo Welt", instructions=("Be brief",), source_lang=None) == ["Hallo Welt"]


# --- the length limit ---------------------------------------------------------------------------


def test_words_are_dropped_from_the_end_and_edge_whitespace_kept():
    assert shorten("Hello wonderful world\n", 16, None) == "Hello wonderful\n"
    assert shorten("  Hello world  ", 9, None) == "  Hello  "
    assert shorten("Hello world", 11, None) == "Hello world"


def test_a_first_word_too_long_is_cut_between_characters_never_before_a_mark():
    assert shorten("Supercalifragilistic", 5, None) == "Super"
    assert shorten("H\u0308ello", 2, None) == "H\u0308"
    assert shorten("H\u0308ello", 1, None) == ""


def test_markup_and_ignored_content_are_never_cut():
    assert shorten("<p>Hello <b>wonderful</b> world</p>", 22, XML) == "<p>Hello <b></b></p>"
    assert shorten('<p>Hello <x id="1"/> world</p>', 23, XML) == '<p>Hello<x id="1"/></p>'
    assert shorten("<p>Hello <x>keep me</x> world</p>", 5, IGNORE_X) == "<p><x>keep me</x></p>"


def test_the_limit_holds_for_every_text_through_the_engine():
    texts = ("A long sentence that will not fit.", "<p>Short <b>one</b></p>", "Fits")
    out = translate(*texts, instructions=("Answer in at most 12 characters",), markup=XML)
    assert [len(t) <= 12 for t in out] == [True, False, True]  # the second one's tags alone take 14
    assert out[1] == "<p><b></b></p>"
    assert out[2].replace(read(("Answer in at most 12 characters",)).mark or "?", "") == translate("Fits")[0]


def test_a_memory_match_is_cut_too():
    memory = MemoryIndex("en", "de", (("Save the file", "Die Datei speichern"),))
    [out] = translate("Save the file", memory=memory, instructions=("at most 9 characters",))
    assert len(out) <= 9 and out.startswith("D")


def test_tags_come_back_whole_and_in_order_whatever_the_limit():
    text = '<p>Open <b>the</b> <x id="1"/> file<br/> now</p>'
    tags = [m.group() for m in TOKEN.finditer(text)]
    for limit in range(len(text) + 2):
        cut = shorten(text, limit, XML)
        assert [m.group() for m in TOKEN.finditer(cut)] == tags
        assert len(cut) <= max(limit, len("".join(tags)))
