"""Packing texts into translate requests: at most 50 texts and 128 KiB of encoded body each, one set of options.

Sizes are measured with :func:`pipeline.protocol.translate_body_size`, which equals the length
of the body the client sends, byte for byte. Packing aims at the lower bound
``max(ceil(n / 50), ceil(bytes / room))``: it spreads the texts, largest first, over that many
requests (then one more), each text going to the least filled request, and falls back to
first-fit decreasing, which always succeeds, when both limits bind at once.

Both take O(n log n): a request full by count leaves the heap of the balanced packing for good
(so no text looks at it again), and first-fit finds its request through a tree of the largest
room left per range of requests instead of trying every open request in turn (which made a
500,000-entry catalog quadratic).
"""

import heapq
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from pipeline import protocol
from pipeline.run.keys import request_params
from pipeline.run.window import Pending
from pipeline.segments import TranslationOptions


class Packing(NamedTuple):
    """The result of packing: batches of indexes into the input, and the indexes that fit nowhere."""

    batches: tuple[tuple[int, ...], ...]
    too_large: tuple[int, ...]
    lower_bound: int


def pack(
    texts: Sequence[str],
    params: dict[str, object],
    max_texts: int = protocol.MAX_TEXTS_PER_REQUEST,
    max_bytes: int = protocol.MAX_TRANSLATE_BODY_BYTES,
) -> Packing:
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
    for k in range(lower, min(lower + 2, len(fallback))):  # only where it would beat first-fit
        balanced = _balanced(order, costs, max_texts, capacity, k)
        if balanced is not None:
            return Packing(_sorted(balanced), too_large, lower)
    return Packing(_sorted(fallback), too_large, lower)


def _first_fit(order: list[int], costs: list[int], max_texts: int, capacity: int) -> list[list[int]]:
    """First-fit decreasing: always succeeds, but may need more bins when both limits bind.

    When the ``max_texts`` largest texts fit in one request together, no request can ever be full
    by bytes, and first-fit is filling requests one after the other (the usual case of short
    interface strings, done in linear time).

    ``tree`` is a segment tree over the bins holding the room left in each (-1 once it holds
    ``max_texts``; bins not opened yet have all their room); the first bin with room for a text
    is found by walking down from the root, left whenever the left half has room. The tree
    doubles when the bins outgrow it.
    """
    if sum(costs[i] for i in order[:max_texts]) <= capacity:
        return [order[i : i + max_texts] for i in range(0, len(order), max_texts)]
    size = 64
    tree = [capacity] * (2 * size)
    bins: list[list[int]] = []
    for i in order:
        cost, node = costs[i], 1
        while node < size:
            node = 2 * node if tree[2 * node] >= cost else 2 * node + 1
        b = node - size
        if b == len(bins):
            bins.append([])
        members = bins[b]
        members.append(i)
        tree[node] = -1 if len(members) >= max_texts else tree[node] - cost
        node >>= 1
        while node:
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left >= right else right
            node >>= 1
        if len(bins) == size:  # every leaf opened: double the tree, the new leaves empty bins
            leaves = tree[size:] + [capacity] * size
            size *= 2
            tree = [0] * size + leaves
            for node in range(size - 1, 0, -1):
                tree[node] = max(tree[2 * node], tree[2 * node + 1])
    return bins


def _balanced(order: list[int], costs: list[int], max_texts: int, capacity: int, k: int) -> list[list[int]] | None:
    """Worst-fit decreasing into exactly ``k`` bins (largest first, each into the emptiest bin), or None.

    The emptiest bin by bytes is the only candidate: if a text does not fit there it fits nowhere.
    Bins full by count are dropped from the heap, never to be looked at again.
    """
    bins: list[list[int]] = [[] for _ in range(k)]
    heap = [(0, b) for b in range(k)]  # (bytes used, bin) of the bins still below max_texts
    for i in order:
        if not heap:
            return None
        used, b = heap[0]
        if used + costs[i] > capacity:
            return None
        bins[b].append(i)
        if len(bins[b]) < max_texts:
            heapq.heapreplace(heap, (used + costs[i], b))
        else:
            heapq.heappop(heap)
    return [b for b in bins if b]


def _sorted(bins: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(sorted(tuple(sorted(b)) for b in bins))


def groups(pending: Mapping[str, Pending], with_context: bool = True) -> dict[TranslationOptions, list[Pending]]:
    """Pending texts by the options they share (one request carries one set of options)."""
    grouped: dict[TranslationOptions, list[Pending]] = defaultdict(list)
    without: dict[TranslationOptions, TranslationOptions] = {}  # a few distinct options, thousands of texts
    for item in pending.values():
        opts = item.options
        if not with_context:
            if opts not in without:
                without[opts] = opts._replace(context=None)
            opts = without[opts]
        grouped[opts].append(item)
    return grouped


def context_requests(pending: Mapping[str, Pending], planned: int) -> int:
    """Requests that grouping by context costs: ``planned`` minus what the texts would need without context."""
    without = 0
    for opts, items in groups(pending, with_context=False).items():
        texts = list(dict.fromkeys(i.protected.text for i in items))  # without context, equal texts merge
        without += len(pack(texts, request_params(opts)).batches)
    return max(0, planned - without)
