"""The configured style rules the pseudo engine applies (``service/style_apply``), one test per rule."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.pseudo import PseudoEngine, transliterate
from pipeline.service.engine.style_apply import applied, apply

NNBSP = "\u202f"


def styled(text: str, category: str, rule: str, option: str, target: str = "DE") -> str:
    [out] = apply([text], [(category, rule, option)], target)
    return out


@pytest.mark.parametrize(
    ("option", "target", "text", "expected"),
    [
        ("use_double_curly_quotation_marks", "EN-US", 'a "b" c', "a \u201cb\u201d c"),
        ("use_curly_quotation_marks", "DE", 'a "b" c', "a \u201eb\u201c c"),
        ("use_guillemets", "FR", 'a "b" c', f"a \u00ab{NNBSP}b{NNBSP}\u00bb c"),
        ("use_guillemets", "DE", "a \u201eb\u201c c", "a \u00bbb\u00ab c"),
        ("use_guillemets", "IT", 'a "b" c', "a \u00abb\u00bb c"),
        ("use_straight_quotation_marks", "FR", "a \u00ab b \u00bb et \u201cc\u201d", 'a "b" et "c"'),
        ("use_double_straight_quotation_marks", "EN", "a \u201cb\u201d", 'a "b"'),
        # Quotes that do not pair up are left alone.
        ("use_guillemets", "FR", 'a " b', 'a " b'),
        ("use_guillemets", "FR", 'a " b " c', 'a " b " c'),
    ],
)
def test_quotation_mark(option: str, target: str, text: str, expected: str) -> None:
    assert styled(text, "punctuation", "quotation_mark", option, target) == expected


def test_apostrophe_both_ways_after_letters_only() -> None:
    assert (
        styled("don't, dogs' 5' 'x", "punctuation", "apostrophe", "use_curly_apostrophes")
        == "don\u2019t, dogs\u2019 5' 'x"
    )
    assert styled("don\u2019t", "punctuation", "apostrophe", "use_straight_apostrophes") == "don't"


def test_quotation_mark_and_apostrophe_sets_both() -> None:
    text = 'He said "don\'t"'
    rule = ("punctuation", "quotation_mark_and_apostrophe")
    assert styled(text, *rule, "use_guillemets_and_curly_apostrophes", "ES") == "He said \u00abdon\u2019t\u00bb"
    curly = "He said \u201cdon\u2019t\u201d"
    assert styled(curly, *rule, "use_straight_quotation_marks_and_apostrophes", "EN") == text


def test_ellipsis() -> None:
    assert styled("Wait... what....", "punctuation", "ellipsis", "use_ellipsis_character") == "Wait\u2026 what...."
    assert styled("Wait\u2026 no", "punctuation", "ellipsis", "use_three_periods") == "Wait... no"
    assert styled("Wait\u2026 no...", "punctuation", "ellipsis", "use_three_spaced_periods") == "Wait. . . no. . ."


def test_spacing_before_high_punctuation() -> None:
    rule = ("punctuation", "spacing_and_punctuation")
    text = "Quoi\u00a0? Oui! Note: 10:30 http://x.fr a?b"
    assert styled(text, *rule, "use_regular_space", "FR") == "Quoi ? Oui ! Note : 10:30 http://x.fr a?b"
    assert styled("Quoi ? Oui !", *rule, "do_not_use_space", "FR") == "Quoi? Oui!"


def test_sentence_break_dash_leaves_hyphens_and_ranges_alone() -> None:
    rule = ("punctuation", "sentence_break_indicator")
    text = "yes - no, well-known, 5 - 3, a\u2014b, x \u2013 y"
    expected = "yes \u2014 no, well-known, 5 - 3, a \u2014 b, x \u2014 y"
    assert styled(text, *rule, "use_em_dash_with_space_on_either_side") == expected
    assert styled("yes - no", *rule, "use_em_dash_without_space_on_either_side") == "yes\u2014no"
    assert styled("yes\u2014no", *rule, "use_en_dash_with_space_on_either_side") == "yes \u2013 no"


def test_periods_in_academic_degrees() -> None:
    rule = ("punctuation", "periods_in_academic_degrees")
    text = "Ann has a Ph.D. in law. Bo has an M.A. She has a Ph.D. and an M.Sc."
    assert styled(text, *rule, "do_not_use") == "Ann has a PhD in law. Bo has an MA. She has a PhD and an MSc."
    # "use" adds periods only where the plain form is not also a word or code (MA, BA, MD).
    assert styled("A PhD, an MSc. MA and MD", *rule, "use") == "A Ph.D., an M.Sc. MA and MD"


def test_calendar_era() -> None:
    rule = ("dates_and_times", "calendar_era")
    assert styled("In 500 BCE and 300 CE, not CE marks", *rule, "use_bc_and_ad") == "In 500 BC and 300 AD, not CE marks"
    assert styled("In 500 BC, AD 400 and 300 AD", *rule, "use_bce_and_ce") == "In 500 BCE, 400 CE and 300 CE"
    # A no-break space between era and year is kept (it used to raise: the code looked for " ").
    assert styled("AD\u00a0500", *rule, "use_bce_and_ce") == "500\u00a0CE"


def test_unknown_rules_and_options_are_stored_only() -> None:
    rules = [("numbers", "decimal_separator", "use_comma_as_decimal_separator"), ("punctuation", "apostrophe", "x")]
    assert apply(["1.5 it's"], rules, "DE") == ["1.5 it's"]
    assert applied([*rules, ("punctuation", "ellipsis", "use_three_periods")]) == (
        ("punctuation", "ellipsis", "use_three_periods"),
    )


def test_runs_keep_their_number_and_quotes_pair_across_them() -> None:
    rules = [("punctuation", "quotation_mark", "use_guillemets")]
    assert apply(['"a ', "b", ' c"'], rules, "DE") == ["\u00bba ", "b", " c\u00ab"]
    assert apply([], rules, "DE") == []


def test_engine_applies_rules_to_text_not_to_markup_or_ignored_content() -> None:
    rules = (
        ("punctuation", "quotation_mark", "use_guillemets"),
        ("punctuation", "apostrophe", "use_curly_apostrophes"),
    )
    text = '<p title="it\'s">"it\'s"</p><keep>"don\'t"</keep>'
    request = EngineRequest(
        texts=(text,),
        source_lang="EN",
        target_lang="FR",
        style_rules=rules,
        markup=MarkupOptions("xml", frozenset({"keep"})),
    )
    [out] = asyncio.run(PseudoEngine().translate(request))
    its = transliterate("it's", "FR").replace("'", "\u2019")
    assert out.text == f'<p title="it\'s">\u00ab{NNBSP}{its}{NNBSP}\u00bb</p><keep>"don\'t"</keep>'


def test_engine_leaves_memory_matches_and_same_language_texts_alone() -> None:
    rules = (("punctuation", "apostrophe", "use_curly_apostrophes"),)
    request = EngineRequest(texts=("it's",), source_lang="DE", target_lang="DE", style_rules=rules)
    assert asyncio.run(PseudoEngine().translate(request))[0].text == "it's"
