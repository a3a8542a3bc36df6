"""Plural rules as gettext writes them (``nplurals=3; plural=...``): format-neutral, so XLIFF runs need no polib.

A catalog declares its rule (PO: the ``Plural-Forms`` header); otherwise the CLDR rule of its
language comes from babel's data (:func:`plural_rule_for`).

A rule's expression (``plural=n%10==1 && n%100!=11 ? 0 : 1``) is parsed and evaluated without eval.
It comes from a catalog's header, that is from whoever wrote the file, so it is
parsed by a small recursive-descent parser for exactly gettext's grammar (``plural.y``: the
ternary, ``|| && == != < > <= >= + - * / %``, ``!``, parentheses, decimal numbers and ``n``) and
evaluated as gettext does it, in ``unsigned long`` arithmetic. Python's :func:`gettext.c2py`
builds Python source and evaluates it, and raises ``ZeroDivisionError`` from the middle of a run.

:func:`check` does what ``msgfmt --check`` does with a header's rule: it evaluates the rule for
``n`` from 0 to 1000 and refuses one that divides by zero or picks a form the catalog does not
have. Forms are bounded by :data:`MAX_FORMS`, the most any language has in CLDR (and gettext).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

from pipeline.locales import cldr

__all__ = ["PluralExpressionError", "PluralRule", "check", "compile_expression", "plural_rule_for"]


class PluralRule(NamedTuple):
    """A catalog's plural rule: how many forms, and which number picks which form."""

    nplurals: int
    expression: str

    def form_for(self, n: int) -> int:
        """The msgstr index the rule picks for the number ``n``."""
        if self.nplurals <= 1:
            return 0
        if 0 <= n <= _TABLED:
            forms = _forms(self.expression)
            if forms is not None:
                return forms[n]
        return _compiled(self.expression)(n)

    def source_forms(self) -> tuple[int, ...]:
        """For each target form, 0 to fill it from the singular source, 1 from the plural source."""
        singular = self.form_for(1)
        return tuple(0 if i == singular and self.nplurals > 1 else 1 for i in range(self.nplurals))


@functools.lru_cache(maxsize=64)
def _compiled(expression: str) -> Callable[[int], int]:
    """A plural expression compiled once (never eval'd): a run asks the same few rules thousands of times."""
    return compile_expression(expression)


@functools.lru_cache(maxsize=64)
def _forms(expression: str) -> tuple[int, ...] | None:
    """The form ``expression`` picks for each n in 0..1000, worked out once per rule; None when one divides by zero.

    A run asks a rule for every number of that range several times over (the checks of msgfmt, the
    forms used often, the representative numbers): one evaluation each is enough.
    """
    evaluate = _compiled(expression)
    try:
        return tuple(map(evaluate, _CHECKED))
    except PluralExpressionError:
        return None


@functools.lru_cache(maxsize=256)
def plural_rule_for(language: str) -> PluralRule | None:
    """The CLDR plural rule of ``language`` as gettext expresses it, from babel's data (read once per language)."""
    found = cldr().plural(language.replace("-", "_").split("@")[0])
    return None if found is None else PluralRule(*found)


MAX_FORMS = 6  # Arabic; no language in CLDR has more
MAX_LENGTH = 1000  # characters: real rules are under 200
# Real rules have under 60 tokens and nest ternaries 5 deep; the bounds keep both the parser's and
# the evaluator's recursion far from Python's limit whatever the header says.
_MAX_TOKENS = 300
_MAX_DEPTH = 50
_CHECKED = range(0, 1001)  # the numbers msgfmt --check evaluates a rule for
_TABLED = _CHECKED[-1]  # form_for looks these up in _forms
_ULONG = (1 << 64) - 1

_TOKEN = re.compile(r"""(?x)
    \s*(?:
      (?P<number>\d+)                  # a decimal constant
    | (?P<n>n\b)                       # the count
    | (?P<op>\|\||&&|==|!=|<=|>=|[<>+\-*/%!?:()])  # operators, longest first
    )""")

Evaluator = Callable[[int], int]


class PluralExpressionError(ValueError):
    """A plural expression is malformed, or cannot be evaluated for some number (division by zero)."""


