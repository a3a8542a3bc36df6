"""The translate request as it is sent, and the cache key that hashes exactly that request.

:func:`request_params` is the only place that says how a group of segments is sent (the options,
plus the fixed shape: XML tag handling with the placeholder tag ignored, billed characters
shown). The cache key (:func:`cache_key`) hashes those very parameters, so a change to how
requests are sent can never silently reuse results of the old shape.

The key is the SHA-256 of the service's identity (:func:`pipeline.connect.service_identity`), the
protection scheme's version (:data:`~pipeline.model.SCHEME_VERSION`), the request parameters for
the segment's options (every field of :class:`~pipeline.segments.TranslationOptions` that is sent),
the content hashes of the glossary and style list (ids name server-side objects whose content can
change under the same id; the run keys by content and leaves the ids out, see
``ResourcePlan.key_options``), for a text sent with a translation memory what the service says the
memory is now (``TranslationOptions.translation_memory_version``), and the protected text itself.
Keys never contain the service key.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import TYPE_CHECKING, Any

from pipeline.client.requests import translate_params
from pipeline.model import SCHEME_VERSION
from pipeline.placeholders.protect import TAG
from pipeline.segments import TranslationOptions

if TYPE_CHECKING:
    from pipeline.placeholders.schemes import Scheme

#: Version of the key's layout; bump it when the material hashed changes shape (CHANGELOG.md says
#: what each version hashed).
KEY_VERSION = 2


def request_params(opts: TranslationOptions) -> dict[str, Any]:
    """The translate request's parameters (without ``text``) for a group's options."""
    return dict(_params(opts))  # a copy: the cached one is shared


@functools.lru_cache(maxsize=1024)
def _params(opts: TranslationOptions) -> dict[str, Any]:
    return translate_params(
        source_lang=opts.source_lang,
        target_lang=opts.target_lang,
        context=opts.context,
        formality=opts.formality,
        glossary_id=opts.glossary_id,
        style_id=opts.style_id,
        model_type=opts.model_type,
        custom_instructions=opts.custom_instructions,
        translation_memory_id=opts.translation_memory_id,
        translation_memory_threshold=opts.translation_memory_threshold,
        tag_handling="xml",
        tag_handling_version=opts.tag_handling_version,
        ignore_tags=[TAG],
        show_billed_characters=True,
    )


#: json.dumps(text, ensure_ascii=False), its encoder made once rather than for every segment.
_TEXT = json.JSONEncoder(ensure_ascii=False)


def cache_key(service: str, options: TranslationOptions, protected_text: str) -> str:
    """The hex SHA-256 naming one translation."""
    # The bytes hashed are the sorted-key JSON of {content, key, request, scheme, service, text};
    # "text" sorts last, so everything before it is shared by all the texts of one set of options.
    encoded = _head(SCHEME_VERSION, service, options) + _TEXT.encode(protected_text) + "}"
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1024)
def _head(scheme: str, service: str, options: TranslationOptions) -> str:
    content = {"glossary": options.glossary_hash, "style": options.style_version}
    if options.translation_memory_id:  # only then: the keys of every other text stay as they were
        content["memory"] = options.translation_memory_version
    material = {
        "key": KEY_VERSION,
        "scheme": scheme,
        "service": service,
        "request": _params(options),
        "content": content,
    }
    encoded = json.dumps(material, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return encoded[:-1] + ',"text":'


def recovered_key(key: str, scheme: Scheme) -> str:
    """Where a translation a recovery scheme got past the gate is cached.

    Under the first attempt's own key, so the next run finds it without sending anything, except
    for the schemes whose result needs a reviewer's note (pieces): they are kept apart, so a cache
    hit can still say so (:func:`pipeline.run.cached.serve_from_cache` looks there too).
    """
    if scheme.needs_review_note is None:
        return key
    return hashlib.sha256(f"{key}/{scheme.value}".encode()).hexdigest()


def second_opinion_key(key: str) -> str:
    """Where the service's answer is cached when a text is asked for once more, its first answer rejected by a reviewer.

    Apart from the first answer (which other entries keep using): a later run finds both, and asks nothing.
    """
    return hashlib.sha256(f"{key}/again".encode()).hexdigest()
