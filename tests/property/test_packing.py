"""Packing properties: the fast first-fit is first-fit, and the bound is met where only one limit binds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline import protocol
from pipeline.run.send.packing import _first_fit, pack

PARAMS: dict[str, object] = {"source_lang": "EN", "target_lang": "DE", "tag_handling": "xml", "ignore_tags": ["x"]}


def naive_first_fit(order: list[int], costs: list[int], max_texts: int, capacity: int) -> list[list[int]]:
    """First-fit decreasing the obvious (quadratic) way: the oracle for the tree-based one."""
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


@given(st.lists(st.integers(1, 500), max_size=400), st.integers(1, 60), st.integers(500, 3000))
def test_tree_first_fit_places_every_text_where_naive_first_fit_does(
    sizes: list[int], max_texts: int, capacity: int
) -> None:
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    assert _first_fit(order, sizes, max_texts, capacity) == naive_first_fit(order, sizes, max_texts, capacity)


@given(st.lists(st.text(max_size=40), min_size=1, max_size=600))
def test_short_texts_need_exactly_the_lower_bound(texts: list[str]) -> None:
    # 600 texts of at most 40 characters (160 bytes) never fill 128 KiB: only the count binds.
    packing = pack(texts, PARAMS)
    assert len(packing.batches) == packing.lower_bound == -(-len(texts) // protocol.MAX_TEXTS_PER_REQUEST)
    assert all(len(b) <= protocol.MAX_TEXTS_PER_REQUEST for b in packing.batches)


@given(st.lists(st.integers(1, 4000), min_size=1, max_size=300), st.integers(1, 60))
def test_batches_respect_both_limits_on_sizes_alone(sizes: list[int], max_texts: int) -> None:
    texts = ["a" * n for n in sizes]
    packing = pack(texts, PARAMS, max_texts=max_texts, max_bytes=30_000)
    placed = sorted(i for b in packing.batches for i in b) + list(packing.too_large)
    assert sorted(placed) == list(range(len(texts)))
    for batch in packing.batches:
        assert len(batch) <= max_texts
        assert protocol.translate_body_size(PARAMS, [texts[i] for i in batch]) <= 30_000
    assert packing.lower_bound <= len(packing.batches) <= packing.lower_bound + 1


@given(st.text(st.characters(exclude_categories=["Cs"])))  # a lone surrogate cannot be sent at all
def test_a_text_is_measured_as_json_encodes_it(text: str) -> None:
    import json

    assert protocol.encoded_text_size(text) == len(json.dumps(text, ensure_ascii=False).encode("utf-8"))
