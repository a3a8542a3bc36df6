"""Regular expressions compiled at their first use: the package's one way to defer a compile.

A module compiles its patterns when it is imported, 20 to 900 µs each. Most of them serve kinds
of text a run may never meet (ICU messages, HTML, usage synopses, strftime, style rules, a
glossary's entries): a run that adds one plain string to a catalog used 24 of the 116 patterns its
modules compiled at import. Such a pattern is written ``_NAME = lazy_regex(r"...")`` and used as
``_NAME().match(text)``; the first call compiles it, and every later call returns the same pattern.

A pattern every run uses (the PO reader's, the protection's scan, a locale code's) stays a plain
``re.compile`` at import: deferring it would save nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import AnyStr

__all__ = ["lazy_regex"]


def lazy_regex(pattern: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    """A function returning ``re.compile(pattern, flags)``, compiled by its first call and kept."""
    # A closure: made in 0.3 us, where functools.cache over a partial takes 3 us (its update_wrapper),
    # for a call 10 ns slower. Two threads calling it first may both compile; either result serves.
    kept: list[re.Pattern[AnyStr]] = []

    def compiled() -> re.Pattern[AnyStr]:
        if not kept:
            kept.append(re.compile(pattern, flags))
        return kept[0]

    return compiled
