"""Glossaries, style rule lists, formality, model type and translation memory per target locale.
::

    settings.py        the [resources], [locale_defaults] and [locales.<code>] config tables
    glossary_files.py  reading and validating the glossary files of the repository (offline)
    targets.py         per target: what a request carries, and the content hashes the cache keys use
    features.py        which language supports which feature (GET /v3/languages, .../resources)
    glossary_sync.py   one v3 glossary per project, one dictionary per pair, found by its name
    style_sync.py      one style rule list per target locale, found by its name
    attach.py          what ``pipeline translate`` calls: sync what the run needs, fill the options

Nothing here is imported when the configuration is loaded except ``settings`` (stdlib only); the
sync modules need the client (httpx) and are imported only when a request is really sent.
"""
