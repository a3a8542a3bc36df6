"""Rules about a translation's characters rather than its placeholders: the newlines msgfmt checks,
other edge whitespace, control, bidi and invisible characters, and the unit's length limit."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from pipeline.limits import limit_of
from pipeline.model import Severity
from pipeline.placeholders.problems import Problem, Rule, warning
from pipeline.placeholders.protect import split_edges

__all__ = ["INVISIBLE", "character_problems", "edge_problems", "length_problems", "newline_problems"]


def length_problems(target: str, flags: Sequence[str]) -> list[Problem]:
    """A translation over the length limit its flags set: a warning (a reviewer shortens it, or the UI breaks)."""
    limit = limit_of(tuple(flags))  # kept per distinct flags: most have no "max-" flag, and no limit
    reason = limit.problem(target) if limit is not None else None
    return [warning(f"the translation has {reason}", Rule.LENGTH)] if reason else []


def newline_problems(source: str, target: str) -> list[Problem]:
    """msgfmt's rule: a translation begins and ends with a newline exactly when its source does."""
    problems = []
    if source.startswith("\n") != target.startswith("\n"):
        problems.append(
            Problem("the translation and its source do not both begin with a newline", rule=Rule.WHITESPACE)
        )
    if source.endswith("\n") != target.endswith("\n"):
        problems.append(Problem("the translation and its source do not both end with a newline", rule=Rule.WHITESPACE))
    return problems


def edge_problems(source: str, target: str) -> list[Problem]:
    """Other edge whitespace: a style matter (the newlines are msgfmt's, above)."""
    src_lead, src_core, src_trail = split_edges(source)
    tgt_lead, tgt_core, tgt_trail = split_edges(target)
    if not src_core or not tgt_core:
        if src_core or not tgt_core:
            return []
        return [warning("the source is only whitespace, the translation is not", Rule.WHITESPACE)]
    problems = []
    if src_lead != tgt_lead:
        problems.append(
            warning(f"leading whitespace {tgt_lead!r} differs from the source's {src_lead!r}", Rule.WHITESPACE)
        )
    if src_trail != tgt_trail:
        problems.append(
            warning(f"trailing whitespace {tgt_trail!r} differs from the source's {src_trail!r}", Rule.WHITESPACE)
        )
    return problems


# A bidi override can make a string display as something else (Trojan Source): an error unless the
# source has it. Other C0/C1 controls a translator may add on purpose (en@boldquot's terminal escapes):
# a warning, which a machine translation may not have (the gate refuses it there).
_OVERRIDE = re.compile("[\u202d\u202e]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Characters a reader cannot see: bidi controls that can hide what a string says (Trojan Source),
#: zero-width spaces and joiners' lookalikes, a byte-order mark. A human translator of a right-to-left
#: language uses some on purpose (a warning); an engine that adds them damaged the text.
INVISIBLE = re.compile("[\u200b\u2060\ufeff\u180e\u202a-\u202e\u2066-\u2069]")
_KINDS = ((_OVERRIDE, Severity.ERROR), (_CONTROL, Severity.WARNING), (INVISIBLE, Severity.WARNING))
#: A character of any of the three (an alternation of character sets: compiled as one set).
_ANY = re.compile("|".join(pattern.pattern for pattern, _ in _KINDS))


def character_problems(source: str, target: str) -> list[Problem]:
    """Control, bidi and invisible characters the source does not have."""
    problems: list[Problem] = []
    if _ANY.search(target) is None:  # the usual translation: none of the three kinds, in one pass
        return problems
    for pattern, severity in _KINDS:
        if pattern.search(target) is None:  # the usual case: nothing in the translation to look for in the source
            continue
        allowed = set(pattern.findall(source))
        for ch in sorted({ch for ch in pattern.findall(target) if ch not in allowed}):
            name = unicodedata.name(ch, "control")
            problems.append(Problem(f"character U+{ord(ch):04X} ({name}) not in the source", severity, Rule.CONTROL))
    return problems
