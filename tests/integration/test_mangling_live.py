"""The gate and recovery against `pipeline serve --test-faults` damaging the protected tags on purpose.

Each run sends every request with ``X-Test-Fault: mangle=MODE``; the service then moves, drops,
duplicates or "translates the attribute of" the first tag of every translated text. What a careful
reviewer would refuse (``EXPECTED``) is refused by the gate, then sent again with its placeholders
shown another way until a translation passes: every segment ends up written, with its own
placeholders; nothing broken is written; the file passes ``msgfmt --check`` and ``pipeline check``.
A named placeholder moved to the start of its sentence is a legitimate word order, but the fault
glues it to the word it now stands before ("%(name)sHallo"), which is refused too.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings, Settings
from pipeline.placeholders.protect import protect
from pipeline.protocol import TEST_FAULT_HEADER
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.workflows.check import check_paths
from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "po" / "mangling_targets.po"
UNNAMED = "%s of %d files copied."
HTML = "<b>Warning</b> Read this."
NAMED = "Hello %(name)s, welcome back."
ICU = "{count, plural, one {# file} other {# files}}"
PLAIN = "Saved."

# mode -> {source: why the first attempt is refused (None: written at once)}
EXPECTED = {
    "move": {UNNAMED: "reordered", HTML: "balanced", NAMED: "glued", ICU: "ICU message structure", PLAIN: None},
    "drop": {UNNAMED: "missing", HTML: "missing", NAMED: "missing", ICU: "missing", PLAIN: None},
    "duplicate": {
        UNNAMED: "appears 2 times",
        HTML: "appears 2 times",
        NAMED: "appears 2 times",
        ICU: "appears 2 times",
        PLAIN: None,
    },
    "attribute": {
        UNNAMED: "unexpected markup",
        HTML: "unexpected markup",
        NAMED: "unexpected markup",
        ICU: "unexpected markup",
        PLAIN: None,
    },
}


class FaultHeader(httpx.AsyncBaseTransport):
    """Adds the test-fault header to every request, then sends it over a real socket."""

    def __init__(self, value: str) -> None:
        self._value = value
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[TEST_FAULT_HEADER] = self._value
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_mangled_translations_are_refused_then_recovered(
    tmp_path: Path, live_service: LiveService, msgfmt_check: Callable[[Path], None], mode: str
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    path = root / "de.po"
    shutil.copy(FIXTURE, path)
    settings = Settings(
        root=root,
        catalogs=("*.po",),
        service=ServiceSettings(url=live_service.url, max_attempts=1),
        cache_dir=tmp_path / "cache",
    )
    fault = f"mangle={mode};id=mangle-{mode}-{secrets.token_hex(4)}"

    def client() -> AsyncClient:
        return AsyncClient(
            live_service.url, live_service.auth_key, transport=FaultHeader(fault), retry=RetryPolicy(max_attempts=1)
        )

    report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=client)
    assert report.stopped is None, report.stopped

    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert report.exit_code == 0 and [i for i in report.issues if i.severity == "error"] == []
    for source in EXPECTED[mode]:
        unit = units[source]
        assert unit.state is UnitState.FUZZY and unit.targets[0] != source, (mode, source, report.issues)
        got = sorted(ph.text for ph in protect(unit.targets[0], unit.flags).placeholders)
        assert got == sorted(ph.text for ph in protect(source, unit.flags).placeholders), (mode, source)
    assert units["Done"].targets == ("Fertig",)
    refused = sum(reason is not None for reason in EXPECTED[mode].values())
    assert sum(report.recovery["DE"].segments.values()) == refused, report.recovery
    assert report.recovery["DE"].characters > 0 and report.totals.segments_failed == 0
    checked = check_paths([path])
    assert [i.reason for i in checked.issues + checked.fuzzy if i.severity == "error"] == []
    msgfmt_check(path)


def test_without_a_fault_everything_is_written(
    tmp_path: Path, live_service: LiveService, msgfmt_check: Callable[[Path], None]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    path = root / "de.po"
    shutil.copy(FIXTURE, path)
    settings = Settings(
        root=root, catalogs=("*.po",), service=ServiceSettings(url=live_service.url), cache_dir=tmp_path / "cache"
    )

    def client() -> AsyncClient:
        return AsyncClient(live_service.url, live_service.auth_key, retry=RetryPolicy(max_attempts=1))

    report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=client)
    assert report.exit_code == 0, report.issues
    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert units[ICU].targets[0].startswith("{count, plural, one {# ") and units[ICU].targets[0] != ICU
    assert all(units[s].state is UnitState.FUZZY for s in EXPECTED["move"])
    msgfmt_check(path)