def compile_expression(expression: str) -> Evaluator:
    """A function computing ``expression`` for a count, as gettext would; raises PluralExpressionError."""
    if len(expression) > MAX_LENGTH:
        raise PluralExpressionError(f"plural expression is longer than {MAX_LENGTH} characters")
    parser = _Parser(_tokens(expression))
    tree = parser.ternary(0)
    if parser.peek() is not None:
        raise PluralExpressionError(f"unexpected {parser.peek()!r} in the plural expression")
    return lambda n: tree(n & _ULONG)


def check(nplurals: int, expression: str) -> Evaluator:
    """The compiled rule, after checking it as ``msgfmt --check`` does; raises PluralExpressionError."""
    if not 1 <= nplurals <= MAX_FORMS:
        raise PluralExpressionError(f"nplurals={nplurals}: a language has 1 to {MAX_FORMS} plural forms")
    evaluate = compile_expression(expression)
    forms = _forms(expression)
    largest = max(forms) if forms is not None else max(map(evaluate, _CHECKED))  # the latter raises
    if largest >= nplurals:
        raise PluralExpressionError(f"nplurals={nplurals} but the plural expression can pick form {largest}")
    return evaluate


def _tokens(expression: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    rest = expression.rstrip()
    while pos < len(rest):
        match = _TOKEN.match(rest, pos)
        if match is None:
            raise PluralExpressionError(f"unexpected character {rest[pos:].lstrip()[:1]!r} in the plural expression")
        tokens.append(match.group(match.lastgroup or ""))
        if len(tokens) > _MAX_TOKENS:
            raise PluralExpressionError(f"the plural expression has more than {_MAX_TOKENS} tokens")
        pos = match.end()
    return tokens


def _number(text: str) -> Evaluator:
    value = int(text) & _ULONG
    return lambda n: value


def _binary(op: str, left: Evaluator, right: Evaluator) -> Evaluator:
    if op in ("/", "%"):

        def divide(n: int) -> int:
            divisor = right(n)
            if divisor == 0:
                raise PluralExpressionError(f"the plural expression divides by zero for n={n}")
            dividend = left(n)
            return dividend // divisor if op == "/" else dividend % divisor

        return divide
    if op == "||":
        return lambda n: int(bool(left(n)) or bool(right(n)))
    if op == "&&":
        return lambda n: int(bool(left(n)) and bool(right(n)))
    compute: Callable[[int, int], int] = {
        "==": lambda a, b: int(a == b),
        "!=": lambda a, b: int(a != b),
        "<": lambda a, b: int(a < b),
        ">": lambda a, b: int(a > b),
        "<=": lambda a, b: int(a <= b),
        ">=": lambda a, b: int(a >= b),
        "+": lambda a, b: (a + b) & _ULONG,
        "-": lambda a, b: (a - b) & _ULONG,
        "*": lambda a, b: (a * b) & _ULONG,
    }[op]
    return lambda n: compute(left(n), right(n))


# Binary operators by precedence, loosest first, as in gettext's plural.y.
_LEVELS = (("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%"))


class _Parser:
    """Recursive descent over the tokens; each method parses one precedence level."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise PluralExpressionError("the plural expression ends too early")
        self.pos += 1
        return token

    def ternary(self, depth: int) -> Evaluator:
        if depth > _MAX_DEPTH:
            raise PluralExpressionError("the plural expression is nested too deeply")
        condition = self.binary(0, depth)
        if self.peek() != "?":
            return condition
        self.take()
        yes = self.ternary(depth + 1)
        if self.take() != ":":
            raise PluralExpressionError("'?' without ':' in the plural expression")
        no = self.ternary(depth + 1)
        return lambda n: yes(n) if condition(n) else no(n)

    def binary(self, level: int, depth: int) -> Evaluator:
        if level == len(_LEVELS):
            return self.unary(depth)
        left = self.binary(level + 1, depth)
        while self.peek() in _LEVELS[level]:
            op = self.take()
            left = _binary(op, left, self.binary(level + 1, depth))
        return left

    def unary(self, depth: int) -> Evaluator:
        token = self.take()
        if token == "!":
            if depth > _MAX_DEPTH:
                raise PluralExpressionError("the plural expression is nested too deeply")
            operand = self.unary(depth + 1)
            return lambda n: int(not operand(n))
        if token == "(":
            inner = self.ternary(depth + 1)
            if self.take() != ")":
                raise PluralExpressionError("unbalanced parentheses in the plural expression")
            return inner
        if token == "n":
            return lambda n: n
        if token.isdigit():
            return _number(token)
        raise PluralExpressionError(f"unexpected {token!r} in the plural expression")
