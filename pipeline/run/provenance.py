"""What the pipeline wrote into each catalog: ``provenance/<hash>.json`` in the run state's folder.

One file per catalog, read only when the catalog is parsed: for every unit the pipeline wrote, its
identity (msgctxt + msgid, which survives reordering), the source it was translated from, the
translation written, and the hash of the other inputs (the glossary entries its source contains,
style list, formality, ...: so a changed term makes stale only the units that contain it). A fuzzy
unit whose target still equals what we wrote is an untouched machine translation; any other
target is a human's. Saved with the run state, under its lock (:mod:`pipeline.run.journal`).

What reviewers rejected: ``rejections.json`` beside it (:class:`Rejections`). ``pipeline review``
empties a rejected entry so that the next run translates it again; with the same inputs the
cache (or the service) would give the very text the reviewer rejected. So the rejection is
remembered, and a run does not write that text for that entry again
(:mod:`pipeline.run.orchestrate.rejected`). An entry is named apart from any catalog: the target
language (the service's code, which the text was translated into), the context (msgctxt) and the
source texts (every form; for a key-based XLIFF key, the text it stands for); for each, the
SHA-256 of every text rejected for it (all its forms). A catalog renamed or moved, or a sibling
catalog with the same entry, keeps the rejection. The file holds the catalogs' own texts and
hashes, never a key or anything of the service's account. Saved atomically under the run state's
lock, merged with what is on disk, so two review sessions never drop each other's records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from pipeline.catalogs import Unit, UnitState
from pipeline.files.atomic import Content, atomic_write
from pipeline.files.lockfile import state_lock
from pipeline.files.swap import atomic_write_all
from pipeline.run.journal import STATE_VERSION, dump_json, read_json, state_lock_path

__all__ = [
    "PROVENANCE_DIR",
    "REJECTIONS_NAME",
    "Entry",
    "Provenance",
    "Rejections",
    "Written",
    "text_hash",
    "unit_identity",
]

PROVENANCE_DIR = "provenance"
REJECTIONS_NAME = "rejections.json"


def unit_identity(unit: Unit) -> str:
    """msgctxt + msgid, as gettext names a message (``ctx\\x04id``)."""
    return unit.sources[0] if unit.context is None else f"{unit.context}\x04{unit.sources[0]}"


@dataclass(frozen=True, slots=True)
class Written:
    """Provenance of one unit the pipeline wrote."""

    sources: tuple[str, ...]
    targets: tuple[str, ...]
    inputs: str


class Provenance:
    """What the pipeline wrote, per catalog: loaded on first use, this run's records held until saved."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._provenance: dict[str, dict[str, Written]] = {}
        self._recorded: dict[str, dict[str, Written]] = {}  # this run's provenance, applied on save
        self._by_text: dict[str, dict[tuple[str | None, tuple[str, ...]], Written]] = {}  # (msgctxt, targets)

    def provenance(self, display: str) -> dict[str, Written]:
        """What the pipeline wrote into ``display``, by unit identity (loaded on first use, with what
        this run recorded and has not saved yet)."""
        if display not in self._provenance:
            loaded = _load(self._path(display)) if self.directory is not None else {}
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
        if unit.state is not UnitState.FUZZY:
            return False  # untranslated units are translated anyway; confirmed ones are a human's
        record = self.machine_written(display, unit)
        return record is not None and (record.sources != unit.sources or record.inputs not in current)

    def reload(self) -> None:
        """Forget what was loaded (another run may have written these catalogs meanwhile); this run's records stay."""
        self._provenance.clear()
        self._by_text.clear()

    @property
    def changed(self) -> bool:
        """Whether this run recorded something not saved yet."""
        return bool(self._recorded)

    def save(self) -> None:
        """Write the provenance of the catalogs this run wrote into, atomically (the caller holds the state's lock)."""
        if self.directory is None or not self._recorded:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        files: list[tuple[Path, Content]] = []
        saved_displays: list[str] = []
        for display, recorded in sorted(self._recorded.items()):
            path = self._path(display)
            path.parent.mkdir(parents=True, exist_ok=True)
            saved_displays.append(display)
            files.append((path, provenance_file(display, {**_load(path), **recorded})))
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

    def _path(self, display: str) -> Path:
        return provenance_path(self.directory, display) if self.directory is not None else Path(display)


