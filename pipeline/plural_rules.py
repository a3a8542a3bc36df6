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

import functools
import re
from collections.abc import Callable
from itertools import compress
from operator import add, eq, floordiv, ge, gt, le, lt, mod, mul, ne, not_, sub
from typing import Any, NamedTuple

from pipeline.locales import cldr

__all__ = [
    "WHOLE_NUMBER_FORMS",
    "PluralExpressionError",
    "PluralRule",
    "check",
    "compile_expression",
    "plural_rule_for",
]


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
    forms used often, the representative numbers): one evaluation each is enough, and it is made for all of
    them at once (:func:`_values`).
    """
    tree = _parse(expression)
    try:
        return tuple(_values(tree, list(_CHECKED)))
    except PluralExpressionError:
        return None


@functools.lru_cache(maxsize=256)
def plural_rule_for(language: str) -> PluralRule | None:
    """The CLDR plural rule of ``language`` as gettext expresses it, from babel's data (read once per language)."""
    found = cldr().plural(language.replace("-", "_").split("@")[0])
    return None if found is None else PluralRule(*found)


#: The languages whose whole numbers (0 to 1000) take more than two of CLDR's plural forms, with those forms:
#: a header that gives one of them two forms (``nplurals=2; plural=(n != 1);``, what a template or a tool
#: that knows no rule for it leaves) merges forms its speakers tell apart. Written out rather than asked of
#: babel, which a catalog with its own rule never loads; a unit test holds it to babel's data.
WHOLE_NUMBER_FORMS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("ar", "cy", "kw"), ("zero", "one", "two", "few", "many", "other")),
    **dict.fromkeys(("ga", "mt"), ("one", "two", "few", "many", "other")),
    **dict.fromkeys(("br", "dsb", "gd", "gv", "hsb", "sgs", "sl"), ("one", "two", "few", "other")),
    **dict.fromkeys(("be", "pl", "ru", "uk"), ("one", "few", "many")),
    **dict.fromkeys(("bs", "cs", "hr", "lt", "ro", "shi", "sk", "sr"), ("one", "few", "other")),
    **dict.fromkeys(("blo", "cv", "ksh", "lag", "lv", "prg"), ("zero", "one", "other")),
    **dict.fromkeys(("he", "iu", "naq", "sat", "se", "sma", "smj", "smn", "sms"), ("one", "two", "other")),
}

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
#: A parsed expression: ``("n",)``, ``("number", value)``, ``("!", operand)``, ``("?", condition, yes, no)``,
#: or ``(operator, left, right)`` for each binary operator of :data:`_LEVELS`.
Node = tuple[Any, ...]


class PluralExpressionError(ValueError):
    """A plural expression is malformed, or cannot be evaluated for some number (division by zero)."""


def compile_expression(expression: str) -> Evaluator:
    """A function computing ``expression`` for a count, as gettext would; raises PluralExpressionError."""
    evaluate = _evaluator(_parse(expression))
    return lambda n: evaluate(n & _ULONG)


def check(nplurals: int, expression: str) -> Evaluator:
    """The compiled rule, after checking it as ``msgfmt --check`` does; raises PluralExpressionError."""
    if not 1 <= nplurals <= MAX_FORMS:
        raise PluralExpressionError(f"nplurals={nplurals}: a language has 1 to {MAX_FORMS} plural forms")
    evaluate = _compiled(expression)  # every catalog of a language declares the same rule: parsed once
    forms = _forms(expression)
    largest = max(forms) if forms is not None else max(map(evaluate, _CHECKED))  # the latter raises
    if largest >= nplurals:
        raise PluralExpressionError(f"nplurals={nplurals} but the plural expression can pick form {largest}")
    return evaluate


def _parse(expression: str) -> Node:
    if len(expression) > MAX_LENGTH:
        raise PluralExpressionError(f"plural expression is longer than {MAX_LENGTH} characters")
    parser = _Parser(_tokens(expression))
    tree = parser.ternary(0)
    if parser.peek() is not None:
        raise PluralExpressionError(f"unexpected {parser.peek()!r} in the plural expression")
    return tree


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


