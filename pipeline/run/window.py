"""The records the stages of a run pass between them while a window of catalogs is translated.

Stages never import each other (only :mod:`pipeline.run.orchestrate` does): what one returns for
the next is defined here, frozen, next to nothing but :mod:`pipeline.model` and
:mod:`pipeline.segments`. What the run decides from them is the :class:`~pipeline.run.ledger.Ledger`'s.
"""

from array import array
from bisect import bisect_left
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from pipeline.model import Cause, Counters, Issue, Severity
from pipeline.placeholders.icu_plurals import locale_flags
from pipeline.segments import Protected, Segment, SegmentKey, TranslationOptions

if TYPE_CHECKING:  # the plural planner loads the placeholder grammars
    from pipeline.catalogs import Catalog, Unit
    from pipeline.run.plurals import UnitPlan

__all__ = [
    "Admission",
    "AdmittedForms",
    "CatalogWork",
    "DryRunEstimate",
    "Recovery",
    "Refused",
    "Reused",
    "Pending",
    "Plan",
    "ReusedUnit",
    "ScannedCatalog",
    "Verdict",
    "UnitForms",
    "Verify",
    "WindowFiles",
    "form_segments",
    "not_offered",
    "unit_context",
]


_V = TypeVar("_V")


class _ByUnit(Mapping[int, _V]):
    """Units of a catalog by index, added in ascending order: the indices in an array (8 bytes each)."""

    __slots__ = ("_units",)

    def __init__(self) -> None:
        self._units = array("q")

    def _append(self, index: int) -> None:
        """Unit ``index``, after every unit added before it."""
        if self._units and index <= self._units[-1]:
            raise ValueError(f"unit {index} added after unit {self._units[-1]}")
        self._units.append(index)

    def _at(self, index: int) -> int:
        """Where unit ``index`` is in the array; KeyError when it was not added."""
        at = bisect_left(self._units, index)
        if at == len(self._units) or self._units[at] != index:
            raise KeyError(index)
        return at

    def __contains__(self, index: object) -> bool:
        if not isinstance(index, int):
            return False
        at = bisect_left(self._units, index)
        return at < len(self._units) and self._units[at] == index

    def __iter__(self) -> Iterator[int]:
        return iter(self._units)

    def __len__(self) -> int:
        return len(self._units)

    def items(self) -> ItemsView[int, _V]:
        """Each unit with its value, in file order: read off the array (:meth:`_in_order`), not looked up unit by
        unit."""
        return _InOrder(self)

    def _in_order(self) -> Iterator[tuple[int, _V]]:
        """Each unit with its value, in file order."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self.items())!r})"


class _InOrder(ItemsView[int, _V]):
    """:meth:`_ByUnit.items`: a Mapping's items view whose iteration reads the units in order."""

    _mapping: _ByUnit[_V]

    def __iter__(self) -> Iterator[tuple[int, _V]]:
        return self._mapping._in_order()


