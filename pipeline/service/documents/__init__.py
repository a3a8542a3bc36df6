"""Document translation behind ``POST /v2/document`` (the endpoints are ``api.documents``).

Modules: ``jobs`` (table, stored files, background worker); ``formats`` (which extensions are accepted or
refused, and why) with one module per format family: ``text`` (txt, srt), ``html``, ``xliff``,
``ooxml`` (docx, pptx, xlsx); ``safezip`` (hostile ZIP packages); ``base`` (shared seam).
"""
