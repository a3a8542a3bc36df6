"""What the review page shows of a unit awaiting review, worked out from the catalog alone.

* Where the translation came from (:class:`Origin`): the run's provenance
  (:meth:`pipeline.run.provenance.Provenance.machine_written`) says which fuzzy units still hold the
  machine translation a run wrote; a unit a run filled from a reviewed translation elsewhere
  carries its note (``pipeline: reused from PATH:LINE``, a PO translator comment or an XLIFF 1.2
  note); every other fuzzy unit is somebody else's draft (a msgmerge match, another tool).
* The checks' verdict: :func:`pipeline.run.gate.check_unit`, the rules a run's gate and ``pipeline
  check`` apply, with the catalog (its charset, XML, inline markup).
* The texts cut into pieces, placeholders and markup marked: the source's placeholders as the run
  protects them (:func:`pipeline.placeholders.protect.protect`), found again in the translation.
* Plural forms with numbers each form covers, and (PO) the previous source a refresh left,
  compared word by word with the source now.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
import re
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.catalogs import Catalog, Unit
from pipeline.limits import limit_of
from pipeline.model import Severity
from pipeline.placeholders.protect import protect
from pipeline.plural_rules import PluralRule
from pipeline.run.gate import Problem, check_unit, plural_usage
from pipeline.run.plurals import representatives
from pipeline.run.provenance import unit_identity

#: How a run names, in its note, where a reused translation came from.
REUSED_NOTE = "pipeline: reused from "
#: Numbers shown per plural form (the rule's first ones from 0 up).
SHOWN_NUMBERS = 6
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")
_TAG = re.compile(r'<x id="(\d+)"/>')


class Origin(enum.Enum):
    """Who wrote the translation awaiting review."""

    MACHINE = "machine"  # a run's machine translation, untouched since (provenance)
    REUSED = "reused"  # a reviewed translation of the same entry elsewhere, written by a run
    FUZZY = "fuzzy"  # anyone else's draft: a msgmerge match, another tool, a translator's


class Status(enum.Enum):
    """Where an entry stands in this review."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    EDITED = "edited"
    REJECTED = "rejected"
    NOTED = "noted"  # kept for another look, with the reviewer's note
    ELSEWHERE = "elsewhere"  # no longer awaiting review: another program changed it


class Details(NamedTuple):
    """What a PO entry has beyond its unit (from polib's entry): translator comments, references, previous source."""

    comments: str = ""
    references: tuple[str, ...] = ()
    previous_context: str | None = None
    previous: tuple[str, ...] = ()  # the previous msgid (and msgid_plural) a refresh left (``#|``)


#: A text cut for display: (text, kind) pieces; kind is a placeholder kind, "space" for edge
#: whitespace, or None for words to translate.
Pieces = list[tuple[str, str | None]]


def identity(unit: Unit, seen: dict[str, int]) -> str:
    """The unit's identity in its catalog (msgctxt + msgid; a repeated source numbered), stable across edits."""
    base = unit_identity(unit)
    count = seen[base] = seen.get(base, 0) + 1
    return base if count == 1 else f"{base}\x00{count}"


def version(unit: Unit) -> str:
    """A short hash of what a reviewer saw of ``unit``: a change to it means the page's view is out of date."""
    seen = repr((unit.sources, unit.targets, unit.state.value, unit.flags, unit.context, unit.notes))
    return hashlib.sha256(seen.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def origin(unit: Unit, details: Details, machine: bool) -> tuple[Origin, str | None]:
    """Who wrote ``unit``'s translation, and (reused) where it came from."""
    for line in (*details.comments.splitlines(), *unit.notes.splitlines()):
        if line.strip().startswith(REUSED_NOTE):
            return Origin.REUSED, line.strip()[len(REUSED_NOTE) :]
    return (Origin.MACHINE if machine else Origin.FUZZY), None


def problems(catalog: Catalog, unit: Unit, targets: Sequence[str]) -> list[Problem]:
    """``targets`` as ``unit``'s translation judged by the gate's rules, the catalog's own limits included."""
    often, one_form, _ = plural_usage(catalog.plural)
    return check_unit(unit, targets, catalog, often, one_form)


def level(found: Sequence[Problem]) -> str:
    """``error``, ``warning`` or ``ok``: the worst of ``found``."""
    if any(p.severity is Severity.ERROR for p in found):
        return "error"
    return "warning" if found else "ok"


def current_targets(unit: Unit) -> tuple[str, ...]:
    """The forms a unit's translation has: as many as its catalog needs."""
    return tuple(unit.targets[: unit.nforms]) + ("",) * (unit.nforms - len(unit.targets))


def source_pieces(text: str, flags: Sequence[str]) -> Pieces:
    """``text`` cut at its placeholders, as the run protects them."""
    protected = protect(text, flags)
    kinds = {ph.id: (ph.text, ph.kind) for ph in protected.placeholders}
    pieces: Pieces = [(protected.prefix, "space")] if protected.prefix else []
    parts = _TAG.split(protected.text)
    for n, part in enumerate(parts):
        if n % 2:
            pieces.append(kinds[int(part)])
        elif part:
            pieces.append((part.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"), None))
    if protected.suffix:
        pieces.append((protected.suffix, "space"))
    return pieces


def target_pieces(text: str, source: Pieces) -> Pieces:
    """``text`` cut at the source's placeholders wherever they occur in it."""
    kinds = {piece: kind for piece, kind in source if kind is not None and kind != "space"}
    pieces: Pieces = []
    core = text.strip()
    start = text.find(core) if core else len(text)
    if start:
        pieces.append((text[:start], "space"))
    if kinds and core:
        pattern = re.compile("|".join(re.escape(k) for k in sorted(kinds, key=len, reverse=True)))
        last = 0
        for found in pattern.finditer(core):
            if found.start() > last:
                pieces.append((core[last : found.start()], None))
            pieces.append((found.group(), kinds[found.group()]))
            last = found.end()
        if last < len(core):
            pieces.append((core[last:], None))
    elif core:
        pieces.append((core, None))
    if start + len(core) < len(text):
        pieces.append((text[start + len(core) :], "space"))
    return pieces


def form_numbers(rule: PluralRule | None, nforms: int) -> list[str]:
    """Per plural form, the numbers it is used for (``1, 21, 31, …``), as the catalog's rule picks them."""
    if rule is None or rule.nplurals != nforms:
        return ["n = 1", "other n"] if nforms == 2 else [f"form {i}" for i in range(nforms)]
    labels = []
    for numbers in representatives(rule):
        shown = ", ".join(str(n) for n in numbers[:SHOWN_NUMBERS])
        labels.append(f"n = {shown}{', …' if len(numbers) > 1 else ''}" if numbers else "no whole number (fractions)")
    return labels


def limit(unit: Unit) -> str | None:
    """The unit's length limit in words (``at most 40 characters``), when it has one."""
    found = limit_of(unit.flags)
    if found is None:
        return None
    said = []
    if found.characters is not None:
        said.append(f"at most {found.characters} characters")
    if found.storage is not None:
        said.append(f"at most {found.storage[1]} bytes in {found.storage[0]}")
    return " and ".join(said)


def difference(before: str, after: str) -> list[tuple[str, str]]:
    """``before`` and ``after`` compared word by word: (text, ``same`` | ``removed`` | ``added``) pieces."""
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    pieces: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(("".join(old[i1:i2]), "same"))
            continue
        if i2 > i1:
            pieces.append(("".join(old[i1:i2]), "removed"))
        if j2 > j1:
            pieces.append(("".join(new[j1:j2]), "added"))
    return pieces
