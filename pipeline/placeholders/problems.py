"""What a rule finds wrong with a translation: a :class:`Problem`, with its severity and the :class:`Rule` it breaks."""

import enum
from typing import NamedTuple

from pipeline.model import Severity

__all__ = ["Problem", "Rule", "warning"]


class Rule(enum.Enum):
    """Which rule a problem breaks."""

    PLACEHOLDER = "placeholder"  # missing, extra, duplicated, reordered, unknown, foreign markup
    ARGUMENT = "argument"  # a format directive of the entry's flags, as msgfmt judges it
    MARKUP = "markup"  # HTML/XML balance and nesting, attributes
    ICU = "icu"  # ICU arguments and plural/select structure
    STRAY = "stray"  # a '%' or brace that starts no valid directive
    WHITESPACE = "whitespace"  # leading/trailing whitespace and newlines
    PLURAL = "plural"  # form count, empty forms, the Plural-Forms header
    CONTROL = "control"  # control, bidi and invisible characters the source does not have
    STORAGE = "storage"  # what the catalog cannot hold (charset, XML characters, inline markup)
    EMPTY = "empty"  # the service returned nothing
    LENGTH = "length"  # longer than the unit's length limit (max-length:N, XLIFF maxwidth, slr)


class Problem(NamedTuple):
    """One thing wrong with a translation, and the rule it breaks."""

    reason: str
    severity: Severity = Severity.ERROR
    rule: Rule = Rule.PLACEHOLDER


def warning(reason: str, rule: Rule) -> Problem:
    """A problem a reviewer looks at; the translation may be written."""
    return Problem(reason, Severity.WARNING, rule)
