"""The reviewed translations of a language, by entry, from the project's catalogs and the compendia.

An entry is named as gettext names it: msgctxt and msgid, and msgid_plural for a plural one. Only
reviewed translations count: a unit translated in full and not fuzzy (and, in a project whose
machine translations are written unmarked, ``mark_fuzzy = false``, not one the pipeline wrote
and nobody changed since, :mod:`pipeline.run.provenance`). Two catalogs whose reviewed translations
of an entry differ make it ambiguous: it is not reused. The project's catalogs come first; the
compendia (``[translate] compendia``) answer only for entries none of them has.

The index is built for the languages a window has work in, on first need, from every catalog the
discovery finds (settled ones included: they are the best source) and from the compendia. A
catalog of another language is told apart without parsing where its path, the configuration or
the run state says its language. What a catalog holds is kept in the cache folder
(``reuse/<hash of its name>.json``), named by the SHA-256 of its bytes: the next run reads that
instead of parsing a catalog nobody changed, and parses one whose bytes differ. The catalogs of
the run's later windows are not recorded: it is about to write them. Records are written as the
other files of the cache folder are: while holding the folder's lock (``reuse/.lock``, taken at a
build's first record and let go when the build ends), whose holder leaves a note naming its process,
so that the next holder removes what a run killed while writing a record left. A run that finds the
lock held (another run writing its records) keeps no record in that build: the next run parses those
catalogs again, which is slower, never wrong.

A catalog of the run the index parses before its window is read (one that changed since the last
run: a new string in each of a project's catalogs) is kept, up to :data:`AHEAD_BYTES` of catalogs,
for the scan of its window, which takes it instead of parsing the same bytes again
(:meth:`Index.parsed`).
"""

import functools
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pipeline import locales
from pipeline.catalog_paths import configured_locale, display_path, find_catalogs
from pipeline.catalogs import Catalog, UnitState, read_catalog
from pipeline.catalogs.po import read_po
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.files.atomic import atomic_write, discard, left_in
from pipeline.files.lockfile import FileLock, take_over
from pipeline.files.untrusted import read_regular
from pipeline.plural_rules import PluralExpressionError, PluralRule, check, plural_rule_for
from pipeline.run.journal import Journal
from pipeline.run.provenance import Provenance

__all__ = ["Human", "Index", "LanguageIndex", "Source"]

INDEX_VERSION = 2  # 2: a Zope message's source is its Default text
INDEX_DIR = "reuse"
#: The lock held while records are written in :data:`INDEX_DIR` (hidden, beside them).
LOCK_NAME = ".lock"
#: The largest compendium read: a glob may match a file of any size (or a link to /dev/zero, which a
#: regular-file check refuses first); a compendium past this one would hold its run's memory.
COMPENDIUM_BYTES = 256 * 1024 * 1024
#: The most bytes of the run's catalogs the index keeps parsed for the scan of their window (their
#: parsed form takes several times as much memory): beyond, a window's catalogs are parsed again.
AHEAD_BYTES = 16 * 2**20
_NO_LANGUAGE = (
    "its language cannot be told (no Language header, and its name says none): its entries are not used; "
    "name it in [translate] languages"
)
#: Numbers whose plural forms name a rule: two rules that pick the same forms for all of them are one.
_SIGNATURE_NUMBERS = range(201)

#: (msgctxt, sources, the plural rule's signature for a plural entry): catalogs whose rules pick other
#: forms hold other plural translations of one entry, neither of them wrong.
Key = tuple[str | None, tuple[str, ...], tuple[int, ...] | None]


class Human(NamedTuple):
    """A reviewed translation of an entry, and where it is (``path:line``)."""

    targets: tuple[str, ...]
    origin: str


@dataclass
class LanguageIndex:
    """One language's reviewed translations: the project's catalogs', then the compendia's."""

    project: dict[Key, Human | None] = field(default_factory=dict)  # None: catalogs disagree
    compendia: dict[Key, Human | None] = field(default_factory=dict)

    def __bool__(self) -> bool:
        """Whether any reviewed translation is indexed (a project translated from scratch has none)."""
        return bool(self.project or self.compendia)

    def find(self, key: Key) -> Human | None:
        """The one reviewed translation of ``key``; None when there is none or they disagree."""
        if key in self.project:
            return self.project[key]
        return self.compendia.get(key)


