"""Release checks on translated catalogs: plain functions, no service, no network.

What is checked, for every translated unit (fuzzy ones only on request):

- placeholders: the translation has the source's placeholders (found with the grammars of
  :mod:`pipeline.placeholders.protect`, chosen by the unit's format flags), no others, and printf arguments keep
  their types; a lone ``%`` (printf formats) or ``{`` / ``}`` (brace formats) is an error;
- markup: HTML/XML tags balanced and nested in the source stay so in the translation;
- plural forms: as many forms as the catalog's ``Plural-Forms`` says, none empty, and the header
  there at all when plural translations exist;
- edge whitespace: the same leading and trailing whitespace as the source.

Strictness follows ``msgfmt --check`` where msgfmt has a rule (every plural form is compared with
the plural source; a form the plural rule picks for fewer than 5 numbers in 0..1000 may leave out
arguments, as msgfmt allows for "one" forms) and is stricter elsewhere (brace fields and markup
compared exactly, all leading/trailing whitespace, not just ``\\n``). URL and e-mail differences are
warnings: translators legitimately point readers at localised pages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import CatalogError
from pipeline.formats import Unit, UnitState, read_catalog
from pipeline.model import Issue, Placeholder, Severity
from pipeline.placeholders.grammar import PRINTF_CONVERSION
from pipeline.placeholders.protect import PRINTF_KINDS, kinds_for, protect, split_edges, tags_balanced
from pipeline.plural_rules import PluralRule

#: msgfmt's rule: a plural form picked at least this often for n in 0..1000 must keep every argument.
OFTEN = 5
_BRACE = frozenset({"brace", "safe-brace"})
_SET_KINDS = PRINTF_KINDS | _BRACE  # an argument may be used more than once in a translation
_SKIP_TEXTS = frozenset({"%%", "{{", "}}"})
_WARN_KINDS = frozenset({"url", "email"})
_IGNORED_KINDS = frozenset({"control"})  # interior newlines and tabs may move in a translation
#: The printf grammars a format flag selects (not the safe one used without flags, where "100%" is fine).
_FLAGGED_PRINTF = frozenset({"python-printf", "c-printf"})

# What an argument must be on both sides; e.g. %d and %i read the same int, %s and %d do not.
_CLASSES = {**dict.fromkeys("di", "int"), **dict.fromkeys("ouxX", "unsigned"),
            **dict.fromkeys("eEfFgGaA", "float"), **dict.fromkeys("sSrab", "string"),
            "c": "char", "C": "char", "p": "pointer", "n": "count"}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a translation: an error or a warning."""

    reason: str
    severity: Severity = Severity.ERROR


@dataclass(frozen=True, slots=True)
class _Arg:
    """A printf argument: position or name, and the class of value it reads."""

    ref: str
    kind: str
    text: str


def check_paths(paths: Iterable[Path], display: dict[Path, str] | None = None,
                include_fuzzy: bool = False) -> tuple[list[Issue], int]:
    """Check every catalog; returns the issues found and how many catalogs were read."""
    issues: list[Issue] = []
    read = 0
    for path in paths:
        name = (display or {}).get(path, str(path))
        try:
            catalog = read_catalog(path)
        except CatalogError as exc:
            issues.append(Issue(name, exc.reason, exc.line))
            continue
        read += 1
        issues.extend(check_catalog(catalog, name, include_fuzzy))
    return issues, read


def check_catalog(catalog: object, display: str, include_fuzzy: bool = False) -> list[Issue]:
    """Check every unit of a catalog read by :func:`pipeline.formats.read_catalog`."""
    if getattr(catalog, "is_template", False):
        return []
    units: Sequence[Unit] = catalog.units  # type: ignore[attr-defined]
    plural = getattr(catalog, "plural", None)
    issues: list[Issue] = []
    wanted = {UnitState.TRANSLATED, UnitState.PARTIAL} | ({UnitState.FUZZY} if include_fuzzy else set())
    checked = [u for u in units if u.state in wanted]
    metadata = getattr(catalog, "metadata", None)
    plural_units = [u for u in checked if u.plural]
    if metadata is not None and plural_units and "plural=" not in (metadata.get("Plural-Forms") or ""):
        issues.append(Issue(display, "the catalog has plural translations but no Plural-Forms header "
                                     "(nplurals=N; plural=EXPRESSION;)", plural_units[0].line))
    often = _often(plural, issues, display)
    one_form = plural.form_for(1) if often is not None else 0  # type: ignore[union-attr]
    for unit in checked:
        for problem in check_unit(unit, often, one_form):
            issues.append(Issue(display, problem.reason, unit.line, severity=problem.severity))
    return issues


