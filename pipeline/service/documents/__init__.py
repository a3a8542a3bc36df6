"""Document translation: ``POST /v2/document``, its status and its result.

Modules: ``routes`` (the endpoints) and ``upload`` (reading and checking the multipart form);
``jobs`` (table, stored files, background worker); ``formats`` (which extensions are accepted or
refused, and why) with one module per format family: ``text`` (txt, srt), ``html``, ``xliff``,
``ooxml`` (docx, pptx, xlsx); ``safezip`` (hostile ZIP packages); ``base`` (shared seam).
"""
