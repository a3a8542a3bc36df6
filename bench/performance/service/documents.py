"""Document translation throughput of the local service, in-process, printed as JSON.

For each format a document of ``--paragraphs`` paragraphs (cues, units, rows, slides/10) is
built with ``tests/document_samples.py`` (needs the ``test`` extra: python-docx, python-pptx,
openpyxl), then uploaded, polled and downloaded through the embedded transport, ``--runs``
times. Figures per format: wall time of the best run from upload to downloaded result,
characters of translatable text per second (the 50,000-character minimum billing of Office
formats is not counted) and paragraphs per second.

Usage: ``python -m bench.performance.service.documents [--paragraphs 400] [--runs 3] [--formats docx,html,...]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from collections.abc import Callable, Sequence

import httpx

from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.documents.base import Markup
from pipeline.service.documents.formats import FORMATS, extension_of
from pipeline.service.documents.jobs import billable_characters
from pipeline.service.embedded import embedded_transport
from tests import document_samples as samples

KEY = "bench-key"
HEADERS = {"Authorization": f"Service-Auth-Key {KEY}"}

#: format -> (file name, builder of a document with n paragraphs, paragraphs it holds for n)
BUILDERS: dict[str, tuple[str, Callable[[int], bytes], Callable[[int], int]]] = {
    "txt": ("bench.txt", lambda n: "".join(f"{samples.PARAGRAPH} {i}\n" for i in range(n)).encode(), lambda n: n),
    "html": ("bench.html", samples.html, lambda n: n + 3),
    "srt": ("bench.srt", samples.srt, lambda n: n),
    "xliff12": ("bench.xlf", samples.xliff12, lambda n: n + 1),
    "xliff21": ("bench.xliff", samples.xliff21, lambda n: n),
    "docx": ("bench.docx", samples.docx, lambda n: n + 5),
    "pptx": ("bench.pptx", lambda n: samples.pptx(max(n // 10, 1)), lambda n: max(n // 10, 1) * 3),
    "xlsx": ("bench.xlsx", samples.xlsx, lambda n: 3 * (n + 1)),
}


def text_characters(name: str, data: bytes) -> int:
    """Characters of translatable text in a document (what is billed, before any minimum)."""
    total = 0

    def count(texts: Sequence[str], markup: Markup = None) -> list[str]:
        nonlocal total
        total += billable_characters(texts, markup)
        return list(texts)

    FORMATS[extension_of(name)].translate(data, count, "de")
    return total


async def one_run(client: httpx.AsyncClient, name: str, data: bytes) -> tuple[float, int]:
    """Upload, poll until done, download; (seconds, billed characters)."""
    started = time.perf_counter()
    upload = await client.post(
        "/v2/document", files={"file": (name, data)}, data={"target_lang": "DE", "source_lang": "EN"}, headers=HEADERS
    )
    if upload.status_code != 200:
        raise RuntimeError(f"{name}: upload answered {upload.status_code}: {upload.text}")
    handle = upload.json()
    body = {"document_key": handle["document_key"]}
    while True:
        status = (await client.post(f"/v2/document/{handle['document_id']}", json=body, headers=HEADERS)).json()
        if status["status"] in ("done", "error"):
            break
        await asyncio.sleep(0.002)
    if status["status"] != "done":
        raise RuntimeError(f"{name}: {status}")
    result = await client.post(f"/v2/document/{handle['document_id']}/result", json=body, headers=HEADERS)
    result.raise_for_status()
    return time.perf_counter() - started, status["billed_characters"]


async def measure(formats: list[str], paragraphs: int, runs: int) -> list[dict[str, object]]:
    transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),)))
    rows = []
    async with httpx.AsyncClient(transport=transport, base_url="http://bench.invalid") as client:
        for fmt in formats:
            name, build, count = BUILDERS[fmt]
            data = build(paragraphs)
            await one_run(client, name, build(2))  # warm-up (imports, language model)
            timings = [await one_run(client, name, data) for _ in range(runs)]
            best = min(seconds for seconds, _ in timings)
            billed = timings[0][1]
            text_chars = text_characters(name, data)
            rows.append(
                {
                    "format": fmt,
                    "bytes": len(data),
                    "paragraphs": count(paragraphs),
                    "text_characters": text_chars,
                    "billed_characters": billed,
                    "seconds": round(best, 4),
                    "characters_per_second": round(text_chars / best),
                    "paragraphs_per_second": round(count(paragraphs) / best),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paragraphs", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", default=",".join(BUILDERS))
    args = parser.parse_args()
    rows = asyncio.run(measure(args.formats.split(","), args.paragraphs, args.runs))
    print(
        json.dumps(
            {"python": platform.python_version(), "machine": platform.machine(), "mode": "in-process", "results": rows},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
