"""The one way the project talks to the translation service, remote or local.

::

    api_data.py     frozen result records (TranslateResult, Language, Glossary, ...)
    limits.py       client-side checks of the service's limits, before anything is sent
    requests.py     I/O-free request building: Request, Call, flows, translate_params
    reception.py    I/O-free answer handling: bounded bodies, error mapping, JSON
    responses.py    I/O-free parsers of the service's JSON into records
    retry.py        RetryPolicy, back-off with full jitter, document polling (as flows)
    endpoints.py    text, documents, Write, languages, usage, admin  } methods written once
    terminology.py  glossaries v3/v2, style rule lists              } for both shells
    base.py         what the shells share: headers, user agent, proxies, repr
    sync.py         Client       (httpx.Client): performs calls, sleeps with time.sleep
    aio.py          AsyncClient  (httpx.AsyncClient): the same, awaited
    aio_endpoints.pyi  the shared methods typed as AsyncClient returns them (coroutines), generated
    stubgen.py      writes aio_endpoints.pyi (``python -m pipeline.client.stubgen``; dev only)

A flow (a generator of calls and sleeps) carries retries and document polling, so the two shells
only know how to send one request and how to sleep. Both accept an injected httpx transport: a
remote service, ``pipeline serve``, or the embedded app
(:class:`~pipeline.service.embedded.EmbeddedTransport`, async). The commands that use the sync
shell by hand (``pipeline languages|usage|keys|document|write``) are in :mod:`pipeline.cli.client`.

Names are loaded on first use so that importing ``pipeline.cli.client`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.client.aio import AsyncClient
    from pipeline.client.api_data import (
        CustomInstruction,
        CustomTagUsage,
        CustomTagUsageReport,
        DeveloperKey,
        DictionarySummary,
        DocumentHandle,
        DocumentStatus,
        FeatureDescriptor,
        Glossary,
        GlossaryDictionary,
        GlossaryV2,
        Improvement,
        Language,
        LanguagePair,
        LanguageResource,
        LanguageV2,
        StyleRuleList,
        TranslatedDocument,
        TranslateResult,
        Translation,
        TranslationMemory,
        Usage,
    )
    from pipeline.client.requests import dictionary_from_pairs, translate_params
    from pipeline.client.retry import PollPolicy, RetryPolicy
    from pipeline.client.sync import Client
    from pipeline.errors import DocumentTranslationError

__all__ = [
    "AsyncClient",
    "Client",
    "CustomInstruction",
    "CustomTagUsage",
    "CustomTagUsageReport",
    "DeveloperKey",
    "DictionarySummary",
    "DocumentHandle",
    "DocumentStatus",
    "DocumentTranslationError",
    "FeatureDescriptor",
    "Glossary",
    "GlossaryDictionary",
    "GlossaryV2",
    "Improvement",
    "Language",
    "LanguagePair",
    "LanguageResource",
    "LanguageV2",
    "PollPolicy",
    "RetryPolicy",
    "StyleRuleList",
    "TranslateResult",
    "TranslatedDocument",
    "Translation",
    "TranslationMemory",
    "Usage",
    "dictionary_from_pairs",
    "translate_params",
]

#: Where each public name lives; loaded on first access.
_HOMES: dict[str, str] = {
    "AsyncClient": "aio",
    "Client": "sync",
    "DocumentTranslationError": "pipeline.errors",
    "PollPolicy": "retry",
    "RetryPolicy": "retry",
    "dictionary_from_pairs": "requests",
    "translate_params": "requests",
}
_HOMES.update((name, "api_data") for name in __all__ if name not in _HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = home if "." in home else f"{__name__}.{home}"
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
