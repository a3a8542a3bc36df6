"""Talking to the service: the client a run uses, one translate request as it is sent, and the
cache key that hashes exactly that request.

:func:`request_params` is the only place that says how a group of segments is sent (the options,
plus the fixed shape: XML tag handling with the placeholder tag ignored, billed characters
shown). The cache key (:func:`cache_key`) hashes those very parameters, so a change to how
requests are sent can never silently reuse results of the old shape.

The key is the SHA-256 of the service's identity, the protection scheme's version
(:data:`~pipeline.model.SCHEME_VERSION`), the request parameters for the segment's options
(every field of :class:`~pipeline.model.TranslationOptions` that is sent), the content hashes
of the glossary and style list (ids name server-side objects whose content can change under the
same id; the run keys by content and leaves the ids out, see ``ResourcePlan.key_options``), for a
text sent with a translation memory what the service says the memory is now
(``TranslationOptions.translation_memory_version``), and the protected text itself. Keys never
contain the service key.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipeline.config import ENV_AUTH_KEY, Settings
from pipeline.errors import UsageError
from pipeline.model import SCHEME_VERSION, TranslationOptions
from pipeline.version import __version__

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient
    from pipeline.placeholders.schemes import Scheme

ClientFactory = Callable[[], "AsyncClient"]
EMBEDDED_BASE_URL = "http://embedded.invalid"

#: Version of the key's layout; bump it when the material hashed changes shape. 2: the request's
#: parameters as sent (issue 16) instead of a separate copy of the request shape.
KEY_VERSION = 2


def service_identity(settings: Settings) -> str:
    """What names the service in cache keys and reports: results of one service are not reused for another."""
    if settings.service.embedded:
        return f"embedded/{__version__}"
    return (settings.service.url or "").rstrip("/")


def open_client(settings: Settings, log: Callable[[str], None]) -> AsyncClient:
    """The async client the settings describe: the embedded service in-process, or the configured URL."""
    import secrets  # here, not at the top: the no-op run imports this module but never opens a client

    from pipeline.client import AsyncClient, RetryPolicy

    retry = RetryPolicy(max_attempts=settings.service.max_attempts)
    common: dict[str, Any] = {
        "retry": retry,
        "timeout": settings.service.timeout,
        "reporting_tag": settings.service.reporting_tag,
    }
    if settings.service.embedded:
        from pipeline.service import AccountSpec, ServiceConfig, embedded_transport

        key = secrets.token_urlsafe(24)  # lives only in this process
        # Closing the client (client.aclose()) closes the service: its database and document worker.
        transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (key,)),)))
        log("using the embedded local service (in-process pseudo-translation, no network, no account)")
        # The app is called directly (pipeline.client.inprocess): the same app and answers, without HTTP objects.
        return AsyncClient(EMBEDDED_BASE_URL, key, transport=transport, app=transport.service, **common)
    remote_key = os.environ.get(ENV_AUTH_KEY)
    if not remote_key or not settings.service.url:
        raise UsageError(f"the service at {settings.service.url} needs a key: set {ENV_AUTH_KEY}")
    log(f"using the translation service at {settings.service.url}")
    return AsyncClient(settings.service.url, remote_key, **common)


def request_params(opts: TranslationOptions) -> dict[str, Any]:
    """The translate request's parameters (without ``text``) for a group's options."""
    return dict(_params(opts))  # a copy: the cached one is shared


@functools.lru_cache(maxsize=1024)
def _params(opts: TranslationOptions) -> dict[str, Any]:
    # Imported here, not at the top: the no-op run names this module (service_identity) and must
    # load neither httpx (the client checks the values against the spec) nor the placeholder grammars.
    from pipeline.client.requests import translate_params
    from pipeline.placeholders.protect import TAG

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
