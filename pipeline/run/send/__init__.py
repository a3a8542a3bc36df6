"""Sending the run's unique texts: grouped by options, packed (:mod:`pipeline.run.send.packing`), sent concurrently.

One limiter (:mod:`.concurrency`) bounds the requests in flight across every target language, so
a run over many languages keeps the service busy until the last batch: it finds how many requests
the service takes at once, never more than ``[service] concurrency``. The budget (:mod:`.budget`)
is checked before each request. :class:`~.sender.Sender` sends and recovers; what comes back is
verified, cached and kept by :class:`~.answers.Answers`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.config import Settings
from pipeline.run.keys import request_params
from pipeline.run.send.answers import Outcome
from pipeline.run.send.concurrency import Controller, Limiter
from pipeline.run.send.packing import context_requests, groups, pack
from pipeline.run.send.sender import Sender
from pipeline.run.window import Pending, Verify, Window

if TYPE_CHECKING:
    from pipeline.run.context import RunContext

__all__ = ["Outcome", "new_limiter", "send_round"]


async def send_round(
    run: RunContext, window: Window, pending: dict[str, Pending], verify: Verify, outcome: Outcome
) -> None:
    """Send every pending text, concurrently and within the run's budget; record verified results as they arrive.

    ``verify`` is the gate's check, applied to every returned text before it is cached or kept.
    Once the run's interruption is set (a signal, or a stop) nothing more is sent; a caller that
    may cancel this call keeps what came back before in ``outcome``. ``run.offered`` must hold the
    target codes the service offers.
    """
    assert run.offered is not None and run.progress is not None
    sender = Sender(run, window, verify, outcome)
    sender.answers.refuse_targets(pending, run.offered)
    batches = _batches(sender, pending, run.offered)
    run.report.context_requests += context_requests(pending, len(batches))
    segments = sum(len(p.refs) for p in pending.values())
    run.log(f"sending {segments} segments ({len(pending)} unique texts) in about {len(batches)} requests")
    try:
        await sender.send_all(batches)
    finally:
        run.progress.finish()


def _batches(
    sender: Sender, pending: dict[str, Pending], offered: frozenset[str]
) -> list[tuple[list[Pending], dict[str, Any]]]:
    """The round's requests: the texts of each target the service offers, packed; those too large fail."""
    batches: list[tuple[list[Pending], dict[str, Any]]] = []
    for opts, items in groups(pending).items():
        if opts.target_lang not in offered:
            continue
        params = request_params(opts)
        packing = pack([i.protected.text for i in items], params)
        for index in packing.too_large:
            sender.answers.fail(items[index], "the text is too large for one request (128 KiB body limit)")
        batches.extend(([items[i] for i in batch], params) for batch in packing.batches)
    return batches


def new_limiter(settings: Settings) -> Limiter:
    """The limiter of a run's requests: it finds the service's limit, never above ``[service] concurrency``."""
    return Limiter(Controller(settings.service.concurrency))