def _often(plural: PluralRule | None, issues: list[Issue], display: str) -> tuple[bool, ...] | None:
    """Per plural form, whether the rule picks it for many numbers; None without a rule."""
    if plural is None:
        return None
    counts = [0] * plural.nplurals
    for n in range(1001):
        form = plural.form_for(n)
        if not 0 <= form < len(counts):
            issues.append(Issue(display, f"the Plural-Forms expression gives form {form} for n={n}, "
                                         f"but nplurals is {len(counts)}", 1))
            return None
        counts[form] += 1
    return tuple(c >= OFTEN for c in counts)


def check_unit(unit: Unit, often: Sequence[bool] | None = None, one_form: int = 0) -> list[Problem]:
    """Problems of one unit's translation; ``often`` and ``one_form`` come from the catalog's plural rule."""
    if not unit.plural:
        return check_translation(unit.sources[0], unit.targets[0], unit.flags)
    problems: list[Problem] = []
    singular, plural_source = unit.sources
    if singular.startswith("\n") != plural_source.startswith("\n") or \
            singular.endswith("\n") != plural_source.endswith("\n"):
        problems.append(Problem("the singular and plural sources do not both begin and end with a newline"))
    if len(unit.targets) > unit.nforms:
        problems.append(Problem(f"{len(unit.targets)} plural forms, but the catalog's plural rule has "
                                f"{unit.nforms}"))
    for index, target in enumerate(unit.targets[:unit.nforms]):
        if not target:
            problems.append(Problem(f"plural form {index} is empty"))
            continue
        strict = often is None or index >= len(often) or often[index]
        # Like msgfmt, every form is compared with the plural source; only edges follow the singular.
        found = check_translation(plural_source, target, unit.flags, strict=strict,
                                  edges_from=singular if index == one_form else plural_source)
        problems.extend(Problem(f"plural form {index}: {p.reason}", p.severity) for p in found)
    return problems


def check_translation(source: str, target: str, flags: Sequence[str] = (), *, strict: bool = True,
                      edges_from: str | None = None) -> list[Problem]:
    """Problems of one translation of ``source``; ``strict=False`` lets it leave out arguments."""
    problems = _edge_problems(source if edges_from is None else edges_from, target)
    src = protect(source, flags)
    tgt = protect(target, flags)
    problems.extend(_placeholder_problems(src.placeholders, tgt.placeholders, strict))
    problems.extend(_stray_problems(src.text, tgt.text, flags))
    if tags_balanced(src.placeholders) and not tags_balanced(tgt.placeholders):
        problems.append(Problem("HTML/XML tags are not balanced and nested as in the source"))
    return problems


def _edge_problems(source: str, target: str) -> list[Problem]:
    src_lead, src_core, src_trail = split_edges(source)
    tgt_lead, tgt_core, tgt_trail = split_edges(target)
    if not src_core or not tgt_core:
        return [] if src_core or not tgt_core else [Problem("the source is only whitespace, the translation is not")]
    problems = []
    if src_lead != tgt_lead:
        problems.append(Problem(f"leading whitespace {tgt_lead!r} differs from the source's {src_lead!r}"))
    if src_trail != tgt_trail:
        problems.append(Problem(f"trailing whitespace {tgt_trail!r} differs from the source's {src_trail!r}"))
    return problems


