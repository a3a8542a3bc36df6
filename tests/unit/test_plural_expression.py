"""Plural expressions from catalog headers: parsed and evaluated as gettext does it, never with eval."""

from __future__ import annotations

import gettext

import pytest
from babel import Locale, localedata
from babel.messages.plurals import get_plural

from pipeline.plural_rules import PluralExpressionError, check, compile_expression


def test_every_cldr_rule_passes_the_check_and_agrees_with_gettext() -> None:
    for name in localedata.locale_identifiers():
        rule = get_plural(Locale.parse(name))
        ours, theirs = check(rule.num_plurals, rule.plural_expr), gettext.c2py(rule.plural_expr)
        assert [ours(n) for n in range(300)] == [theirs(n) for n in range(300)], name


def test_arithmetic_is_unsigned_long_as_in_gettext() -> None:
    assert compile_expression("n-1")(0) == 2**64 - 1
    assert compile_expression("n*2")(2**63) == 0
    assert compile_expression("!n")(0) == 1 and compile_expression("!n")(3) == 0
    assert compile_expression("n/3 + n%3")(10) == 4


@pytest.mark.parametrize(
    ("nplurals", "expression", "reason"),
    [
        (2, "n/0", "divides by zero for n=0"),
        (2, "n%(n-1)", "divides by zero for n=1"),
        (0, "0", "nplurals=0"),
        (7, "n%7", "nplurals=7"),
        (100000, "n", "nplurals=100000"),
        (2, "n+5", "can pick form 1005"),
        (2, "__import__('os').system('id')", "unexpected character '_'"),
        (2, "n ? 1", "ends too early"),
        (2, "(n", "ends too early"),
        (2, "n 1", "unexpected '1'"),
        (2, "(" * 60 + "n" + ")" * 60, "nested too deeply"),
        (2, "n+" * 200 + "1", "more than 300 tokens"),
        (2, "n" * 1001, "longer than 1000"),
    ],
)
def test_a_bad_rule_is_refused_with_the_reason(nplurals: int, expression: str, reason: str) -> None:
    with pytest.raises(PluralExpressionError, match=reason.replace("(", r"\(")):
        check(nplurals, expression)