class Source(NamedTuple):
    """What one catalog holds for the index: its declared language, plural rule and reviewed entries."""

    language: str | None  # the catalog's own declaration (PO Language header, XLIFF target language)
    plural: tuple[int, str] | None  # (nplurals, expression) as the catalog declares it
    entries: tuple[
        tuple[str | None, tuple[str, ...], tuple[str, ...], int, bool], ...
    ]  # ctx, sources, targets, line, ours


@functools.lru_cache(maxsize=64)
def signature(rule: PluralRule | None) -> tuple[int, ...] | None:
    """The plural forms ``rule`` picks for 0..200: what two catalogs must agree on to share plural translations."""
    if rule is None:
        return None
    return (rule.nplurals, *(rule.form_for(n) for n in _SIGNATURE_NUMBERS))


def same_language(code: str, locale_map: Mapping[str, str]) -> tuple[str, ...]:
    """A locale as compared for reuse: its variety (:attr:`pipeline.locales.Variety.key`). ``de``,
    ``de_DE`` and ``de_AT`` are one; ``pt`` and ``pt_BR``, ``zh`` and ``zh_TW``, ``de`` and
    ``de_DE_formal``, ``nb`` and ``nn``, ``sr`` and ``sr@latin`` are two, whatever ``locale_map`` sends
    them as: a formal text is not reused in an informal catalog, nor one script or written standard in another."""
    return locales.resolve(code, dict(locale_map)).key


