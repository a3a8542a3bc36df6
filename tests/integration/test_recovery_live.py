"""Recovery against `pipeline serve` damaging the protected tags of every second text.

Behind ``X-Test-Fault: mangle=MODE;every=2`` a run must fill at least 97% of what a clean run
fills and write nothing broken (``pipeline check`` and ``msgfmt --check`` pass on what it wrote);
the report counts, per language, the segments each scheme recovered and what the retries cost.
Behind ``mangle=any`` (every placeholder-looking token damaged, whatever the scheme) still
nothing broken is written.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings, Settings
from pipeline.model import Issue
from pipeline.protocol import TEST_FAULT_HEADER
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from pipeline.workflows.check import check_paths
from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
)
SOURCES = [
    ("python-format", "Hello %(name)s, you have %(count)d new messages."),
    ("python-format", "%s of %d files copied to %s."),
    ("c-format", "Could not open %s: %s"),
    ("c-format", "Copy %1$s to %2$s?"),
    ("python-brace-format", "Delete {count} items from {folder}?"),
    (None, '<b>Warning:</b> read the <a href="/docs">documentation</a> first.'),
    (None, "{count, plural, one {# file} other {# files}} in {folder}"),
    ("python-format", "Signed in as %(user)s.\nSign out?"),
]


class FaultHeader(httpx.AsyncBaseTransport):
    """Adds the test-fault header to every request, then sends it over a real socket."""

    def __init__(self, value: str | None) -> None:
        self._value = value
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._value:
            request.headers[TEST_FAULT_HEADER] = f"{self._value};id=recovery-{secrets.token_hex(4)}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _catalog(path: Path) -> None:
    """Five variants of each source, so every second text of a request is a fair share of them."""
    entries = []
    for n in range(5):
        for flag, source in SOURCES:
            text = source.replace('"', '\\"').replace("\n", "\\n")
            entries.append((f"#, {flag}\n" if flag else "") + f'msgctxt "v{n}"\nmsgid "{text}"\nmsgstr ""\n')
    path.write_text(HEADER + "\n".join(entries), encoding="utf-8")


def _run(
    tmp_path: Path, live_service: LiveService, name: str, fault: str | None
) -> tuple[RunReport, Path, int, list[Issue]]:
    root = tmp_path / name
    root.mkdir()
    path = root / "de.po"
    _catalog(path)
    settings = Settings(
        root=root,
        catalogs=("*.po",),
        cache_dir=tmp_path / f"cache-{name}",
        service=ServiceSettings(url=live_service.url, max_attempts=1),
    )

    def client() -> AsyncClient:
        return AsyncClient(
            live_service.url, live_service.auth_key, transport=FaultHeader(fault), retry=RetryPolicy(max_attempts=1)
        )

    report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=client)
    filled = sum(1 for u in read_catalog(path).units if u.state is UnitState.FUZZY)
    checked = check_paths([path])
    broken = [i for i in checked.issues + checked.fuzzy if i.severity == "error"]
    return report, path, filled, broken


@pytest.mark.parametrize("mode", ["move", "drop", "duplicate", "swap"])
def test_every_second_text_damaged_still_fills_the_catalog(
    tmp_path: Path, live_service: LiveService, msgfmt_check: Callable[[Path], None], mode: str
) -> None:
    _, _, clean, _ = _run(tmp_path, live_service, "clean", None)
    assert clean == 5 * len(SOURCES)
    report, path, filled, broken = _run(tmp_path, live_service, mode, f"mangle={mode};every=2")
    assert broken == [] and report.stopped is None
    assert filled >= 0.97 * clean, (filled, clean, [i.reason for i in report.issues])
    recovered = report.recovery["DE"]
    assert sum(recovered.segments.values()) > 0 and recovered.characters > 0
    assert report.totals.segments_translated == filled
    msgfmt_check(path)


def test_schemes_take_turns_when_the_damage_follows_every_scheme(
    tmp_path: Path, live_service: LiveService, msgfmt_check: Callable[[Path], None]
) -> None:
    # "any" damages tags under xml and html and code-like words in plain text, every second text:
    # each round recovers part of what is left, the next scheme takes the rest.
    report, path, filled, broken = _run(tmp_path, live_service, "any2", "mangle=any;every=2")
    assert broken == [] and filled == 5 * len(SOURCES), [i.reason for i in report.issues]
    assert report.recovery["DE"].segments == {"xml-v2": 10, "html": 5, "tokens": 5}, report.recovery


def test_damage_to_every_placeholder_under_every_scheme_writes_nothing_broken(
    tmp_path: Path, live_service: LiveService, msgfmt_check: Callable[[Path], None]
) -> None:
    report, path, filled, broken = _run(tmp_path, live_service, "any", "mangle=any")
    assert broken == []
    # Only pieces carry no placeholder at all, so they are what passes.
    assert set(report.recovery["DE"].segments) == {"pieces"} and filled == report.recovery["DE"].segments["pieces"]
    msgfmt_check(path)
