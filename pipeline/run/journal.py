"""What a run remembers between runs, next to the translation cache.

Two things, both plain JSON written atomically:

* ``state.json``: the catalogs a run left *settled* (nothing untranslated except units skipped
  for a stable reason, no error), each with a fingerprint: size, mtime, SHA-256 of the bytes and
  a hash of every setting that changes a run's outcome. A later run with the same settings skips
  a catalog whose bytes hash the same without parsing it, and replays its skip notices into the
  report. Hashing the bytes (rather than trusting mtime) keeps this right when a tool restores
  an old mtime or two edits land within one clock tick; it costs far less than parsing.
* ``provenance/<hash>.json``, one per catalog, read only when the catalog is parsed: for every
  unit the pipeline wrote, its identity (msgctxt + msgid, which survives reordering), the source
  it was translated from, the translation written, and the hash of the other inputs (the
  glossary entries its source contains, style list, formality, ...: so a changed term makes stale
  only the units that contain it). A fuzzy unit whose target still equals what we wrote is an
  untouched machine translation; any other target is a human's.

Two runs may share a cache folder (parallel CI jobs on one persisted cache): each save takes a
lock, re-reads what is on disk and applies only this run's own changes to it, so neither run
drops what the other settled or recorded. Two runs on the same catalogs also take turns on each
catalog (:mod:`pipeline.run.locks`), so what one translates the other finds done instead of paying
for it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.config import Settings
from pipeline.distribution import __version__
from pipeline.formats import Content, atomic_write, atomic_write_all
from pipeline.model import SCHEME_VERSION, Cause, Severity
from pipeline.untrusted import read_regular

if TYPE_CHECKING:  # units exist only once a catalog is parsed: not on the no-op path
    from pipeline.formats import Unit

STATE_VERSION = 1
STATE_NAME = "state.json"
PROVENANCE_DIR = "provenance"
LOCK_NAME = "state.lock"  # held while a save merges this run's changes into the files
#: How long a language list seen from a service is trusted for keeping "not offered" catalogs settled.
LANGUAGES_TTL = 24 * 3600
# Settings that choose which catalogs run or how the service is reached, not what a catalog becomes.
_OUTCOME_NEUTRAL = {
    "root",
    "config_path",
    "catalogs",
    "exclude",
    "target_langs",
    "service",
    "cache_dir",
    "cache_url",
    "cache_ttl",
    "report_dir",
    "max_characters",
    "lock_wait",
}


def settings_hash(settings: Settings) -> str:
    """Hash of every setting that can change what a run does to a catalog, plus the code's versions."""
    relevant = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name not in _OUTCOME_NEUTRAL}
    material = json.dumps(
        {"settings": relevant, "version": __version__, "scheme": SCHEME_VERSION}, sort_keys=True, default=_jsonable
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _jsonable(value: object) -> object:
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)  # type: ignore[call-overload]
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    if hasattr(value, "items"):
        return dict(value.items())
    return repr(value) if not isinstance(value, Path) else str(value)


def unit_identity(unit: Unit) -> str:
    """msgctxt + msgid, as gettext names a message (``ctx\\x04id``)."""
    return unit.sources[0] if unit.context is None else f"{unit.context}\x04{unit.sources[0]}"


@dataclass(frozen=True, slots=True)
class Settled:
    """A catalog a run left with nothing to do, and what its report entry needs without reading it."""

    size: int
    mtime_ns: int
    sha256: str
    settings: str
    locale: str
    target_lang: str
    skipped: int
    # (line, reason, severity, cause) of its issues: notices, and the errors it was settled with
    notices: tuple[tuple[int | None, str, str, str | None], ...]
    # Settled with a language the service did not offer: the hash of the service's list then.
    languages: str | None = None
    # Settled for a check only (--frozen): the run left units refused (the gate, the service) that a
    # real run tries again; a check reports them as that run did instead of as work to do.
    retry: bool = False
    # Units awaiting review in it, for the report (None: settled by a version that did not count them).
    awaiting: int | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """Provenance of one unit the pipeline wrote."""

    sources: tuple[str, ...]
    targets: tuple[str, ...]
    inputs: str


