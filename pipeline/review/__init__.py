"""``pipeline review``: a local web page to review what machine translation wrote.

The entries awaiting review (fuzzy PO entries, XLIFF units marked for review) of the catalogs a
run would find are listed, machine translations first, with what a reviewer needs beside them
(:mod:`~pipeline.review.entries`); the reviewer accepts, edits, rejects or keeps each one with a
note, and each decision is written to its catalog at once (:mod:`~pipeline.review.session`).

* :mod:`~pipeline.review.session`: the catalogs, their entries, the decisions and the
  check-and-swap writes, and the rejections remembered for the next run
  (:class:`pipeline.run.provenance.Rejections`); nothing is sent to the translation service.
* :mod:`~pipeline.review.entries`: provenance, the checks' verdict, texts cut at placeholders,
  plural forms with their numbers, the previous source.
* :mod:`~pipeline.review.views`: the JSON the page reads.
* :mod:`~pipeline.review.app`: the starlette app and its guard (loopback Host, same Origin, token).
* :mod:`~pipeline.review.server`: uvicorn on 127.0.0.1 (the server `pipeline serve` runs too,
  :mod:`pipeline.service.http.serving`).
* ``static/``: the page, its script and its style (no third-party code, nothing fetched).
"""
