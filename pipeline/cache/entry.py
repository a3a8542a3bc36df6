"""What a cache entry holds, in every store: plain JSON text, never a pickle.

An entry is ``{"v": 1, "translation": "<protected translation>"}``: the translation as the service
returned it (placeholders still as ``<x id="N"/>`` tags), stored only once it was restored and
verified. The key already names everything the translation depends on, so nothing else is needed.

Whoever can write a store (a cache folder shared between CI jobs, a Redis every runner reaches)
can put anything in it, so reading is a parse, never an evaluation: a value that is not this exact
shape is a miss, and the text is asked for again. So is a translation holding a lone surrogate
(``"\\ud800"`` is valid JSON but no character): no catalog, no UTF-8 file and no SQLite text can
hold it, so taking it would fail the run wherever it is first written.
"""

from __future__ import annotations

import hashlib
import json

from pipeline.model import SCHEME_VERSION
from pipeline.patterns import lazy_regex
from pipeline.protocol import MAX_TRANSLATE_BODY_BYTES

ENTRY_VERSION = 1
# A protected translation is one segment; anything far larger is not ours (and not worth parsing).
MAX_ENTRY_CHARS = 1_000_000
#: The longest stored entry in bytes: the largest translate answer the client reads (16 bytes per
#: byte of a request of at most 128 KiB, pipeline.client.requests) holds every entry made from it.
#: A store holding a longer value was written by someone else: it is a miss, and never read whole.
MAX_ENTRY_BYTES = 16 * MAX_TRANSLATE_BODY_BYTES


#: Half of a UTF-16 pair on its own; json.loads turns an escaped pair into one character.
_LONE_SURROGATE = lazy_regex("[\ud800-\udfff]")

#: A JSON string as json.dumps(..., ensure_ascii=False) writes it, its encoder made once.
_STRING = json.JSONEncoder(ensure_ascii=False)


def encode(translation: str) -> str:
    """The stored form of one verified protected translation.

    json.dumps({"v": 1, "translation": ...}, ensure_ascii=False, separators=(",", ":")), written out:
    the dict around the one string costs more than the string.
    """
    return f'{{"v":{ENTRY_VERSION},"translation":{_STRING.encode(translation)}}}'


def decode(stored: object) -> str | None:
    """The protected translation ``stored`` holds, or None when it is not a well-formed entry."""
    if isinstance(stored, (bytes, bytearray)):
        if len(stored) > MAX_ENTRY_BYTES:
            return None
        try:
            stored = bytes(stored).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(stored, str) or len(stored) > MAX_ENTRY_CHARS:
        return None
    try:
        data = json.loads(stored)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser recurses
        return None
    if (
        not isinstance(data, dict)
        or set(data) != {"v", "translation"}
        or type(data["v"]) is not int
        or data["v"] != ENTRY_VERSION
    ):  # type(): true == 1 in Python
        return None
    translation = data["translation"]
    if not isinstance(translation, str) or _LONE_SURROGATE().search(translation):
        return None
    return translation


class SharedStoreError(Exception):
    """The shared store cannot be reached or answered wrongly; the message names no secret."""


def namespace(service: str) -> str:
    """The key prefix of ``service``'s entries (the service is hashed: its URL stays out of key names)."""
    digest = hashlib.sha256(service.encode("utf-8")).hexdigest()[:16]
    return f"pipeline:{ENTRY_VERSION}:{SCHEME_VERSION}:{digest}:"
