"""Plural rules as gettext writes them (``nplurals=3; plural=...``): format-neutral, so XLIFF runs need no polib.

A catalog declares its rule (PO: the ``Plural-Forms`` header); otherwise the CLDR rule of its
language comes from babel's data (:func:`plural_rule_for`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.plural_expression import compile_expression

__all__ = ["PluralRule", "plural_rule_for"]


@dataclass(frozen=True, slots=True)
class PluralRule:
    """A catalog's plural rule: how many forms, and which number picks which form."""

    nplurals: int
    expression: str

    def form_for(self, n: int) -> int:
        """The msgstr index the rule picks for the number ``n``."""
        return _compiled(self.expression)(n) if self.nplurals > 1 else 0

    def source_forms(self) -> tuple[int, ...]:
        """For each target form, 0 to fill it from the singular source, 1 from the plural source."""
        singular = self.form_for(1)
        return tuple(0 if i == singular and self.nplurals > 1 else 1 for i in range(self.nplurals))


@functools.lru_cache(maxsize=64)
def _compiled(expression: str) -> Callable[[int], int]:
    """A plural expression compiled once (never eval'd): a run asks the same few rules thousands of times."""
    return compile_expression(expression)


def plural_rule_for(language: str) -> PluralRule | None:
    """The CLDR plural rule of ``language`` as gettext expresses it, from babel's data."""
    from babel import Locale, UnknownLocaleError
    from babel.messages.plurals import get_plural

    try:
        tup = get_plural(Locale.parse(language.replace("-", "_").split("@")[0]))
    except (UnknownLocaleError, ValueError):
        return None
    return PluralRule(tup.num_plurals, tup.plural_expr)