class UnitForms(_ByUnit[tuple[int, ...]]):
    """A catalog's units to translate, in file order -> the source form (SegmentKey.form) of each target form.

    Most units have one form, ``(0,)``: their indices are kept in an array (8 bytes each) and only the
    plurals' forms in a dict, where a dict entry per unit cost 35 bytes and more (5 MiB for a 10 MB
    catalog, held for the whole window). Units are added in ascending index order (:meth:`add`).
    """

    __slots__ = ("_forms",)

    _ONE = (0,)

    def __init__(self) -> None:
        super().__init__()
        self._forms: dict[int, tuple[int, ...]] = {}  # the units whose forms are not (0,)

    @classmethod
    def of(cls, pairs: Iterable[tuple[int, tuple[int, ...]]]) -> "UnitForms":
        """The units of ``pairs`` (index, forms), in ascending index order."""
        made = cls()
        for index, forms in pairs:
            made.add(index, forms)
        return made

    def add(self, index: int, forms: tuple[int, ...]) -> None:
        """Unit ``index``, after every unit added before it, with ``forms``."""
        self._append(index)
        if forms != self._ONE:
            self._forms[index] = forms

    @property
    def indices(self) -> Sequence[int]:
        """The units' indices in file order (the array itself: a list would hold an int object each)."""
        return self._units

    def __getitem__(self, index: int) -> tuple[int, ...]:
        forms = self._forms.get(index)
        if forms is not None:
            return forms
        self._at(index)
        return self._ONE

    def _in_order(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        forms, one = self._forms, self._ONE
        for index in self._units:
            yield index, forms.get(index, one)


class AdmittedForms(_ByUnit[tuple[str, ...]]):
    """A catalog's units the gate admitted, in file order -> the target forms each is written with.

    Held from the gate until the catalog is written: as a dict of tuples a unit cost about 120
    bytes (an int key, a tuple for its one form, the entry: 17 MiB for a 10 MB catalog). Here its
    index is in an array and its one form's text (a plural's tuple of forms) in a list. Units are
    added in ascending index order (:meth:`add`).
    """

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[str | tuple[str, ...]] = []

    def add(self, index: int, forms: Sequence[str]) -> None:
        """Unit ``index``, after every unit added before it, with its target ``forms``."""
        self._append(index)
        self._texts.append(forms[0] if len(forms) == 1 else tuple(forms))

    def __getitem__(self, index: int) -> tuple[str, ...]:
        text = self._texts[self._at(index)]
        return (text,) if isinstance(text, str) else text

    def _in_order(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        for index, text in zip(self._units, self._texts, strict=True):
            yield index, ((text,) if isinstance(text, str) else text)


class ScannedCatalog(NamedTuple):
    """A readable catalog, its languages, and its units to translate.

    The units to translate are the keys of ``source_forms``, in file order. Their segments are
    made one part of the window at a time (:meth:`unit_segments`, :func:`pipeline.run.plan.parts`):
    ``segments`` holds a part's, and nothing as scanned.
    """

    path: Path
    display: str  # path as shown in reports (relative to the project root when possible)
    catalog: "Catalog"
    locale: str
    target_lang: str
    segments: tuple[Segment, ...]
    source_forms: UnitForms  # unit index -> segment form (SegmentKey.form) of each target form
    skipped: int
    plural_plans: Mapping[int, "UnitPlan"] = MappingProxyType({})  # plural units: how forms are made
    fallbacks: tuple[Segment, ...] = ()  # plural fallback texts: sent only for forms whose number failed
    context_policy: str = "all"  # what a segment's context is made of (Settings.context)
    formality: str | None = None  # the catalog's own form of address ("formal": de_DE_formal), else None

    def unit_segments(self, index: int) -> list[Segment]:
        """The segments unit ``index`` is translated from: its text, or a plural's number sentences."""
        unit = self.catalog.units[index]
        plan = self.plural_plans.get(index)
        texts = {0: unit.sources[0]} if plan is None else plan.texts
        return form_segments(self.display, unit, texts, unit_context(self.context_policy, unit), self.locale)

    def segment_count(self, index: int) -> int:
        """How many segments unit ``index`` is translated from."""
        plan = self.plural_plans.get(index)
        return 1 if plan is None else len(plan.texts)


def form_segments(
    display: str, unit: "Unit", texts: Mapping[int, str], context: str | None, locale: str | None = None
) -> list[Segment]:
    """A segment of ``unit`` in catalog ``display`` for each text of ``texts`` (source form -> text), in form order.

    With the target ``locale``, a text whose ICU plurals lack the locale's categories is flagged to
    have them added (:mod:`pipeline.placeholders.icu_plurals`).
    """
    flags = unit.flags
    if locale is None or not any("{" in text for text in texts.values()):
        return [
            Segment(SegmentKey(display, unit.position, f), texts[f], unit.line, flags, context) for f in sorted(texts)
        ]
    return [
        Segment(SegmentKey(display, unit.position, f), text, unit.line, flags + locale_flags(text, locale), context)
        for f, text in sorted(texts.items())
    ]


def not_offered(
    display: str,
    reason: str,
    target: str | None,
    cause: Cause,
    skip: bool,
    segments: int | None = None,
    written: Counters | None = None,
) -> Issue:
    """The one issue of a catalog whose language cannot be translated into (scan finds it, or the
    service's language list): an error, or skipped when ``unsupported_languages = "skip"`` (``skip``).
    ``written``: the catalog's counters, where the run writes it all the same (what needs no service)."""
    reason += f": {segments} segments not translated" if segments is not None else ": not translated"
    if written is not None:
        kept = [
            f"{n} {what}"
            for n, what in (
                (written.segments_copied, "with nothing to translate, copied as they are"),
                (written.segments_from_cache, "from the cache"),
                (written.segments_reused, "reused from reviewed translations"),
            )
            if n
        ]
        reason += f"; written all the same: {', '.join(kept)}" if kept else ""
    if skip:
        return Issue(display, reason, target_lang=target, severity=Severity.SKIPPED, cause=cause)
    reason += ' (set [translate] unsupported_languages = "skip" to pass over such catalogs)'
    return Issue(display, reason, target_lang=target, cause=cause)


class Refused(NamedTuple):
    """A catalog the scan found in a language the service does not offer: its one issue, and the
    segments it leaves untranslated (counted failed, or skipped), as a language the service's own
    list leaves out is counted once the list is read."""

    display: str
    target_lang: str  # the service code, or "" when the language has none (Nynorsk)
    segments: int
    issue: Issue


def unit_context(policy: str, unit: "Unit") -> str | None:
    """What is sent as the request's ``context`` for a unit, per the configured policy."""
    if policy == "none":
        return None
    parts = [unit.context or ""]
    if policy == "all":
        parts.append(unit.notes)
    return "\n".join(p for p in parts if p) or None


class Verdict(NamedTuple):
    """The gate's answer for one returned text: restored for writing, or why it may not be written."""

    text: str | None  # the translation with the placeholders put back; None when rejected
    problem: str | None = None
    retryable: bool = False  # rejected for its placeholders: showing them another way could pass


#: The gate's check of a returned text (:func:`pipeline.run.gate.verify`).
Verify = Callable[[Protected, str, Segment], Verdict]


@dataclass(slots=True)
class Pending:
    """One unique text to send, and every segment waiting for it (one per text of a catalog: kept small)."""

    options: TranslationOptions
    protected: Protected
    key: str
    refs: list[Segment]
    # Segments whose placeholders differ from ``protected``'s although their protected text is the
    # same (``%(name)s`` and ``{}``): each gets its own placeholders back from the shared answer.
    # None for the usual text that has no such segment.
    own: dict[SegmentKey, Protected] | None = None

    def add(self, ref: Segment, protected: Protected) -> None:
        """``ref`` waits for this text too, with ``protected`` as its own form (kept when its placeholders differ)."""
        if protected != self.protected:  # same text sent, other placeholders behind the tags
            if self.own is None:
                self.own = {}
            self.own[ref.key] = protected
        self.refs.append(ref)

    def protected_for(self, ref: Segment) -> Protected:
        """``ref``'s own protected form."""
        return self.protected if self.own is None else self.own.get(ref.key, self.protected)

    def verdicts(self, answer: str, verify: Verify) -> list[tuple[Segment, Verdict]]:
        """Each segment through the gate with its own placeholders; alike segments are judged once."""
        if len(self.refs) == 1:  # the usual case: nothing to share
            return [(self.refs[0], verify(self.protected_for(self.refs[0]), answer, self.refs[0]))]
        seen: dict[tuple[Protected, str, tuple[str, ...]], Verdict] = {}
        out: list[tuple[Segment, Verdict]] = []
        for ref in self.refs:
            protected = self.protected_for(ref)
            alike = (protected, ref.text, ref.flags)
            if alike not in seen:
                seen[alike] = verify(protected, answer, ref)
            out.append((ref, seen[alike]))
        return out


@dataclass
class Recovery:
    """Per language: segments each recovery scheme got past the gate, and the characters retries cost."""

    segments: dict[str, int] = field(default_factory=dict)  # scheme name -> segments recovered
    characters: int = 0


class Reused(NamedTuple):
    """A unit written with a reviewed translation found elsewhere, and where it was found."""

    catalog: str
    line: int
    target_lang: str
    origin: str  # "path:line" of the catalog or compendium entry it was copied from


class DryRunEstimate(NamedTuple):
    """What a real run would send (``report.json``'s ``would_send``, field for field)."""

    requests: int = 0
    requests_lower_bound: int = 0
    context_requests: int = 0
    characters: int = 0  # billed: every character of the texts, tags included
    texts: int = 0
    segments: int = 0
    # Plural fallback texts not counted above: sent in a second round only for forms whose number fails.
    fallback_texts: int = 0


class CatalogWork(NamedTuple):
    """What a real run would do to one catalog (dry run): segments it would write, characters it would bill.

    ``characters`` counts each unique text once per catalog that needs it (a text two catalogs
    share is billed once in the run's total, :class:`DryRunEstimate`).
    """

    path: str
    target_lang: str
    segments: int  # translated, taken from the cache, or copied as is: every one is a write
    characters: int


class WindowFiles(NamedTuple):
    """The catalogs a run reads, translates and writes together, and their bytes as read before parsing."""

    paths: list[Path]
    snapshots: dict[Path, bytes | None]  # each catalog's bytes before it was parsed: see write.write_catalogs


class Plan(NamedTuple):
    """A part's texts to translate, deduplicated by cache key: round one's, and the plural fallbacks sent if needed.

    ``copied``: the segments with nothing to translate, written as they are (those of fallbacks are
    not counted: a fallback counts only where it is used).
    """

    pending: dict[str, Pending]
    spare: dict[str, Pending]
    copied: dict[SegmentKey, str]
    counted: frozenset[SegmentKey]  # the copied segments that count as copied


class ReusedUnit(NamedTuple):
    """A unit written with a reviewed translation found elsewhere: its forms, and where they come from."""

    catalog: str
    unit: int  # its index in the catalog
    line: int
    target_lang: str
    origin: str  # "path:line" of the catalog or compendium entry it was copied from
    forms: dict[SegmentKey, str]  # the unit's target forms, as the gate reads them
    copied: tuple[SegmentKey, ...]  # its segments the plan had copied (nothing to translate): no longer

    def listed(self) -> Reused:
        """The unit as the report lists it."""
        return Reused(self.catalog, self.line, self.target_lang, self.origin)


class Admission(NamedTuple):
    """What the gate says of a catalog's units: those that may be written, and why the others may not."""

    translations: AdmittedForms  # unit index -> target forms
    issues: list[Issue]
    failed: int  # units kept out for an error
    skipped: int  # units left for a human (approximate, and fuzzy marking off)
