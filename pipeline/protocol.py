"""The wire contract shared by the client and the local service.

Everything here is taken from ``shared/spec/service-api.md``: limits, header names, parameter
enums and the error body shape. Both halves import these names so that a limit is written once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring as _encode_string

# --- Authentication and headers -------------------------------------------------------------
AUTH_HEADER = "Authorization"
AUTH_SCHEME = "Service-Auth-Key"
REPORTING_TAG_HEADER = "X-Service-Reporting-Tag"
RETRY_AFTER_HEADER = "Retry-After"
#: Scripted failures of the local service (off unless enabled). Grammar in ``service/faults.py``.
TEST_FAULT_HEADER = "X-Test-Fault"

# --- Limits ---------------------------------------------------------------------------------
MAX_TEXTS_PER_REQUEST = 50
MAX_TRANSLATE_BODY_BYTES = 128 * 1024
MAX_WRITE_BODY_BYTES = 10 * 1024
MAX_CUSTOM_INSTRUCTIONS = 10
MAX_CUSTOM_INSTRUCTION_CHARS = 300
TM_THRESHOLD_MIN, TM_THRESHOLD_MAX, TM_THRESHOLD_DEFAULT = 0, 100, 75
MAX_ACTIVE_DEVELOPER_KEYS = 25
MAX_ANALYTICS_RANGE_DAYS = 366
MAX_GLOSSARY_PHRASE_BYTES = 1024
MAX_GLOSSARY_NAME_BYTES = 1024
MAX_GLOSSARY_DICTIONARY_BYTES = 10 * 1000 * 1000
MAX_STYLE_LIST_NAME_CHARS = 1024
MAX_STYLE_INSTRUCTIONS = 200
MAX_STYLE_INSTRUCTION_LABEL_CHARS = 100
MAX_STYLE_INSTRUCTION_PROMPT_CHARS = 300
STYLE_PAGE_SIZE_MIN, STYLE_PAGE_SIZE_MAX, STYLE_PAGE_SIZE_DEFAULT = 1, 25, 10
#: ``GET /v3/translation_memories`` pages (the spec does not show its shape; the real service's
#: OpenAPI description and both official clients do).
MEMORY_PAGE_SIZE_MIN, MEMORY_PAGE_SIZE_MAX, MEMORY_PAGE_SIZE_DEFAULT = 1, 25, 10

# --- Status codes with a meaning of their own -----------------------------------------------
STATUS_QUOTA_EXCEEDED = 456

# --- Parameter values -----------------------------------------------------------------------
SPLIT_SENTENCES = ("0", "1", "nonewlines")
MODEL_TYPES = ("latency_optimized", "quality_optimized", "prefer_quality_optimized")
FORMALITIES = ("default", "more", "less", "prefer_more", "prefer_less")
TAG_HANDLINGS = ("xml", "html")
TAG_HANDLING_VERSIONS = ("v1", "v2")
LANGUAGE_RESOURCES = ("translate_text", "translate_document", "glossary", "voice", "write", "style_rules")
LANGUAGE_INCLUDES = ("beta", "external")
#: Target languages (upper case, v2 form) for which ``formality`` works in text translation.
FORMALITY_TARGETS = frozenset({"DE", "FR", "IT", "ES", "ES-419", "NL", "PL", "PT-BR", "PT-PT", "JA", "RU"})
#: Base languages for style rule lists and ``custom_instructions``.
STYLE_LANGUAGES = ("de", "en", "es", "fr", "it", "ja", "ko", "zh")

#: Parameters of ``POST /v2/translate`` that are lists (repeated or comma-separated in forms).
TRANSLATE_LIST_PARAMS = ("text", "custom_instructions", "non_splitting_tags", "splitting_tags", "ignore_tags")
#: Parameters of ``POST /v2/translate`` that are booleans (``1``/``0`` in forms).
TRANSLATE_BOOL_PARAMS = ("preserve_formatting", "show_billed_characters", "outline_detection")


def error_body(message: str) -> dict[str, str]:
    """The JSON body of every error answer: ``{"message": "..."}``."""
    return {"message": message}


#: The encoder of :func:`encode_json`, made once (json.dumps makes one per call when given arguments).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def encode_json(payload: object) -> bytes:
    """Encode a JSON request body exactly as the client sends it (compact, UTF-8)."""
    return _COMPACT.encode(payload).encode("utf-8")


def encoded_text_size(text: str) -> int:
    """Bytes one entry of a JSON ``text`` array takes in a body made by :func:`encode_json`."""
    # What json.dumps(text, ensure_ascii=False) returns for a string, without building an encoder
    # per call: packing measures every text of a run, half a million for a large catalog.
    encoded = _encode_string(text)
    return len(encoded) if encoded.isascii() else len(encoded.encode("utf-8"))


def translate_body_size(params: dict[str, object], texts: Iterable[str]) -> int:
    """Exact size of the encoded translate body for ``params`` plus ``text=texts``.

    Measured, not estimated: equal to ``len(encode_json({**params, "text": list(texts)}))``
    without building the whole body, so batching can grow a batch one text at a time.
    """
    sizes = [encoded_text_size(t) for t in texts]
    return empty_translate_body_size(params) + sum(sizes) + max(len(sizes) - 1, 0)


def empty_translate_body_size(params: dict[str, object]) -> int:
    """Size of the encoded translate body for ``params`` with an empty ``text`` array."""
    return len(encode_json({**params, "text": []}))


# --- Glossary records -----------------------------------------------------------------------
@dataclass(frozen=True)
class Dictionary:
    """One language pair of a glossary with its entries, in the order given (base languages, lower case).

    Shared by the pipeline's glossary files and the local service's glossaries.
    """

    source_lang: str
    target_lang: str
    entries: tuple[tuple[str, str], ...]

    @property
    def pair(self) -> tuple[str, str]:
        """``(source, target)`` base codes in lower case."""
        return self.source_lang, self.target_lang


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot go in the ``Authorization`` header (never showing it), or None if it can."""
    if not key.strip():
        return "is empty"
    # Visible ASCII with spaces inside only: httpx refuses anything else, with an error quoting the header.
    if not (key.isascii() and key.isprintable() and key == key.strip()):
        return (
            "cannot be sent in an HTTP header: it holds a line break, a control character, a character "
            "outside ASCII or a space at either end (not shown here)"
        )
    return None
