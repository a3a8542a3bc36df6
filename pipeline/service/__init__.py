"""The local implementation of the translation service (a Starlette ASGI app).

``create_app(ServiceConfig(...))`` (:mod:`.app`) builds the app; ``pipeline serve`` runs it under
uvicorn (:mod:`.serve`, :mod:`.server`) and the pipeline's embedded mode calls it in-process
through ``embedded_transport(config)`` (:mod:`.embedded`: an ``httpx.ASGITransport`` that opens the
app and closes it when its client closes). Each name is imported from the module that defines it,
so that ``pipeline.service.cli`` (the parser of ``serve``) stays light.

The tree is the map: ``app`` (assembly), ``config``, ``state`` (live objects of one app),
``languages`` (the language table), ``server`` / ``cli`` / ``serve`` (``pipeline serve``),
``embedded`` (in-process transport); ``http/`` (request and answer plumbing), ``api/`` (the
endpoints, one module per route group), ``store/`` (SQLite tables and translation memories),
``engine/`` (what produces text), ``documents/`` (document formats and jobs), ``testing/``
(scripted failures).
"""