class Journal:
    """What runs remember: settled catalogs and provenance, loaded lazily and saved atomically when changed."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._settled: dict[str, Settled] = {}
        self._provenance: dict[str, dict[str, Written]] = {}
        self._recorded: dict[str, dict[str, Written]] = {}  # this run's provenance, applied on save
        self._by_text: dict[str, dict[tuple[str | None, tuple[str, ...]], Written]] = {}  # (msgctxt, targets)
        self._changes: dict[str, Settled | None] = {}  # this run's settle/unsettle, applied on save
        self._languages: dict[str, tuple[str, float]] = {}  # service -> (hash of its list, when seen)
        self._languages_seen: dict[str, tuple[str, float]] = {}  # this run's, applied on save
        if directory is not None:
            data = _read_json(directory / STATE_NAME)
            self._settled = _settled_from(data)
            self._languages = _languages_from(data)

    # -- settled catalogs -------------------------------------------------------------------

    def unchanged(self, display: str, path: Path, settings: str, service: str = "") -> Settled | None:
        """The settled record of ``display`` when the file still has the recorded bytes and settings.

        A catalog settled because ``service`` did not offer its language stays settled only while
        the service's language list, as last seen (at most :data:`LANGUAGES_TTL` ago), is the same.
        """
        record = self._settled.get(display)
        if record is None or record.settings != settings:
            return None
        if record.languages is not None and not self._languages_current(service, record.languages):
            return None  # settled for a language not offered: the service's list may have changed
        try:
            stat = os.stat(path)
            if stat.st_size != record.size:
                return None
            data = read_regular(path)
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != record.sha256:
            return None
        if stat.st_mtime_ns != record.mtime_ns:  # same bytes, new mtime (checkout, touch): keep it fresh
            self._settled[display] = self._changes[display] = replace(record, mtime_ns=stat.st_mtime_ns)
        return record

    def settled_record(self, display: str) -> Settled | None:
        """The settled record of ``display`` as loaded, without looking at the file (see :meth:`unchanged`)."""
        return self._settled.get(display)

    def settle(self, display: str, record: Settled) -> None:
        """Remember ``display`` as settled."""
        if self._settled.get(display) != record:
            self._settled[display] = self._changes[display] = record

    def note_languages(self, service: str, languages: str) -> None:
        """Remember the hash of the target languages ``service`` offers, as seen now."""
        self._languages[service] = self._languages_seen[service] = (languages, time.time())

    def languages(self, service: str) -> str | None:
        """The hash of ``service``'s language list as last seen, if still fresh."""
        seen = self._languages.get(service)
        return seen[0] if seen is not None and time.time() - seen[1] < LANGUAGES_TTL else None

    def last_service(self) -> str | None:
        """The service a run last read the language list of: the one that sent (and cached) last."""
        seen = {**self._languages, **self._languages_seen}
        return max(seen, key=lambda service: seen[service][1]) if seen else None

    def _languages_current(self, service: str, languages: str) -> bool:
        return self.languages(service) == languages

    def settled_targets(self) -> set[str]:
        """The target languages of the settled catalogs (known without reading them; an unreadable one has none)."""
        return {record.target_lang for record in self._settled.values() if record.target_lang}

    def unsettle(self, display: str) -> None:
        """Forget that ``display`` was settled (it has work left, or failed)."""
        if self._settled.pop(display, None) is not None:
            self._changes[display] = None

    # -- provenance -------------------------------------------------------------------------

    def provenance(self, display: str) -> dict[str, Written]:
        """What the pipeline wrote into ``display``, by unit identity (loaded on first use, with what
        this run recorded and has not saved yet)."""
        if display not in self._provenance:
            loaded = _load_provenance(self._provenance_path(display)) if self.directory is not None else {}
            self._provenance[display] = {**loaded, **self._recorded.get(display, {})}
        return self._provenance[display]

    def record(self, display: str, units: Iterable[tuple[Unit, tuple[str, ...], str]]) -> None:
        """Remember the translations just written into ``display``: (unit, targets, inputs hash) each.

        The provenance loaded for ``display`` (if it was: a catalog translated for the first time
        has none to load) takes them too; else they are held once, until saved.
        """
        self._by_text.pop(display, None)
        recorded = self._recorded.setdefault(display, {})
        loaded = self._provenance.get(display)
        for unit, targets, inputs in units:
            identity = unit_identity(unit)
            recorded[identity] = record = Written(unit.sources, targets, inputs)
            if loaded is not None:
                loaded[identity] = record

    def machine_written(self, display: str, unit: Unit) -> Written | None:
        """Our record for ``unit`` when its target is still exactly what we wrote, else None.

        Looked up by identity first, then (for a msgid that msgmerge changed, leaving our old
        translation fuzzy under the new msgid) by the written text within the same msgctxt.
        """
        targets = tuple(unit.targets[: unit.nforms])
        if not any(targets):
            return None
        written = self.provenance(display)
        record = written.get(unit_identity(unit))
        if record is not None and record.targets == targets:
            return record
        if display not in self._by_text:
            self._by_text[display] = {(_context_of(key), rec.targets): rec for key, rec in written.items()}
        return self._by_text[display].get((unit.context, targets))

    def is_stale(self, display: str, unit: Unit, current: tuple[str, ...]) -> bool:
        """A fuzzy, untouched machine translation whose source or inputs changed since we wrote it.

        ``current`` holds the inputs hashes the unit would be written with now: its own (with the
        glossary entries its source contains), and the whole target's as written before the
        per-segment hash, so that older provenance is not taken for stale.
        """
        from pipeline.formats.base import UnitState  # loaded with the units: see the imports above

        if unit.state is not UnitState.FUZZY:
            return False  # untranslated units are translated anyway; confirmed ones are a human's
        record = self.machine_written(display, unit)
        return record is not None and (record.sources != unit.sources or record.inputs not in current)

    # -- saving -----------------------------------------------------------------------------

    def save(self) -> None:
        """Write what changed (atomically); no-op without a state folder."""
        if self.directory is None or not (self._changes or self._recorded or self._languages_seen):
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        from pipeline.run.locks import state_lock  # filelock only for a run that changed something

        with state_lock(self.directory / LOCK_NAME):
            if self._changes or self._languages_seen:
                on_disk = _read_json(self.directory / STATE_NAME)  # another run may have saved meanwhile
                settled, languages = _settled_from(on_disk), _languages_from(on_disk)
                for name, change in self._changes.items():
                    if change is None:
                        settled.pop(name, None)
                    else:
                        settled[name] = change
                languages.update(self._languages_seen)
                data = {
                    "version": STATE_VERSION,
                    "catalogs": {name: asdict(rec) for name, rec in sorted(settled.items())},
                    "languages": {name: list(seen) for name, seen in sorted(languages.items())},
                }
                atomic_write(self.directory / STATE_NAME, _dump(data))
                self._settled, self._languages, self._changes, self._languages_seen = settled, languages, {}, {}
            files: list[tuple[Path, Content]] = []
            saved_displays: list[str] = []
            for display, recorded in sorted(self._recorded.items()):
                path = self._provenance_path(display)
                path.parent.mkdir(parents=True, exist_ok=True)
                saved_displays.append(display)
                files.append((path, _provenance_file(display, {**_load_provenance(path), **recorded})))
            # One provenance file per catalog written: their fsyncs overlap instead of queueing.
            errors = atomic_write_all(files)
            for display, error in zip(saved_displays, errors, strict=True):
                if error is None:  # on disk now: read again if asked, not held (a run of many windows)
                    self._provenance.pop(display, None)
                    self._by_text.pop(display, None)
                    del self._recorded[display]
            failed = next((e for e in errors if e is not None), None)
            if failed is not None:
                raise failed
            self._recorded.clear()

    def _provenance_path(self, display: str) -> Path:
        assert self.directory is not None
        name = hashlib.sha256(display.encode("utf-8")).hexdigest()[:32]
        return self.directory / PROVENANCE_DIR / f"{name}.json"


