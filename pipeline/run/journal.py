"""What a run remembers between runs, next to the translation cache (provenance: :mod:`pipeline.run.provenance`).

Plain JSON written atomically:

* ``state.json``: the catalogs a run left *settled* (nothing untranslated except units skipped
  for a stable reason, no error), each with a fingerprint: size, mtime, SHA-256 of the bytes and
  a hash of every setting that changes a run's outcome. A later run with the same settings skips
  a catalog whose bytes hash the same without parsing it, and replays its skip notices into the
  report. Hashing the bytes (rather than trusting mtime) keeps this right when a tool restores
  an old mtime or two edits land within one clock tick; it costs far less than parsing. The
  mtime is recorded for people reading the file; it decides nothing. A run with nothing new
  changes nothing here, so it saves nothing (and takes no lock).
* the catalogs a refresh's merge left as their template has them (:class:`Merged`): the SHA-256 of
  the catalog's bytes and of its template's, and which template. A refresh skips the merge of a
  catalog whose bytes and template hash the same: merging them again would change nothing.
* the hash of the target languages each service offered, and when it was seen.

Not flushed to the disk before its rename (as the reports and the reuse records are not): the flush
protects nothing a later run trusts. Every record is trusted only while the catalog's bytes hash the
same (a merged one: its template's too), so an older state.json after a power cut costs parses,
never a wrong skip; a file the cut left empty, of NUL bytes or cut short is read as holding nothing
and written again (:func:`pipeline.files.own.parse_json`). A run of many windows saves once per
window, and each flush held the run's one thread.

Two runs may share a cache folder (parallel CI jobs on one persisted cache): each save takes a
lock, re-reads what is on disk and applies only this run's own changes to it, so neither run
drops what the other settled or recorded. Two runs on the same catalogs also take turns on each
catalog (:mod:`pipeline.run.locks`), so what one translates the other finds done instead of paying
for it again. The locks name a catalog by its real path: two checkouts of one project (two CI jobs,
each in its own clone, sharing one cache) do not take turns, and what one has in flight when the
other asks is paid by both; only what is already cached is shared.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from pipeline.config import Settings, as_data
from pipeline.distribution import __version__
from pipeline.files.atomic import atomic_write
from pipeline.files.own import CACHE_SETTING, NotOurs, check_ours, parse_json
from pipeline.files.untrusted import read_regular
from pipeline.model import SCHEME_VERSION, Cause, Severity

_Record = TypeVar("_Record")

STATE_VERSION = 1
STATE_NAME = "state.json"
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
    relevant = {name: as_data(value) for name, value in settings._asdict().items() if name not in _OUTCOME_NEUTRAL}
    material = json.dumps(
        {"settings": relevant, "version": __version__, "scheme": SCHEME_VERSION}, sort_keys=True, default=_jsonable
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def stale_hash(fingerprint: str, terminology: str | None) -> str:
    """The fingerprint a run that redoes stale machine translations (a refresh) settles catalogs with.

    Such a unit is stale when its source changed (the catalog's bytes say so) or the glossary or
    style it was translated with did: ``terminology`` (:func:`pipeline.resources.synced.fingerprint`,
    the files' bytes) is part of the fingerprint, so an edited glossary file unsettles every catalog.
    """
    material = json.dumps({"settings": fingerprint, "terminology": terminology, "retranslate_stale": True})
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _jsonable(value: object) -> object:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    if hasattr(value, "items"):
        return dict(value.items())
    return repr(value) if not isinstance(value, Path) else str(value)


class Settled(NamedTuple):
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


class Merged(NamedTuple):
    """A catalog as a refresh's merge left it: merged again with the same template, it would not change."""

    template: str  # the template's path as displayed (another template is another merge)
    template_sha256: str
    sha256: str  # the catalog's bytes after the merge (as written, or as read when it changed nothing)
    version: str = __version__  # the merge of another version may decide otherwise


class Journal:
    """What runs remember of catalogs and services: settled catalogs, language lists; saved atomically when changed."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._settled: dict[str, Settled] = {}
        self._changes: dict[str, Settled | None] = {}  # this run's settle/unsettle, applied on save
        self._languages: dict[str, tuple[str, float]] = {}  # service -> (hash of its list, when seen)
        self._languages_seen: dict[str, tuple[str, float]] = {}  # this run's, applied on save
        self._merged: dict[str, Merged] = {}
        self._merged_changes: dict[str, Merged | None] = {}  # this run's, applied on save
        # state.json as this run last read or wrote it: while the file is that one, _settled,
        # _languages and _merged are what it holds (an atomic write makes a new file, so another run's save shows).
        self._synced: _FileIdentity = None
        # Why state.json as last read is not ours (None: it is, or there is none): a save then leaves it as it is.
        self._foreign: str | None = None
        # Each settled record as state.json holds it, kept from one save to the next: a run of many
        # windows saves once per window, and encodes only the records that changed since the last.
        self._encoded: dict[str, tuple[Settled, str]] = {}
        self.reload()

    def reload(self) -> None:
        """Read the state again (another run saved it while this one waited for its catalogs); saved changes only."""
        self._settled, self._languages, self._merged, self._synced = self._read()
        self._changes, self._languages_seen, self._merged_changes = {}, {}, {}

    def _read(
        self,
    ) -> tuple[dict[str, Settled], dict[str, tuple[str, float]], dict[str, Merged], _FileIdentity]:
        """What state.json holds, and the identity of the file read (taken first: a file replaced meanwhile
        is then read again at the next save, never trusted as read)."""
        if self.directory is None:
            return {}, {}, {}, None
        path = self.directory / STATE_NAME
        identity = _identity(path)
        try:
            raw = read_regular(path)
        except OSError:
            raw = b""  # missing or unreadable: start afresh (a save says why it cannot write there)
        parsed, self._foreign = parse_json(raw, "catalogs")  # every version writes "catalogs" first
        data = this_version(parsed)
        return _settled_from(data), _languages_from(data), _merged_from(data), identity

    # -- settled catalogs -------------------------------------------------------------------

    def unchanged(self, display: str, path: Path, settings: str | tuple[str, ...], service: str = "") -> Settled | None:
        """The settled record of ``display`` when the file still has the recorded bytes and settings (one of them).

        A catalog settled because ``service`` did not offer its language stays settled only while
        the service's language list, as last seen (at most :data:`LANGUAGES_TTL` ago), is the same.
        """
        record = self._settled.get(display)
        if record is None or record.settings not in ((settings,) if isinstance(settings, str) else settings):
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
        return record  # same bytes (a checkout or ``touch`` may have changed the mtime, which decides nothing)

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

    # -- merged catalogs --------------------------------------------------------------------

    def merged(self, display: str, template: str, template_sha256: str, sha256: str) -> bool:
        """Whether ``display``, with bytes hashing to ``sha256``, is what merging it with this template left."""
        return self._merged.get(display) == Merged(template, template_sha256, sha256)

    def note_merged(self, display: str, record: Merged | None) -> None:
        """Remember what a merge left ``display`` as (None: forget it, the catalog was not merged)."""
        if self._merged.get(display) != record:
            if record is None:
                self._merged.pop(display, None)
            else:
                self._merged[display] = record
            self._merged_changes[display] = record

    # -- saving -----------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        """Whether this run settled, unsettled or saw something not saved yet."""
        return bool(self._changes or self._languages_seen or self._merged_changes)

    def save(self) -> None:
        """Write what changed into ``state.json``, atomically; no-op without a state folder.

        What another run saved meanwhile is kept: the caller holds the state's lock
        (:func:`~pipeline.files.lockfile.state_lock_path`).
        """
        if self.directory is None or not self.changed:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / STATE_NAME
        if self._synced is not None and _identity(path) == self._synced:  # the file is as this run left it
            settled, languages, merged = dict(self._settled), dict(self._languages), dict(self._merged)
        else:  # another run saved meanwhile (or this one never read the file): merge into what it holds
            settled, languages, merged, _ = self._read()
        settled, merged = _applied(settled, self._changes), _applied(merged, self._merged_changes)
        languages.update(self._languages_seen)
        # [cache] dir may name any folder: never another program's file (told by what it held when read).
        check_ours(path, None, CACHE_SETTING)
        if self._foreign is not None:
            raise NotOurs(path, self._foreign, CACHE_SETTING)
        rest = {
            "version": STATE_VERSION,
            "languages": {name: list(seen) for name, seen in sorted(languages.items())},
            "merged": {name: rec._asdict() for name, rec in sorted(merged.items())},
        }
        atomic_write(path, self._dump(settled, rest), durable=False)  # see the module's docstring
        self._settled, self._languages, self._merged = settled, languages, merged
        self._changes, self._languages_seen, self._merged_changes = {}, {}, {}
        self._synced, self._foreign = _identity(path), None

    def _dump(self, settled: dict[str, Settled], rest: dict[str, object]) -> bytes:
        """state.json's bytes: ``settled`` as ``"catalogs"`` and the keys of ``rest``, as :func:`dump_json` on one
        line writes them (on one line: the encoder written in C serializes it, an indented dump takes the
        pure-Python one). A record encoded for an earlier save is not encoded again."""
        encoded: dict[str, tuple[Settled, str]] = {}
        for name, record in settled.items():
            kept = self._encoded.get(name)
            if kept is None or kept[0] is not record:
                text = json.dumps(_record_json(record), ensure_ascii=False, sort_keys=True)
                kept = (record, f"{json.dumps(name, ensure_ascii=False)}: {text}")
            encoded[name] = kept
        self._encoded = encoded
        catalogs = ", ".join(encoded[name][1] for name in sorted(encoded))
        others = json.dumps(rest, ensure_ascii=False, sort_keys=True)  # "catalogs" sorts before every other key
        return f'{{"catalogs": {{{catalogs}}}, {others[1:]}\n'.encode()


def _applied(records: dict[str, _Record], changes: dict[str, _Record | None]) -> dict[str, _Record]:
    """``records`` as saved, with this run's ``changes`` on top (None: removed)."""
    for name, change in changes.items():
        if change is None:
            records.pop(name, None)
        else:
            records[name] = change
    return records


def dump_json(data: object, indent: int | None = 1) -> bytes:
    """``data`` as the state files hold it: sorted keys, UTF-8."""
    return (json.dumps(data, ensure_ascii=False, indent=indent, sort_keys=True) + "\n").encode("utf-8")


#: What tells one state.json from another: a save replaces the file (a new inode), and its size and times.
_FileIdentity = tuple[int, int, int, int, int] | None


def _identity(path: Path) -> _FileIdentity:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _record_json(record: Settled) -> dict[str, object]:
    """A settled record as state.json holds it (its fields are plain values and tuples of them)."""
    return record._asdict()


def read_json(path: Path) -> dict[str, Any]:
    """A state file's JSON object of this version; empty when it is missing, damaged or of another version."""
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError, RecursionError):
        return {}  # missing or damaged: start afresh (everything is parsed again, nothing is lost)
    return this_version(data)


def this_version(data: object) -> dict[str, Any]:
    """``data`` when it is a state file's JSON object of this version; empty otherwise."""
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


_MERGED_FIELDS = set(Merged._fields)


def _settled_from(data: dict[str, Any]) -> dict[str, Settled]:
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
            settled[name] = record._replace(
                notices=tuple(
                    (line, reason, str(Severity(severity)), str(Cause(cause).value) if cause else None)
                    for line, reason, severity, cause in record.notices
                ),
            )
        except (TypeError, ValueError, KeyError, AttributeError):
            continue
    return settled


def _merged_from(data: dict[str, Any]) -> dict[str, Merged]:
    found: dict[str, Merged] = {}
    merged = data.get("merged", {})
    for name, values in merged.items() if isinstance(merged, dict) else ():
        if isinstance(values, dict) and set(values) == _MERGED_FIELDS and all(type(v) is str for v in values.values()):
            found[name] = Merged(**values)  # any other shape: merged again, never trusted
    return found


def _languages_from(data: dict[str, Any]) -> dict[str, tuple[str, float]]:
    found: dict[str, tuple[str, float]] = {}
    languages = data.get("languages", {})
    for name, seen in languages.items() if isinstance(languages, dict) else ():
        if isinstance(seen, list) and len(seen) == 2 and isinstance(seen[0], str) and isinstance(seen[1], (int, float)):
            found[name] = (seen[0], float(seen[1]))
    return found
