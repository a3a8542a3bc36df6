"""A rule's forms for 0..1000 are looked up in a table worked out once: it must answer as evaluating the rule does."""

from __future__ import annotations

import pytest
from babel import Locale, localedata
from babel.messages.plurals import get_plural
from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.plural_rules import PluralExpressionError, PluralRule, _forms, compile_expression, plural_rule_for

_ALL = (get_plural(Locale.parse(name)) for name in localedata.locale_identifiers())
CLDR = sorted({(rule.num_plurals, rule.plural_expr) for rule in _ALL})
#: Rules with arithmetic the CLDR ones lack: a constant, subtraction below zero, division, comparisons of sums.
MADE_UP = [(3, "n-1 > 5 ? 2 : n*3 % 7 == 1"), (2, "n/3 + n%3 != 4"), (4, "(n+2)/4 % 4"), (2, "!n || n >= 1000")]
RULES = st.sampled_from([PluralRule(n, e) for n, e in CLDR + MADE_UP if n > 1])
NUMBERS = st.one_of(st.integers(0, 1002), st.integers(0, 2**70))


@given(RULES, NUMBERS)
def test_the_table_answers_as_the_rule_evaluated(rule: PluralRule, n: int) -> None:
    assert rule.form_for(n) == compile_expression(rule.expression)(n)


def test_every_number_of_the_table_of_every_cldr_rule_agrees() -> None:
    for nplurals, expression in CLDR:
        rule, evaluate = PluralRule(nplurals, expression), compile_expression(expression)
        if nplurals > 1:
            assert [rule.form_for(n) for n in range(1003)] == [evaluate(n) for n in range(1003)], expression


def test_a_rule_dividing_by_zero_for_some_number_still_answers_the_others() -> None:
    rule = PluralRule(2, "n/(n-7) > 1")
    assert [rule.form_for(n) for n in (0, 6, 8, 20)] == [0, 0, 1, 0]
    with pytest.raises(PluralExpressionError, match="divides by zero for n=7"):
        rule.form_for(7)


def test_a_language_reads_its_rule_once_and_the_same_each_time() -> None:
    assert plural_rule_for("pl") is plural_rule_for("pl")
    assert plural_rule_for("pl") == PluralRule(get_plural(Locale.parse("pl")).num_plurals, get_plural("pl").plural_expr)


def _expressions() -> st.SearchStrategy[str]:
    """Expressions of gettext's whole grammar: constants (0 among them, to divide by), ``n``, every operator."""
    leaves = st.one_of(st.just("n"), st.integers(0, 12).map(str))
    binary = ["||", "&&", "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%"]

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(binary), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
            inner.map(lambda e: f"!{e}"),
        )

    return st.recursive(leaves, extend, max_leaves=12)


@given(_expressions())
@example("n && 5 / n")  # each operand guards a division its value makes safe
@example("n == 0 || 5 % n")
@example("n ? 7 / n : 1")
@example("n > 3 ? 1 : 4 / (n - 3)")
@example("n / (n - 500) || n % (n - 1)")  # divides by zero for some numbers: no table
def test_the_table_is_worked_out_as_the_rule_evaluated_number_by_number(expression: str) -> None:
    """The table is computed for all numbers at once, with ``&&``, ``||`` and ``?:`` short-circuited: it holds
    what evaluating each number gives, and is missing exactly when evaluating some number divides by zero."""
    evaluate = compile_expression(expression)
    try:
        expected: tuple[int, ...] | None = tuple(evaluate(n) for n in range(1001))
    except PluralExpressionError:
        expected = None
    assert _forms(expression) == expected