def _context_of(identity: str) -> str | None:
    return identity.split("\x04", 1)[0] if "\x04" in identity else None


def _dump(data: object, indent: int | None = 1) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=indent, sort_keys=True) + "\n").encode("utf-8")


def _provenance_file(display: str, units: dict[str, Written], chunk: int = 512) -> Iterator[bytes]:
    """A provenance file's bytes, a few hundred units at a time: what ``_dump`` (compact) makes of
    ``{"version", "catalog", "units"}``, without holding a whole catalog's JSON (several times its
    size) at once. Each chunk is one encoder call (its rows are a dict's members), not two per unit."""
    encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
    yield f'{{"catalog": {encode(display)}, "units": {{'.encode()
    keys = sorted(units)
    for start in range(0, len(keys), chunk):
        rows = {key: _fields(units[key]) for key in keys[start : start + chunk]}
        yield (", " if start else "").encode() + encode(rows)[1:-1].encode("utf-8")
    yield f'}}, "version": {STATE_VERSION}}}\n'.encode()


def _fields(rec: Written) -> dict[str, object]:
    return {"sources": rec.sources, "targets": rec.targets, "inputs": rec.inputs}


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError, RecursionError):
        return {}  # missing or damaged: start afresh (everything is parsed again, nothing is lost)
    return data if isinstance(data, dict) and data.get("version") == STATE_VERSION else {}


