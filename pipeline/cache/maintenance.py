"""``pipeline cache stats|clear`` on either store: what the cache holds, and emptying it.

Both return plain dicts (printed as text or JSON by the CLI). A store that cannot be reached is
reported in its entry (``"error"``), never raised: stats of the local folder are still worth
showing when Redis is down. Clearing the shared store is opt-in (``shared=True``): every runner
and developer pointed at it would pay again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cache import open_shared
from pipeline.cache.entry import SharedStoreError, namespace
from pipeline.cache.local import FILE_NAME, LocalStore, LocalStoreError, created
from pipeline.config import Settings

if TYPE_CHECKING:
    from pipeline.cache.shared import RedisStore
from pipeline.errors import redact_url

#: One store's figures (``entries``, ``bytes``, ``cleared``, ``error``, ``path``/``url``); None when not configured.
Figures = dict[str, object]


def cache_stats(settings: Settings, service: str) -> dict[str, Figures | None]:
    """Entries and sizes of the local store and (when configured) of ``service``'s shared namespace."""
    return {
        "local": _local(settings.cache_dir, LocalStore.stats, {"entries": 0, "bytes": 0, "legacy_bytes": 0}),
        "shared": _shared(settings, service, lambda store: store.stats()),
    }


def clear_cache(
    settings: Settings, service: str, *, shared: bool = False, every_service: bool = False
) -> dict[str, Figures | None]:
    """Empty the local store and, with ``shared``, ``service``'s shared entries (every service's too)."""
    result: dict[str, Figures | None] = {
        "local": _local(settings.cache_dir, lambda store: {"cleared": store.clear()}, {"cleared": 0})
    }
    if shared:
        result["shared"] = _shared(
            settings, service, lambda store: {"cleared": store.clear(every_namespace=every_service)}
        )
    return result


def _local(
    folder: Path | None, action: Callable[[LocalStore], dict[str, object]], untouched: dict[str, object]
) -> dict[str, object] | None:
    if folder is None:
        return None
    where = {"path": str(folder / FILE_NAME)}
    if not created(folder):
        return {**where, **untouched}  # never created: nothing to count or clear, and nothing to create
    try:
        store = LocalStore(folder)
    except LocalStoreError as exc:
        return {**where, "error": str(exc)}
    try:
        try:
            figures = action(store)
        except LocalStoreError as exc:  # malformed past a schema that opened: set aside now, if it can be
            if not exc.damaged or store.start_afresh() is None:
                raise
            figures = action(store)
    except LocalStoreError as exc:
        return {**where, "error": str(exc)}
    finally:
        store.close()
    if store.damaged_moved_to is not None:  # not a database SQLite could read: moved, a new one made
        where["set_aside"] = str(store.damaged_moved_to)
    return {**where, **figures}


def _shared(
    settings: Settings, service: str, action: Callable[[RedisStore], dict[str, object]]
) -> dict[str, object] | None:
    if not settings.cache_url:
        return None
    where = {"url": redact_url(settings.cache_url), "namespace": namespace(service)}
    try:
        store = open_shared(settings, service)
    except SharedStoreError as exc:
        return {**where, "error": str(exc)}
    if store is None:
        return None
    try:
        return {**where, **action(store)}
    except SharedStoreError as exc:
        return {**where, "error": str(exc)}
    finally:
        store.close()
