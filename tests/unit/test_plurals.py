"""Plural plans: representative numbers per form, the count placeholder, putting it back, falling back."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pipeline.plural_rules import PluralRule, plural_rule_for
from pipeline.run.plurals import (
    NUMBER_BASE,
    PLURAL,
    SINGULAR,
    assemble,
    count_placeholder,
    missing_fallbacks,
    plan_unit,
    representatives,
)


def chosen_numbers(
    lang: str, sources: tuple[str, ...] = ("%d file", "%d files"), flags: tuple[str, ...] = ("c-format",)
) -> list[int | None]:
    rule = plural_rule_for(lang)
    assert rule is not None
    return [f.number for f in plan_unit(sources, flags, rule.nplurals, rule).forms]


@pytest.mark.parametrize(
    ("lang", "numbers"),
    [
        ("ru", [1, 2, 5]),  # one (1, 21, ...), few, many
        ("uk", [1, 2, 5]),
        ("pl", [None, 2, 5]),  # Polish "one" is only 1: the singular source as it is
        ("cs", [None, 2, 5]),
        ("sl", [1, 2, 3, 5]),  # 101 is "one" too
        ("ga", [None, 2, 3, 7, 11]),
        ("cy", [0, None, 2, 3, 6, 4]),  # zero, one, two, few, many, other (babel >= 2.19)
        ("ar", [0, None, 2, 3, 11, 100]),  # few 3-10, many 11-99, other 100-102
    ],
)
def test_representative_numbers_follow_the_rule(lang: str, numbers: list[int] | list[int | None]) -> None:
    assert chosen_numbers(lang) == numbers
    rule = plural_rule_for(lang)
    for form, number in enumerate(numbers):
        if number is not None:
            assert rule is not None
            assert rule.form_for(number) == form


def test_every_form_of_common_rules_has_a_representative() -> None:
    for lang in ("ru", "pl", "cs", "sl", "ga", "cy", "ar", "lt", "ro", "mt", "br"):
        rule = plural_rule_for(lang)
        assert all(representatives(rule)), lang


@pytest.mark.parametrize("nplurals,expr", [(1, "0"), (2, "(n != 1)"), (2, "(n > 1)")])
def test_one_or_two_forms_use_the_sources_as_they_are(nplurals: int, expr: str) -> None:
    plan = plan_unit(("%d file", "%d files"), ["c-format"], nplurals, PluralRule(nplurals, expr))
    assert all(f.number is None for f in plan.forms) and len(plan.forms) == nplurals
    assert set(plan.texts.values()) <= {"%d file", "%d files"}


@pytest.mark.parametrize(
    ("text", "flags", "count"),
    [
        ("%d files", ["c-format"], "%d"),
        ("%(count)d files in %(folder)s", ["python-format"], "%(count)d"),
        ("{count} files", ["python-brace-format"], "{count}"),
        ("{n} files", [], "{n}"),
        ("%1$s: %2$d files", ["c-format"], "%2$d"),  # several: the one integer conversion
        ("Files", [], None),
        ("%s of %s", ["c-format"], None),
        ("%d of %d", ["c-format"], None),  # twice the same text: which one?
        ("{a} and {b}", ["python-brace-format"], None),
        ("100%% of %d", ["python-format"], "%d"),
    ],
)
def test_count_placeholder(text: str, flags: list[str], count: str | None) -> None:
    assert count_placeholder(text, flags) == count


def test_number_texts_and_their_cache_identity() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%(count)d file in %(dir)s", "%(count)d files in %(dir)s"), ["python-format"], 3, rule)
    assert plan.texts[NUMBER_BASE + 0] == "1 file in %(dir)s"
    assert plan.texts[NUMBER_BASE + 1] == "2 files in %(dir)s"
    assert plan.texts[NUMBER_BASE + 2] == "5 files in %(dir)s"
    assert set(plan.texts) == {NUMBER_BASE + 0, NUMBER_BASE + 1, NUMBER_BASE + 2}  # fallbacks are not sent up front
    assert plan.fallbacks == {SINGULAR: "%(count)d file in %(dir)s", PLURAL: "%(count)d files in %(dir)s"}
    texts = [*plan.texts.values(), *plan.fallbacks.values()]
    assert len(set(texts)) == len(texts)  # each its own text, so its own cache key


def test_the_singular_used_as_a_form_is_sent_up_front_and_only_the_plural_waits() -> None:
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, plural_rule_for("pl"))
    assert plan.texts == {SINGULAR: "%d file", NUMBER_BASE + 1: "2 files", NUMBER_BASE + 2: "5 files"}
    assert plan.fallbacks == {PLURAL: "%d files"}


def test_fallbacks_are_missing_only_for_forms_whose_number_did_not_come_back() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, rule)
    exact = {2: "1 файл", 3: "2 файла", 4: "5 файлов"}
    assert missing_fallbacks(plan, translations(exact), ["c-format"]) == ()
    assert missing_fallbacks(plan, translations({**exact, 3: "два файла"}), ["c-format"]) == (PLURAL,)
    one_spelled_out = {**exact, 2: "один файл"}
    assert missing_fallbacks(plan, translations(one_spelled_out), ["c-format"]) == (SINGULAR,)
    assert missing_fallbacks(plan, translations({**one_spelled_out, 0: "%d файл"}), ["c-format"]) == ()  # cached
    # A number sentence with no translation at all: the unit is not written this run, no fallback is paid for.
    assert missing_fallbacks(plan, translations({2: "один файл", 3: "2 файла"}), ["c-format"]) == ()


def test_a_number_already_in_the_source_is_not_used() -> None:
    assert chosen_numbers("ru", ("%d of 5 files", "%d of 5 files")) == [1, 2, 6]


def test_a_singular_without_the_count_is_represented_by_21_for_russian() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("One file", "%d files"), ["c-format"], 3, rule)
    # Form 0 also covers 21, 31...: msgfmt needs %d there, which "One file" lacks, so it falls back to the plural.
    assert plan.texts[NUMBER_BASE] == "21 files" and plan.forms[0].fallback == PLURAL


def test_a_form_of_one_covering_many_numbers_is_translated_from_the_plural_when_the_singular_lacks_arguments() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("One file in %(dir)s", "%(count)d files in %(dir)s"), ["python-format"], 3, rule)
    assert [f.fallback for f in plan.forms] == [PLURAL, PLURAL, PLURAL]
    # Where the singular carries every argument, the form of one falls back to it.
    plan = plan_unit(("%(count)d file in %(dir)s", "%(count)d files in %(dir)s"), ["python-format"], 3, rule)
    assert plan.forms[0].fallback == SINGULAR


def test_no_count_placeholder_falls_back_and_says_so() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("File", "Files"), [], 3, rule)
    assert [f.segment for f in plan.forms] == [SINGULAR, PLURAL, PLURAL]
    assert "no single count placeholder" in (plan.approximate or "")


def translations(mapping: dict[int, str]) -> Callable[[int], str | None]:
    return lambda form: mapping.get(form)


def test_assemble_puts_the_count_back() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, rule)
    got = assemble(
        plan, translations({0: "%d файл*", 1: "%d файлов*", 2: "1 файл", 3: "2 файла", 4: "5 файлов"}), ["c-format"]
    )
    assert got.texts == ("%d файл", "%d файла", "%d файлов") and got.warnings == ()


def test_a_number_that_does_not_come_back_once_falls_back_with_a_warning() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, rule)
    got = assemble(
        plan,
        translations({0: "%d файл*", 1: "%d файлов*", 2: "один файл", 3: "2 файла 2", 4: "5 файлов"}),
        ["c-format"],
    )
    assert got.texts == ("%d файл*", "%d файлов*", "%d файлов")
    assert len(got.warnings) == 1 and "msgstr[0], msgstr[1]" in got.warnings[0]


def test_the_count_must_not_change_places_with_unnamed_placeholders() -> None:
    rule = plural_rule_for("pl")
    plan = plan_unit(("%d file in %s", "%d files in %s"), ["c-format"], 3, rule)
    got = assemble(
        plan,
        translations({0: "%d plik w %s", 1: "%d plików w %s", 3: "w %s są 2 pliki", 4: "5 plików w %s"}),
        ["c-format"],
    )
    assert got.texts == ("%d plik w %s", "%d plików w %s", "%d plików w %s") and got.warnings


def test_a_missing_translation_means_no_forms() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, rule)
    assert assemble(plan, translations({2: "1 файл"})).texts is None


def test_numbers_inside_other_numbers_do_not_count() -> None:
    rule = plural_rule_for("ru")
    plan = plan_unit(("%d file", "%d files"), ["c-format"], 3, rule)
    got = assemble(plan, translations({0: "s", 1: "p", 2: "1 файл", 3: "2 файла", 4: "5 файлов из 15 или 2,5"}))
    assert got.texts is not None and got.texts[2] == "%d файлов из 15 или 2,5"
