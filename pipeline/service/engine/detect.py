"""Source-language identification with py3langid (its model ships inside the package).

The model takes most of a second to load, so it is loaded on first use (or ahead of time with
:func:`warm_up`, which ``pipeline serve`` calls in the background) and shared by all requests.
Results are limited to the source languages whose ``auto_detection`` feature the language data
lists for the resource asked about (the real service detects those only: any of 32 for
translation, one of the nine Write languages for Write); text without any letters, or with
nothing the model can tell apart (``Hi`` scores the same in every language), gives ``EN``.

:func:`detect` always answers (translation needs a source language); :func:`detect_reliably`
answers only when the text is long enough and the model sure enough to refuse a request on it
(Write's rule that the text's language equals the target): short texts such as ``Hello``
(detected as Finnish) or ``Bonjour`` (58 %) are too unreliable for that. :func:`detect_outside`
answers, as sure, that a text is in none of a resource's languages (Write without a target).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from pipeline.service.languages import TEXT, has_feature, resource_entries, text_sources

FALLBACK = "EN"
#: Thresholds of :func:`detect_reliably`: letters in the text, and the model's probability.
RELIABLE_MIN_LETTERS = 20
RELIABLE_MIN_CONFIDENCE = 0.99
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

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            detectable = [lang.code for lang in text_sources() if has_feature(TEXT, lang.code, "auto_detection")]
            identifier.set_languages([_TO_MODEL.get(code, code) for code in detectable])
            _identifier = identifier
    return _identifier


def warm_up() -> None:
    """Load the model now instead of on the first detection."""
    _load()


@functools.lru_cache(maxsize=8192)
def _ranked(text: str) -> tuple[tuple[str, float], ...]:
    """Every detectable language with its probability for ``text``, most likely first."""
    ranked = (_identifier or _load()).rank(text)
    return tuple((str(_FROM_MODEL.get(code, code)).upper(), float(p)) for code, p in ranked)


def _classify(text: str) -> tuple[str, float]:
    return _ranked(text)[0]


@functools.cache
def _detectable(resource: str) -> frozenset[str]:
    return frozenset(e.language.code.upper() for e in resource_entries(resource) if "auto_detection" in e.features)


def detect(text: str, resource: str = TEXT) -> str:
    """The most likely source language of ``text`` among those ``resource`` detects, upper-case base code (``DE``)."""
    if not any(ch.isalpha() for ch in text):
        return FALLBACK
    ranked = _ranked(text)
    if ranked[0][1] == ranked[-1][1]:  # a tie: nothing in the text points to any language
        return FALLBACK
    wanted = _detectable(resource)
    return next((code for code, _ in ranked if code in wanted), FALLBACK)


def detect_outside(text: str, resource: str) -> str | None:
    """The most likely language of ``text`` when it is reliably none that ``resource`` detects, else None.

    Reliable as in :func:`detect_reliably`: enough letters, and the languages of ``resource`` together
    below the odds it accepts for one (Russian is not taken for a Write language because Ukrainian
    and Bulgarian share its words).
    """
    if sum(ch.isalpha() for ch in text) < RELIABLE_MIN_LETTERS:
        return None
    ranked = _ranked(text)
    wanted = _detectable(resource)
    inside = sum(probability for code, probability in ranked if code in wanted)
    return ranked[0][0] if inside <= 1 - RELIABLE_MIN_CONFIDENCE and ranked[0][0] not in wanted else None


def detect_reliably(text: str) -> str | None:
    """Like :func:`detect`, or None when the text is too short or the model unsure (see thresholds)."""
    if sum(ch.isalpha() for ch in text) < RELIABLE_MIN_LETTERS:
        return None
    code, probability = _classify(text)
    return code if probability >= RELIABLE_MIN_CONFIDENCE else None