def _placeholder_problems(source: Sequence[Placeholder], target: Sequence[Placeholder],
                          strict: bool) -> list[Problem]:
    problems: list[Problem] = []
    src_args, src_other = _split(source, problems, "source")
    tgt_args, tgt_other = _split(target, problems, "translation")
    problems.extend(_arg_problems(src_args, tgt_args, strict))
    src_count, tgt_count = Counter(ph.text for ph in src_other), Counter(ph.text for ph in tgt_other)
    kinds = {ph.text: ph.kind for ph in (*source, *target)}
    for text in sorted(set(src_count) | set(tgt_count)):
        want, have = src_count[text], tgt_count[text]
        severity = Severity.WARNING if kinds[text] in _WARN_KINDS else Severity.ERROR
        if kinds[text] in _SET_KINDS:
            want, have = min(want, 1), min(have, 1)
        if have > want:
            where = "not in the source" if want == 0 else f"{have} times, the source has it {want}"
            problems.append(Problem(f"{_label(kinds[text])} {text!r} {where}", severity))
        elif have < want and strict:
            problems.append(Problem(f"{_label(kinds[text])} {text!r} missing"
                                    + (f" ({have} of {want})" if have else ""), severity))
    return problems


def _label(kind: str) -> str:
    if kind.startswith("html") or kind == "entity":
        return "markup"
    return "URL" if kind == "url" else "e-mail address" if kind == "email" else "placeholder"


def _split(placeholders: Sequence[Placeholder], problems: list[Problem], side: str) -> tuple[list[_Arg], list[Placeholder]]:
    """printf arguments (numbered by position or named), and every other placeholder."""
    args: list[_Arg] = []
    others: list[Placeholder] = []
    position = 0
    styles: set[str] = set()
    for ph in placeholders:
        if ph.text in _SKIP_TEXTS or ph.kind in _IGNORED_KINDS:
            continue
        if ph.kind not in PRINTF_KINDS:
            others.append(ph)
            continue
        m = PRINTF_CONVERSION.match(ph.text)
        if m is None:
            others.append(ph)
            continue
        for star in (m.group("width"), m.group("precision")):
            if star and star.startswith("*"):
                position += 1
                ref = star[1:-1] if star.endswith("$") else str(position)
                args.append(_Arg(ref, "int", "*"))
        if m.group("name") is not None:
            styles.add("named")
            ref = f"({m.group('name')})"
        elif m.group("pos"):
            styles.add("numbered")
            ref = m.group("pos")
        else:
            styles.add("unnumbered")
            position += 1
            ref = str(position)
        conv = m.group("conv")
        kind = (m.group("length") or "") + _CLASSES.get(conv, conv)
        args.append(_Arg(ref, kind, ph.text))
    if len(styles) > 1:
        problems.append(Problem(f"the {side} mixes {' and '.join(sorted(styles))} printf arguments"))
    return args, others


def _arg_problems(source: list[_Arg], target: list[_Arg], strict: bool) -> list[Problem]:
    problems: list[Problem] = []
    src = {a.ref: a for a in source}
    seen: dict[str, _Arg] = {}
    for arg in target:
        expected = src.get(arg.ref)
        if expected is None:
            problems.append(Problem(f"placeholder {arg.text!r} has no matching argument in the source"))
        elif expected.kind != arg.kind:
            problems.append(Problem(f"placeholder {arg.text!r} takes type {arg.kind} where the source's "
                                    f"{expected.text!r} takes {expected.kind}"))
        seen.setdefault(arg.ref, arg)
    missing = [a for ref, a in src.items() if ref not in seen]
    if strict:
        problems.extend(Problem(f"placeholder {a.text!r} missing") for a in missing)
    else:
        # A relaxed form may drop arguments, but positional ones only from the end, as printf needs.
        numbered = sorted(int(r) for r in seen if r.isdigit())
        if numbered and numbered != list(range(1, len(numbered) + 1)):
            problems.append(Problem("placeholders leave out an argument before one they use"))
    return problems


def _stray_problems(source_text: str, target_text: str, flags: Sequence[str]) -> list[Problem]:
    """A ``%`` or brace left over once placeholders are taken out makes an invalid format string."""
    kinds = frozenset(kinds_for(flags))
    problems = []
    if kinds & _FLAGGED_PRINTF and "%" in target_text and "%" not in source_text:
        problems.append(Problem("a '%' that starts no valid conversion (write '%%' for a percent sign)"))
    if "brace" in kinds and re.search(r"[{}]", target_text) and not re.search(r"[{}]", source_text):
        problems.append(Problem("a '{' or '}' that is not part of a field (write '{{' or '}}' for a brace)"))
    return problems

