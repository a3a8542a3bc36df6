"""Packing texts into requests within both limits, measured on the encoded body."""

from __future__ import annotations

from collections.abc import Iterable

from pipeline import protocol
from pipeline.run.send.packing import pack

PARAMS: dict[str, object] = {"source_lang": "EN", "target_lang": "DE", "tag_handling": "xml", "ignore_tags": ["x"]}


def body_size(texts: Iterable[str]) -> int:
    return len(protocol.encode_json({**PARAMS, "text": list(texts)}))


def test_fifty_texts_per_request() -> None:
    packing = pack(["t"] * 120, PARAMS)
    assert sorted(len(b) for b in packing.batches) == [20, 50, 50]
    assert packing.lower_bound == 3


def test_body_limit_is_measured_on_the_encoded_body() -> None:
    texts = ["é" * 20000] * 7  # 40 KB each once encoded: three fit under 128 KiB, four do not
    packing = pack(texts, PARAMS)
    assert all(body_size(texts[i] for i in b) <= protocol.MAX_TRANSLATE_BODY_BYTES for b in packing.batches)
    assert len(packing.batches) == 3 == packing.lower_bound


def test_a_text_too_large_for_any_request_is_set_apart() -> None:
    packing = pack(["a", "b" * (protocol.MAX_TRANSLATE_BODY_BYTES)], PARAMS)
    assert packing.too_large == (1,) and packing.batches == ((0,),)


def test_every_text_is_placed_exactly_once() -> None:
    texts = [("x" * (i * 997 % 5000)) for i in range(400)]
    packing = pack(texts, PARAMS)
    placed = sorted(i for b in packing.batches for i in b)
    assert placed == list(range(400))
    assert len(packing.batches) <= packing.lower_bound + 1
