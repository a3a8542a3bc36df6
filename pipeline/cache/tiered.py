"""What a run talks to: the local store as a near cache in front of an optional shared one.

Reads ask the near store first and the shared store only for what it lacks, in one round trip per
call (:meth:`TranslationCache.get_many`, one call per request group); what the shared store
answers is copied into the near store, so the next run on this machine asks it nothing. Writes go
to the near store at once (a run stopped at any moment keeps what it paid for) and to the shared
store in pipelined batches.

Neither store can fail a run: a local file that cannot be used leaves the run with a cache in
memory, a shared store that does not answer is dropped for the rest of the run; each says so
once. A local file that takes no more entries (a full disk) is still read: what earlier runs paid
for is not paid again; only what this run adds is kept in memory.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Protocol

from pipeline.cache.entry import SharedStoreError
from pipeline.cache.local import LocalStore, LocalStoreError
from pipeline.files.damaged import moved_note


class SharedStore(Protocol):
    """What the cache asks of its shared store: :class:`~pipeline.cache.shared.RedisStore`, or a stand-in."""

    @property
    def where(self) -> str: ...
    @property
    def round_trips(self) -> int: ...
    def get_many(self, keys: Iterable[str]) -> dict[str, str]: ...
    def set_many(self, items: Mapping[str, str]) -> None: ...
    def close(self) -> None: ...


# Shared writes wait for this many entries (or the end of the run): a handful of round trips per
# thousand segments, and a run stopped early loses at most this many from the shared store only.
FLUSH_AT = 500


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


class TranslationCache:
    """Verified protected translations by cache key: a local folder (or memory) before an optional shared store."""

    def __init__(
        self, directory: Path | None, shared: SharedStore | None = None, log: Callable[[str], None] | None = None
    ) -> None:
        self._log = log or _stderr
        self._memory: dict[str, str] = {}
        self._local: LocalStore | None = None
        self._shared = shared
        self._outbox: dict[str, str] = {}
        self._forgotten = False  # an entry was kept in memory only: a later run will not find it
        self._unwritable = False  # the local file failed a write (a full disk): still read, new entries in memory
        if directory is not None:
            try:
                self._local = LocalStore(directory)
            except LocalStoreError as exc:
                self._log(
                    f"warning: the translation cache in {directory} cannot be used ({exc}); this run keeps "
                    f"its translations in memory only"
                )
            else:
                moved = self._local.damaged_moved_to
                if moved is not None:
                    reason = self._local.damaged_reason
                    self._log(f"warning: the translation cache {moved_note(self._local.path, reason, moved)}")

    @property
    def shared_round_trips(self) -> int:
        """Round trips made to the shared store so far (0 without one)."""
        return self._shared.round_trips if self._shared is not None else 0

    @property
    def kept(self) -> bool:
        """Whether every entry stored so far is where a later run finds it (the cache folder or the shared store),
        as far as known: an entry still waiting for the shared store counts as kept until the store fails."""
        return not self._forgotten

    def get(self, key: str) -> str | None:
        """The cached protected translation for ``key``, or None."""
        return self.get_many((key,)).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """The cached protected translations among ``keys`` (at most one round trip to the shared store)."""
        wanted = list(dict.fromkeys(keys))
        found = self._near_get(wanted)
        missing = [key for key in wanted if key not in found]
        if missing and self._shared is not None:
            try:
                far = self._shared.get_many(missing)
            except SharedStoreError as exc:
                self._drop_shared(exc)
            else:
                found.update(far)
                self._near_set(far)
        return found

    def set(self, key: str, value: str) -> None:
        """Store a verified protected translation."""
        self.set_many({key: value})

    def set_many(self, items: Mapping[str, str]) -> None:
        """Store several verified protected translations: locally at once, in the shared store batched."""
        if not items:
            return
        self._near_set(items)
        if self._shared is not None:
            self._outbox.update(items)
            if len(self._outbox) >= FLUSH_AT:
                self.flush()

    def flush(self) -> None:
        """Send the buffered writes to the shared store (one round trip)."""
        if self._shared is None or not self._outbox:
            return
        try:
            self._shared.set_many(self._outbox)
        except SharedStoreError as exc:
            self._drop_shared(exc)
        self._outbox = {}

    def close(self) -> None:
        """Flush the shared writes and release both stores."""
        try:
            self.flush()
        finally:
            if self._shared is not None:
                self._shared.close()
            if self._local is not None:
                self._local.close()
                if self._local.lost and not self._forgotten:
                    self._forgotten = True
                    self._log(
                        f"warning: the translation cache {self._local.path} was set aside during this run (found "
                        f"damaged); some translations this run had stored in it are not in the new one (a run "
                        f"again pays for them)"
                    )

    def _near_get(self, keys: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        if self._local is not None:
            try:
                found = self._local.get_many(keys)
            except LocalStoreError as exc:
                if self._drop_local(exc):
                    return self._near_get(keys)
        if self._memory:  # without a local file, or since it took no more: this run's entries are the later ones
            found.update((key, self._memory[key]) for key in keys if key in self._memory)
        return found

    def _near_set(self, items: Mapping[str, str]) -> None:
        if self._local is not None and not self._unwritable:
            try:
                self._local.set_many(items)
                return
            except LocalStoreError as exc:
                if exc.damaged:
                    if self._drop_local(exc):
                        return self._near_set(items)
                else:  # it cannot grow (a full disk), yet what it holds is read as before
                    self._unwritable = True
                    self._log(
                        f"warning: the translation cache {self._local.path} failed ({exc}); it is still read, and "
                        f"this run keeps its new translations in memory from here on"
                    )
        self._memory.update(items)
        if self._shared is None:
            self._forgotten = True

    def _drop_local(self, exc: LocalStoreError) -> bool:
        """Go on after the local file failed: in a new file when it was damaged and could be set aside, or another
        run set it aside and made a new one (True: the caller tries again, once, since a store starts afresh
        once), else in memory."""
        assert self._local is not None
        afresh = self._local.start_afresh() if exc.damaged else None
        if afresh is not None:
            lost = ""
            if self._local.lost:
                self._forgotten = True
                lost = "; some translations this run had stored in it could not be carried over (a run again pays)"
            self._log(f"warning: the translation cache {self._local.path} failed ({exc}); {afresh}{lost}")
            return True
        self._log(
            f"warning: the translation cache {self._local.path} failed ({exc}); this run keeps its "
            f"translations in memory from here on"
        )
        self._local.close()
        self._local = None
        return False

    def _drop_shared(self, exc: SharedStoreError) -> None:
        assert self._shared is not None
        self._log(
            f"warning: the shared translation cache at {self._shared.where} is unavailable ({exc}); this "
            f"run goes on with the local cache only"
        )
        self._shared.close()
        self._shared = None
        if self._outbox and self._local is None:
            self._forgotten = True
        self._outbox = {}
