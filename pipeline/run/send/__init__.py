"""Sending the run's unique texts: grouped by options, packed (:mod:`.packing`), sent concurrently (:mod:`.sender`).

One limiter (:mod:`.concurrency`) bounds the requests in flight across every target language, so
a run over many languages keeps the service busy until the last batch: it finds how many requests
the service takes at once, never more than ``[service] concurrency``. The budget (:mod:`.budget`)
is checked before each request. What comes back is judged and recorded by the round's
:class:`~.sender.Receiver`; texts over their length limit are asked for again (:mod:`.length`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.config import ServiceSettings
from pipeline.run.keys import request_params
from pipeline.run.send.concurrency import Controller, Limiter
from pipeline.run.send.packing import groups, pack
from pipeline.run.send.sender import Receiver, Sender, recovery_batches
from pipeline.run.window import Pending

__all__ = ["Receiver", "Sender", "batches", "new_limiter", "recovery_batches"]


def batches(
    pending: dict[str, Pending], offered: frozenset[str], too_large: Callable[[Pending, str], None]
) -> list[tuple[list[Pending], dict[str, Any]]]:
    """The requests of a round: the texts of each target the service offers, packed; ``too_large`` hears of
    a text no request can carry (128 KiB body limit)."""
    found: list[tuple[list[Pending], dict[str, Any]]] = []
    for opts, items in groups(pending).items():
        if opts.target_lang not in offered:
            continue
        params = request_params(opts)
        packing = pack([i.protected.text for i in items], params)
        for index in packing.too_large:
            too_large(items[index], "the text is too large for one request (128 KiB body limit)")
        found.extend(([items[i] for i in batch], params) for batch in packing.batches)
    return found


def new_limiter(service: ServiceSettings) -> Limiter:
    """The limiter of a run's requests: it finds the service's limit, never above ``[service] concurrency``."""
    return Limiter(Controller(service.concurrency))