class Index:
    """Per language, the reviewed translations of the project and the compendia; built on first need."""

    def __init__(
        self,
        settings: Settings,
        journal: Journal,
        provenance: Provenance,
        cached: bool = True,
        persist: bool = True,
        run_paths: Iterable[Path] = (),
        project: Iterable[Path] | None = None,
    ) -> None:
        """``cached``: read what earlier runs kept in the cache folder; ``persist``: keep what this one parses;
        ``run_paths``: the run's catalogs, kept parsed for their window's scan when the index parses them
        before it (:meth:`parsed` says when a window reads one); ``project``: every catalog the discovery
        finds, read-only ones included, when the run has them already (otherwise found on first need)."""
        self.settings, self.journal, self.provenance, self.persist = settings, journal, provenance, persist
        self.warnings: list[tuple[str, str]] = []  # (file, why it was not read): compendia only
        self._languages: dict[tuple[str, ...], LanguageIndex] = {}
        self._directory = settings.cache_dir / INDEX_DIR if settings.cache_dir is not None and cached else None
        self._unread = set(run_paths)  # the run's catalogs whose window has not read them yet
        self._ahead: dict[Path, tuple[bytes, Catalog]] = {}  # a run's catalog as parsed: its bytes, its catalog
        self._ahead_bytes = 0
        self._writing: FileLock | bool | None = None  # the records' lock while a build holds it; False: held elsewhere
        # The project's catalogs, found once for every language built (templates are no source).
        self._project = None if project is None else [path for path in project if path.suffix.lower() != ".pot"]

    def parsed(self, path: Path, data: bytes | None) -> Catalog | None:
        """The run's catalog at ``path`` as the index parsed it, if that was from the bytes ``data``; None
        otherwise. Asked by its window as it reads it, once: the scan takes it (and may change it)
        instead of parsing the same bytes again."""
        self._unread.discard(path)
        kept = self._ahead.pop(path, None)
        if kept is None:
            return None
        self._ahead_bytes -= len(kept[0])
        return kept[1] if data is not None and kept[0] == data else None

    def language(self, locale: str) -> LanguageIndex:
        """The index of ``locale`` (empty unless :meth:`build` was asked for it)."""
        return self._languages.get(same_language(locale, self.settings.locale_map), LanguageIndex())

    def build(self, wanted: Iterable[str], parsed: dict[Path, tuple[str, Catalog]]) -> None:
        """Index the ``wanted`` locales not indexed yet; ``parsed``: catalogs read already (path -> locale, catalog)."""
        codes = list(wanted)
        todo = {same_language(code, self.settings.locale_map) for code in codes} - set(self._languages)
        if not todo:
            return
        for key in todo:
            self._languages[key] = LanguageIndex()
        try:
            self._build(codes, todo, parsed)
        finally:
            if isinstance(self._writing, FileLock):
                self._writing.release()
            self._writing = None

    def _build(self, codes: list[str], todo: set[tuple[str, ...]], parsed: dict[Path, tuple[str, Catalog]]) -> None:
        bases = {locales.base_language(code) for code in codes}
        for path, compendium in self._candidates():
            display = display_path(self.settings.root, path)
            if not self._may_be(path, display, bases, todo):
                continue  # another language, as its path, the configuration or the run state says: not read
            locale: str | None
            if path in parsed:
                locale, catalog = parsed[path]
                source: Source | None = _source(catalog, display, self.provenance)
            else:
                source = self._source(path, display, compendium)
                declared = source.language if source is not None else None
                locale = configured_locale(self.settings, path) or (
                    locales.refined(declared, path) if declared else locales.locale_from_path(path)
                )
                if compendium and source is not None and locale is None:
                    self.warnings.append((display, _NO_LANGUAGE))
            if source is not None and locale is not None:
                language = same_language(locale, self.settings.locale_map)
                if language in todo:
                    self._add(self._languages[language], source, display, locale, compendium)

    def _may_be(self, path: Path, display: str, bases: set[str], todo: set[tuple[str, ...]]) -> bool:
        """Whether the catalog at ``path`` may be in one of the languages to index, told without reading it.

        By its base language (its header may name a region its path does not) or its service
        language (``locale_map`` may join two base languages); unknown: it may.
        """
        quick = (
            configured_locale(self.settings, path) or self._settled_locale(display) or locales.locale_from_path(path)
        )
        if quick is None or locales.base_language(quick) in bases:
            return True
        return same_language(quick, self.settings.locale_map) in todo

    def _candidates(self) -> Iterator[tuple[Path, bool]]:
        """Every catalog the discovery finds (read-only ones too), then each compendium: (path, is a compendium)."""
        if self._project is None:
            found = find_catalogs(self.settings, (), writing=False).paths
            self._project = [path for path in found if path.suffix.lower() != ".pot"]
        yield from ((path, False) for path in self._project)
        for pattern in self.settings.compendia:
            root = self.settings.root
            if any(char in pattern for char in "*?["):
                anchor = Path(pattern).anchor
                found = sorted(Path(anchor).glob(pattern[len(anchor) :]) if anchor else root.glob(pattern))
            else:
                found = [root / pattern]
            if not found:
                self.warnings.append((pattern, "no compendium file matches it"))
            yield from ((path, True) for path in found)

    def _settled_locale(self, display: str) -> str | None:
        record = self.journal.settled_record(display)
        return record.locale if record is not None and record.locale else None

    def _add(self, index: LanguageIndex, source: Source, display: str, locale: str, compendium: bool) -> None:
        table = index.compendia if compendium else index.project
        rule = PluralRule(*source.plural) if source.plural is not None else plural_rule_for(locale)
        plural = signature(rule)
        for context, sources, targets, line, ours in source.entries:
            if ours and not self.settings.mark_fuzzy:
                continue  # a machine translation written unmarked: nobody reviewed it
            key = (context, sources, plural if len(sources) > 1 else None)
            seen = table.get(key)
            if key not in table:
                table[key] = Human(targets, f"{display}:{line}")
            elif seen is not None and seen.targets != targets:
                table[key] = None  # reviewed twice, differently: a human decides

    def _source(self, path: Path, display: str, compendium: bool) -> Source | None:
        """What the catalog at ``path`` holds: from the cache folder when its bytes are the same, else parsed."""
        try:
            data = read_regular(path, COMPENDIUM_BYTES if compendium else None)
        except OSError as exc:
            if compendium:
                self.warnings.append((display, f"cannot be read: {exc.strerror}"))
            return None
        digest = hashlib.sha256(data).hexdigest()
        stored = (
            self._directory / f"{hashlib.sha256(display.encode('utf-8')).hexdigest()[:32]}.json"
            if self._directory
            else None
        )
        if stored is not None:
            source = _load(stored, digest)
            if source is not None:
                return source
        try:
            catalog = _read(path, data)
        except CatalogError as exc:
            if compendium:
                self.warnings.append((display, exc.reason))
            return None
        source = _source(catalog, display, self.provenance)
        if not compendium and path in self._unread:
            # A catalog of a later window of this run, about to be written: no record (stale at once).
            if self._ahead_bytes + len(data) <= AHEAD_BYTES:
                self._ahead[path] = (data, catalog)
                self._ahead_bytes += len(data)
            return source
        if stored is not None and self.persist and self._may_write(stored.parent):
            try:
                # Not flushed to the disk: a record a power cut leaves old or empty fails the digest or
                # shape check of _load, and that catalog is parsed again (a flush per catalog cost more
                # than parsing it).
                atomic_write(stored, _dump(source, digest), durable=False)
            except OSError:
                pass  # the next run parses it again: slower, never wrong
        return source

    def _may_write(self, directory: Path) -> bool:
        """Whether this build may write records in ``directory``: it holds the folder's lock (taken at the first
        record, with the clean-up after a killed holder); False when another run holds it, or it cannot be made."""
        if self._writing is None:
            self._writing = False
            try:
                directory.mkdir(parents=True, exist_ok=True)
                lock = FileLock(directory / LOCK_NAME)
                if lock.try_acquire():
                    self._writing = lock
                    take_over(lock, lambda pid: _discard_left(directory, pid))
            except OSError:
                pass  # no record kept: the next run parses those catalogs again
        return isinstance(self._writing, FileLock)


