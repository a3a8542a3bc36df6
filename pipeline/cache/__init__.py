"""The translation cache: verified translations by content hash, so nothing is paid for twice.

::

    TranslationCache           tiered.py: what a run talks to (get, get_many, set, set_many, close)
      near  LocalStore          local.py: SQLite in the cache folder ([cache] dir), or memory
      far   RedisStore | None   shared.py: Redis/Valkey ([cache] url or PIPELINE_CACHE_URL), optional
    entry                       entry.py: the one value format of every store (plain JSON)
    maintenance                 maintenance.py: ``pipeline cache stats|clear`` on either store

Keys come from :func:`pipeline.run.keys.cache_key` (a hash of the request as sent and the
protected text); this package stores and finds them, and never computes one.

Values are plain data in every store, never pickles: whoever can write a cache folder or reach the
shared Redis can make a run miss, never make it run code. The run state that lets unchanged
catalogs be skipped is not here: it describes local files, so it stays in the working tree's own
cache folder (:mod:`pipeline.state`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.cache.entry import SharedStoreError, namespace
from pipeline.cache.local import created
from pipeline.cache.tiered import TranslationCache
from pipeline.config import Settings
from pipeline.distribution import install_hint

if TYPE_CHECKING:  # loaded by open_shared, when a shared cache is configured
    from pipeline.cache.shared import RedisStore

__all__ = ["SharedStoreError", "TranslationCache", "holds_nothing", "open_cache", "open_shared"]


def open_shared(settings: Settings, service: str) -> RedisStore | None:
    """The shared store ``settings`` name for ``service``'s entries, or None (raises SharedStoreError).

    The front door of the shared store: redis, an extra, is loaded here and only here, when a
    shared cache is configured; an install without it is told how to add it (the run goes on
    with its local cache).
    """
    if not settings.cache_url:
        return None
    try:
        from pipeline.cache.shared import RedisStore
    except ImportError:
        raise SharedStoreError(f"the redis package is not installed ({install_hint('redis')})") from None
    return RedisStore(settings.cache_url, namespace(service), settings.cache_ttl)


def holds_nothing(settings: Settings, enabled: bool = True) -> bool:
    """Whether the cache a run opens certainly holds no translation yet: off (``--no-cache``: in memory,
    for the run), no folder, or a folder with no cache file; and no shared store."""
    if not enabled:
        return True
    if settings.cache_url:
        return False
    return settings.cache_dir is None or not created(settings.cache_dir)


def open_cache(
    settings: Settings,
    service: str,
    log: Callable[[str], None],
    *,
    enabled: bool = True,
) -> TranslationCache:
    """The cache a run of ``service`` uses: local folder, shared store in front of it when configured.

    ``enabled=False`` (``--no-cache``) gives a cache in memory that lives for this run only.
    """
    if not enabled:
        return TranslationCache(None, log=log)
    try:
        shared = open_shared(settings, service)
    except SharedStoreError as exc:
        log(f"warning: the shared translation cache cannot be used ({exc}); this run goes on with the local cache only")
        shared = None
    return TranslationCache(settings.cache_dir, shared, log)
