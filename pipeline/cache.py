"""Content-hash cache of translations, so nothing is ever paid for twice.

Keys come from :func:`pipeline.run.request.cache_key` (a hash of the request as sent and the
protected text). The value is the protected translation as the service returned it
(placeholders still as tags), stored only once it has been restored and verified, so a damaged
answer is asked for again next time. Keys and values never contain the service key.
"""

from __future__ import annotations

from pathlib import Path


class TranslationCache:
    """A persistent (diskcache) or throw-away (in-memory) store of verified translations."""

    def __init__(self, directory: Path | None) -> None:
        self._memory: dict[str, str] | None = None
        self._disk = None
        if directory is None:
            self._memory = {}
        else:
            import diskcache

            directory.mkdir(parents=True, exist_ok=True)
            self._disk = diskcache.Cache(str(directory))

    def get(self, key: str) -> str | None:
        """The cached protected translation for ``key``, or None."""
        if self._memory is not None:
            return self._memory.get(key)
        value = self._disk.get(key)  # type: ignore[union-attr]
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        """Store a verified protected translation."""
        if self._memory is not None:
            self._memory[key] = value
        else:
            self._disk.set(key, value)  # type: ignore[union-attr]

    def set_many(self, items: dict[str, str]) -> None:
        """Store several verified protected translations in one transaction."""
        if self._memory is not None:
            self._memory.update(items)
        elif items:
            with self._disk.transact():  # type: ignore[union-attr]
                for key, value in items.items():
                    self._disk.set(key, value)  # type: ignore[union-attr]

    def close(self) -> None:
        """Release the cache's files."""
        if self._disk is not None:
            self._disk.close()
