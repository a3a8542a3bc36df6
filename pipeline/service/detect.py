"""Source-language identification with py3langid (its model ships inside the package).

The model takes most of a second to load, so it is loaded on first use (or ahead of time with
:func:`warm_up`, which ``pipeline serve`` calls in the background) and shared by all requests.
Results are limited to the service's source languages; text without any letters gives ``EN``.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from pipeline.service.languages import text_sources

FALLBACK = "EN"
#: py3langid names Norwegian Bokmål ``no``; the service says ``NB``.
_FROM_MODEL = {"no": "NB"}
_TO_MODEL = {v.lower(): k for k, v in _FROM_MODEL.items()}

_lock = threading.Lock()
_identifier: Any = None


def _load() -> Any:
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE)
            identifier.set_languages([_TO_MODEL.get(lang.code, lang.code) for lang in text_sources()])
            _identifier = identifier
    return _identifier


def warm_up() -> None:
    """Load the model now instead of on the first detection."""
    _load()


@functools.lru_cache(maxsize=8192)
def detect(text: str) -> str:
    """The most likely source language of ``text`` as an upper-case base code (``DE``)."""
    if not any(ch.isalpha() for ch in text):
        return FALLBACK
    code, _score = (_identifier or _load()).classify(text)
    return str(_FROM_MODEL.get(code, code)).upper()
