"""Packing texts into translate requests: at most 50 texts and 128 KiB of encoded body each.

Sizes are measured with :func:`pipeline.protocol.translate_body_size`, which equals the length
of the body the client sends, byte for byte. Packing aims at the lower bound
``max(ceil(n / 50), ceil(bytes / room))``: it tries to spread the texts, largest first, over that
many requests (then one more), each text going to the least filled request, and falls back to
first-fit decreasing, which always succeeds, when both limits bind at once.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline import protocol


@dataclass(frozen=True, slots=True)
class Packing:
    """The result of packing: batches of indexes into the input, and the indexes that fit nowhere."""

    batches: tuple[tuple[int, ...], ...]
    too_large: tuple[int, ...]
    lower_bound: int


def pack(texts: Sequence[str], params: dict[str, object],
         max_texts: int = protocol.MAX_TEXTS_PER_REQUEST,
         max_bytes: int = protocol.MAX_TRANSLATE_BODY_BYTES) -> Packing:
    """Pack ``texts`` (all sharing ``params``) into as few requests as the limits allow."""
    room = max_bytes - protocol.empty_translate_body_size(params)  # for the array's contents and commas
    # Each text costs its encoded size plus one comma; the first comma of a batch is not sent, so
    # a batch fits when the sum of costs is at most room + 1.
    costs = [protocol.encoded_text_size(t) + 1 for t in texts]
    capacity = room + 1
    too_large = tuple(i for i, cost in enumerate(costs) if cost > capacity)
    order = sorted((i for i, cost in enumerate(costs) if cost <= capacity), key=lambda i: (-costs[i], i))
    if not order:
        return Packing((), too_large, 0)
    lower = max(math.ceil(len(order) / max_texts), math.ceil(sum(costs[i] for i in order) / capacity))
    fallback = _first_fit(order, costs, max_texts, capacity)
    for k in range(lower, min(lower + 2, len(fallback))):
        balanced = _balanced(order, costs, max_texts, capacity, k)
        if balanced is not None:
            return Packing(_sorted(balanced), too_large, lower)
    return Packing(_sorted(fallback), too_large, lower)


def _first_fit(order: list[int], costs: list[int], max_texts: int, capacity: int) -> list[list[int]]:
    """First-fit decreasing: always succeeds, but may need more bins when both limits bind."""
    bins: list[list[int]] = []
    used: list[int] = []
    for i in order:
        for b, members in enumerate(bins):
            if len(members) < max_texts and used[b] + costs[i] <= capacity:
                members.append(i)
                used[b] += costs[i]
                break
        else:
            bins.append([i])
            used.append(costs[i])
    return bins


def _balanced(order: list[int], costs: list[int], max_texts: int, capacity: int, k: int) -> list[list[int]] | None:
    """Worst-fit decreasing into exactly ``k`` bins (largest first, each into the emptiest bin), or None."""
    bins: list[list[int]] = [[] for _ in range(k)]
    heap = [(0, b) for b in range(k)]  # (bytes used, bin)
    for i in order:
        skipped = []
        placed = False
        while heap:
            used, b = heapq.heappop(heap)
            if len(bins[b]) < max_texts and used + costs[i] <= capacity:
                bins[b].append(i)
                heapq.heappush(heap, (used + costs[i], b))
                placed = True
                break
            skipped.append((used, b))
        for item in skipped:
            heapq.heappush(heap, item)
        if not placed:
            return None
    return [b for b in bins if b]


def _sorted(bins: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(sorted(tuple(sorted(b)) for b in bins))