#: The comparisons (true is 1) and the arithmetic (taken modulo 2**64, as ``unsigned long``) of the rules.
_COMPARE: dict[str, Callable[[int, int], bool]] = {"==": eq, "!=": ne, "<": lt, ">": gt, "<=": le, ">=": ge}
_ARITHMETIC: dict[str, Callable[[int, int], int]] = {"+": add, "-": sub, "*": mul}


def _evaluator(node: Node) -> Evaluator:
    """``node`` as a function of one count: the right operand of ``/`` and ``%`` first, ``&&``, ``||`` and
    ``?:`` short-circuited, as gettext evaluates them."""
    op = node[0]
    if op == "n":
        return lambda n: n
    if op == "number":
        value = node[1]
        return lambda n: value
    if op == "!":
        operand = _evaluator(node[1])
        return lambda n: int(not operand(n))
    if op == "?":
        condition, yes, no = map(_evaluator, node[1:])
        return lambda n: yes(n) if condition(n) else no(n)
    left, right = _evaluator(node[1]), _evaluator(node[2])
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
    if op in _ARITHMETIC:
        arithmetic = _ARITHMETIC[op]
        return lambda n: arithmetic(left(n), right(n)) & _ULONG
    compare = _COMPARE[op]
    return lambda n: int(compare(left(n), right(n)))


def _values(node: Node, ns: list[int]) -> list[int]:
    """``node`` for each count of ``ns`` at once: what :func:`_evaluator`'s function gives for each, one list
    operation per node instead of a call per node and count (half the time of checking a rule of 40 nodes,
    3 ms that way). An operand is evaluated only for the counts the scalar evaluation reaches it with,
    so a division by zero raises exactly where the scalar one does."""
    op = node[0]
    if op == "n":
        return ns
    if op == "number":
        return [node[1]] * len(ns)
    if op == "!":
        return [int(not v) for v in _values(node[1], ns)]
    if op == "?":
        conditions = _values(node[1], ns)
        yes = iter(_values(node[2], list(compress(ns, conditions))))
        no = iter(_values(node[3], list(compress(ns, map(not_, conditions)))))
        return [next(yes) if c else next(no) for c in conditions]
    left = _values(node[1], ns)
    if op == "&&":  # the right operand where the left one is true
        taken = iter(_values(node[2], list(compress(ns, left))))
        return [int(bool(next(taken))) if v else 0 for v in left]
    if op == "||":  # the right operand where the left one is false
        taken = iter(_values(node[2], list(compress(ns, map(not_, left)))))
        return [1 if v else int(bool(next(taken))) for v in left]
    right = _values(node[2], ns)
    if op in ("/", "%"):
        if 0 in right:
            raise PluralExpressionError(f"the plural expression divides by zero for n={ns[right.index(0)]}")
        return list(map(floordiv if op == "/" else mod, left, right))
    if op in ("+", "-", "*"):
        return [v & _ULONG for v in map(_ARITHMETIC[op], left, right)]
    return list(map(int, map(_COMPARE[op], left, right)))


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

    def ternary(self, depth: int) -> Node:
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
        return ("?", condition, yes, no)

    def binary(self, level: int, depth: int) -> Node:
        if level == len(_LEVELS):
            return self.unary(depth)
        left = self.binary(level + 1, depth)
        while self.peek() in _LEVELS[level]:
            op = self.take()
            left = (op, left, self.binary(level + 1, depth))
        return left

    def unary(self, depth: int) -> Node:
        token = self.take()
        if token == "!":
            if depth > _MAX_DEPTH:
                raise PluralExpressionError("the plural expression is nested too deeply")
            return ("!", self.unary(depth + 1))
        if token == "(":
            inner = self.ternary(depth + 1)
            if self.take() != ")":
                raise PluralExpressionError("unbalanced parentheses in the plural expression")
            return inner
        if token == "n":
            return ("n",)
        if token.isdigit():
            return ("number", int(token) & _ULONG)
        raise PluralExpressionError(f"unexpected {token!r} in the plural expression")
