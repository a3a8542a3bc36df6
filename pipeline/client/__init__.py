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
shell by hand (``pipeline languages|usage|keys|document|write``) are in :mod:`pipeline.cli.commands.client`.

Each name is imported from the module that defines it (``from pipeline.client.aio import
AsyncClient``): the I/O-free modules load no httpx, so a run builds its requests and cache keys
without the client, which is loaded only once a request is sent.
"""
