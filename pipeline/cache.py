"""Content-hash cache of translations, so nothing is ever paid for twice.

The key is the SHA-256 of everything that changes the service's output for one text: the
service's identity, the request options (languages, context, formality, glossary id and content
hash, style list id and version, custom instructions, model type, tag-handling version, translation
memory and threshold: every field of :class:`~pipeline.model.TranslationOptions`), the fixed request
shape (tag handling and ignored tags), the protection scheme's version and the protected text itself. The value is
the protected translation as the service returned it (placeholders still as tags), stored only
once it has been restored and verified, so a damaged answer is asked for again next time.
Keys and values never contain the service key.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import fields
from pathlib import Path

from pipeline.model import SCHEME_VERSION, TranslationOptions
from pipeline.protect import TAG

# How every request is sent besides the options: a change here changes what comes back.
REQUEST_SHAPE = {"tag_handling": "xml", "ignore_tags": [TAG]}
_OPTION_FIELDS = tuple(f.name for f in fields(TranslationOptions))


def cache_key(service: str, options: TranslationOptions, protected_text: str) -> str:
    """The hex SHA-256 naming one translation."""
    # The bytes hashed are the sorted-key JSON of {options, request, scheme, service, text}; "text"
    # sorts last, so everything before it is shared by all the texts of one set of options.
    encoded = _head(SCHEME_VERSION, service, options) + json.dumps(protected_text, ensure_ascii=False) + "}"
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1024)
def _head(scheme: str, service: str, options: TranslationOptions) -> str:
    material = {"scheme": scheme, "service": service, "request": REQUEST_SHAPE,
                "options": {name: getattr(options, name) for name in _OPTION_FIELDS}}
    encoded = json.dumps(material, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return encoded[:-1] + ',"text":'


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