# Each field of a settled record and the exact type it must have: these files are plain JSON anyone
# with write access to the folder can edit, so a record of any other shape is dropped, never trusted.
_SETTLED_TYPES = {
    "size": int,
    "mtime_ns": int,
    "sha256": str,
    "settings": str,
    "locale": str,
    "target_lang": str,
    "skipped": int,
}


def _settled_from(data: dict) -> dict[str, Settled]:
    settled: dict[str, Settled] = {}
    catalogs = data.get("catalogs", {})
    for name, values in catalogs.items() if isinstance(catalogs, dict) else ():
        if not isinstance(values, dict) or any(type(values.get(f)) is not kind for f, kind in _SETTLED_TYPES.items()):
            continue  # type(): a bool is no int here
        if not isinstance(values.get("languages"), (str, type(None))) or type(values.get("retry", False)) is not bool:
            continue
        if type(values.get("awaiting")) not in (int, type(None)):
            continue
        try:
            values["notices"] = tuple((*notice, None)[:4] for notice in values["notices"])
            record = Settled(**values)
            # A tampered or damaged file is a reason to parse again, never to trust a wrong shape.
            if not all(
                len(n) == 4 and (n[0] is None or type(n[0]) is int) and isinstance(n[1], str) for n in record.notices
            ):
                continue
            settled[name] = replace(
                record,
                notices=tuple(
                    (line, reason, str(Severity(severity)), str(Cause(cause).value) if cause else None)
                    for line, reason, severity, cause in record.notices
                ),
            )
        except (TypeError, ValueError, KeyError, AttributeError):
            continue
    return settled


def _languages_from(data: dict) -> dict[str, tuple[str, float]]:
    found: dict[str, tuple[str, float]] = {}
    languages = data.get("languages", {})
    for name, seen in languages.items() if isinstance(languages, dict) else ():
        if isinstance(seen, list) and len(seen) == 2 and isinstance(seen[0], str) and isinstance(seen[1], (int, float)):
            found[name] = (seen[0], float(seen[1]))
    return found


def _written_from(values: object) -> Written | None:
    if not isinstance(values, dict):
        return None
    sources, targets, inputs = values.get("sources"), values.get("targets"), values.get("inputs")
    if not (_strings(sources) and _strings(targets) and isinstance(inputs, str)):
        return None
    return Written(tuple(sources), tuple(targets), inputs)  # type: ignore[arg-type]


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _load_provenance(path: Path) -> dict[str, Written]:
    units = _read_json(path).get("units")
    if not isinstance(units, dict):
        return {}
    return {key: record for key, values in units.items() if (record := _written_from(values)) is not None}