def _discard_left(directory: Path, pid: int) -> None:
    """Remove the temporary files of records ended process ``pid`` left in ``directory`` (a killed holder)."""
    for left in left_in(directory, pid, _is_record):
        discard(left)


def _is_record(name: str) -> bool:
    """Whether ``name`` is a record's (:meth:`Index._source`: 32 hex digits of a hash, then ``.json``)."""
    return len(name) == 37 and name.endswith(".json") and all(c in "0123456789abcdef" for c in name[:32])


def _read(path: Path, data: bytes) -> Catalog:
    if path.suffix.lower() in (".po", ".pot"):
        return read_po(path, data)
    return read_catalog(path, data)


def _source(catalog: Catalog, display: str, provenance: Provenance) -> Source:
    """The reviewed entries of ``catalog``: translated in full, not fuzzy; ``ours`` when the pipeline wrote them."""
    units = catalog.units
    entries = tuple(
        (
            unit.context,
            unit.sources,
            tuple(unit.targets[: unit.nforms]),
            unit.line,
            provenance.machine_written(display, unit) is not None,
        )
        for unit in (units[position] for position in catalog.positions(UnitState.TRANSLATED))
    )
    plural = (catalog.plural.nplurals, catalog.plural.expression) if catalog.plural is not None else None
    return Source(catalog.language, plural, entries)


def _dump(source: Source, digest: str) -> bytes:
    data = {
        "version": INDEX_VERSION,
        "sha256": digest,
        "language": source.language,
        "plural": list(source.plural) if source.plural else None,
        "entries": [
            [ctx, list(sources), list(targets), line, ours] for ctx, sources, targets, line, ours in source.entries
        ],
    }
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _load(path: Path, digest: str) -> Source | None:
    """The stored index of a catalog whose bytes hash to ``digest``; None when missing, stale or of any other shape."""
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or data.get("sha256") != digest:
        return None
    language, plural, entries = data.get("language"), data.get("plural"), data.get("entries")
    if not (language is None or isinstance(language, str)) or not isinstance(entries, list):
        return None
    if plural is not None and not (
        isinstance(plural, list) and len(plural) == 2 and type(plural[0]) is int and isinstance(plural[1], str)
    ):
        return None
    if plural is not None and not _valid_plural(plural[0], plural[1]):
        return None  # as the catalog's reader checks it: the folder is never trusted more than the file
    out = []
    for entry in entries:
        # The folder is plain JSON anyone with write access can edit: any other shape means parsing again.
        if not (isinstance(entry, list) and len(entry) == 5):
            return None
        ctx, sources, targets, line, ours = entry
        if not (
            (ctx is None or isinstance(ctx, str))
            and _strings(sources)
            and _strings(targets)
            and type(line) is int
            and type(ours) is bool
        ):
            return None
        out.append((ctx, tuple(sources), tuple(targets), line, ours))
    return Source(language, (plural[0], plural[1]) if plural else None, tuple(out))


@functools.lru_cache(maxsize=64)
def _valid_plural(nplurals: int, expression: str) -> bool:
    """Whether a plural rule is one a catalog may declare: checked once per rule (a language's catalogs share one)."""
    try:
        check(nplurals, expression)
    except PluralExpressionError:
        return False
    return True


def _strings(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)
