"""A run starts what its client will need and costs CPU alone (an https service's TLS context) once a scanned
catalog has a unit to translate, before its first request, whether the cache holds something or not; a run
with nothing to translate starts nothing."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

import pipeline.connect
import pipeline.run.scan
from pipeline.config import ServiceSettings, Settings
from pipeline.errors import ExitCode
from pipeline.model import Issue
from pipeline.run.orchestrate import RunOptions, RunReport, run_translate
from pipeline.run.window import Refused, ScannedCatalog
from tests.run_fakes import FakeService, project

LANGS = ("de", "fr", "pl")


class Prepared(FakeService):
    """The fake service, behind the client the run opens itself; notes what was scanned and asked when."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self.scanned: list[Path] = []
        self.prepared: list[tuple[int, int]] = []  # (catalogs scanned, requests made) at each prepare
        self.asked = 0
        scan = pipeline.run.scan.scan
        client = self.factory()

        def counting(
            settings: Settings, catalogs: Iterable[Path], *args: Any, **kwargs: Any
        ) -> tuple[list[ScannedCatalog], list[Issue], list[Refused]]:
            self.scanned.extend(catalogs)
            return scan(settings, catalogs, *args, **kwargs)

        def noting(service: ServiceSettings) -> None:
            assert service.url == "https://mt.example.com"
            self.prepared.append((len(self.scanned), self.asked))

        monkeypatch.setattr(pipeline.run.scan, "scan", counting)
        monkeypatch.setattr(pipeline.connect, "prepare", noting)
        monkeypatch.setattr(pipeline.connect, "open_client", lambda service, log: client())

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.asked += 1
        return super().handler(request)


def _https(settings: Settings) -> Settings:
    return settings._replace(service=ServiceSettings(url="https://mt.example.com", concurrency=1))


def _run(settings: Settings) -> RunReport:
    return run_translate(settings, RunOptions(), log=lambda m: None)


def test_a_first_run_prepares_its_client_once_its_first_catalog_is_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Prepared(monkeypatch)
    assert _run(_https(project(tmp_path, langs=LANGS))).exit_code == ExitCode.OK
    assert service.prepared == [(1, 0)] and service.asked > 0


def test_a_run_the_cache_serves_prepares_its_client_at_the_first_catalog_with_a_new_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _https(project(tmp_path, langs=LANGS))
    service = Prepared(monkeypatch)
    assert _run(settings).exit_code == ExitCode.OK
    service.scanned.clear()
    service.prepared.clear()
    service.asked = 0
    second = sorted(tmp_path.glob("locale/*/LC_MESSAGES/app.po"))[1]
    with second.open("a", encoding="utf-8") as out:
        out.write('\nmsgid "A new string"\nmsgstr ""\n')
    assert _run(settings).exit_code == ExitCode.OK
    assert service.prepared == [(1, 0)] and service.scanned == [second] and service.asked > 0


def test_a_run_with_nothing_to_translate_prepares_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = Prepared(monkeypatch)
    settings = _https(project(tmp_path, langs=LANGS, body='msgid "Done"\nmsgstr "Fertig"\n'))
    assert _run(settings).exit_code == ExitCode.OK
    assert service.prepared == [] and service.asked == 0