def provenance_path(directory: Path, display: str) -> Path:
    """Where the provenance of catalog ``display`` is kept in the state folder ``directory``."""
    name = hashlib.sha256(display.encode("utf-8")).hexdigest()[:32]
    return directory / PROVENANCE_DIR / f"{name}.json"


def _context_of(identity: str) -> str | None:
    return identity.split("\x04", 1)[0] if "\x04" in identity else None


def provenance_file(display: str, units: dict[str, Written], chunk: int = 512) -> Iterator[bytes]:
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


def _written_from(values: object) -> Written | None:
    if not isinstance(values, dict):
        return None
    sources, targets, inputs = values.get("sources"), values.get("targets"), values.get("inputs")
    if not (_strings(sources) and _strings(targets) and isinstance(inputs, str)):
        return None
    return Written(tuple(sources), tuple(targets), inputs)


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _load(path: Path) -> dict[str, Written]:
    units = read_json(path).get("units")
    if not isinstance(units, dict):
        return {}
    return {key: record for key, values in units.items() if (record := _written_from(values)) is not None}


# -- what reviewers rejected ---------------------------------------------------------------

#: An entry as rejections name it: (target language, context, source forms).
Entry = tuple[str, str | None, tuple[str, ...]]


def text_hash(forms: Sequence[str]) -> str:
    """The hex SHA-256 naming a translation (every form)."""
    return hashlib.sha256(json.dumps(list(forms), ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _name(entry: Entry) -> str:
    """The file's key for ``entry``: a hash, so that two sessions merging records agree on it."""
    return text_hash([entry[0], entry[1] or "", "\x00", *entry[2]])


class Rejections:
    """The rejections recorded in the state folder ``directory`` (read when made; nothing without a folder)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._rejected: dict[Entry, set[str]] = {}
        if directory is not None:
            self._rejected = _load_rejections(directory / REJECTIONS_NAME)

    def __bool__(self) -> bool:
        return bool(self._rejected)

    def texts(self, entry: Entry) -> frozenset[str]:
        """The hashes of the texts rejected for ``entry``."""
        return frozenset(self._rejected.get(entry, ()))

    def rejects(self, entry: Entry, forms: Sequence[str]) -> bool:
        """Whether a reviewer rejected exactly ``forms`` as ``entry``'s translation."""
        found = self._rejected.get(entry)
        return found is not None and text_hash(forms) in found

    def record(self, entry: Entry, forms: Sequence[str]) -> None:
        """Remember that a reviewer rejected ``forms`` for ``entry``, merged into the file at once.

        Raises OSError when it cannot be saved (no state folder: :class:`FileNotFoundError`).
        """
        if self.directory is None:
            raise FileNotFoundError("no cache folder to keep the run state in ([cache] dir is empty)")
        self.directory.mkdir(parents=True, exist_ok=True)
        with state_lock(state_lock_path(self.directory)):
            path = self.directory / REJECTIONS_NAME
            rejected = _load_rejections(path)  # another session or run may have saved meanwhile
            rejected.setdefault(entry, set()).add(text_hash(forms))
            atomic_write(path, dump_json(_rejections_file(rejected)))
        self._rejected = rejected


def _rejections_file(rejected: dict[Entry, set[str]]) -> dict[str, object]:
    entries = {
        _name(entry): {"language": entry[0], "context": entry[1], "sources": list(entry[2]), "texts": sorted(texts)}
        for entry, texts in rejected.items()
    }
    return {"version": STATE_VERSION, "entries": dict(sorted(entries.items()))}


def _load_rejections(path: Path) -> dict[Entry, set[str]]:
    """The file's records; a record of any other shape is dropped (the file is plain JSON anyone may edit)."""
    entries = read_json(path).get("entries")
    found: dict[Entry, set[str]] = {}
    for values in entries.values() if isinstance(entries, dict) else ():
        if not isinstance(values, dict):
            continue
        language, context, sources, texts = (values.get(k) for k in ("language", "context", "sources", "texts"))
        if not (isinstance(language, str) and isinstance(context, (str, type(None)))):
            continue
        if not (_strings(sources) and sources and _strings(texts)):
            continue
        entry = (language, context, tuple(sources))
        found.setdefault(entry, set()).update(texts)
    return found
