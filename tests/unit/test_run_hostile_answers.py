"""A run against a service whose answers are hostile: a clear refusal or an absent figure, the run goes on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import read_catalog
from pipeline.errors import ExitCode
from pipeline.run.report import to_json
from tests.run_fakes import FakeService, project, run, usage


class HostileService(FakeService):
    """The fake service, its translate answers (or usage answer) replaced by raw bytes after the first ``spare``."""

    def __init__(
        self,
        translate: bytes | Callable[[httpx.Response], bytes] | None = None,
        usage: bytes | None = None,
        spare: int = 0,
    ) -> None:
        super().__init__()
        self.translate_body, self.usage_body, self.spare = translate, usage, spare

    def handler(self, request: httpx.Request) -> httpx.Response:
        fair = super().handler(request)
        path = request.url.path
        if path == "/v2/usage" and self.usage_body is not None:
            return raw(self.usage_body)
        if path == "/v2/translate" and self.translate_body is not None and len(self.requests) > self.spare:
            return raw(self.translate_body(fair) if callable(self.translate_body) else self.translate_body)
        return fair


def raw(body: bytes) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})


def with_billed(figure: str) -> Callable[[httpx.Response], bytes]:
    def body(fair: httpx.Response) -> bytes:
        data = json.loads(fair.content)
        return json.dumps({**data, "billed_characters": "FIGURE"}).encode().replace(b'"FIGURE"', figure.encode())

    return body


def with_surrogate(fair: httpx.Response) -> bytes:
    data = json.loads(fair.content)
    data["translations"][0]["text"] += "\ud800"
    return json.dumps(data).encode()  # ensure_ascii: the surrogate travels as the escape \ud800


@pytest.mark.parametrize("figure", ["Infinity", "1e400", "-1e400", "NaN"])
def test_a_billed_figure_of_no_count_keeps_every_translation_and_counts_what_was_sent(
    tmp_path: Path, figure: str
) -> None:
    settings = project(tmp_path)
    service = HostileService(translate=with_billed(figure))
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    sent = sum(len(t) for r in service.requests for t in r["text"])
    assert report.totals.segments_translated == 4 and report.totals.billed_characters == sent
    assert json.dumps(to_json(report), allow_nan=False)  # the report stays strict JSON
    units = {u.sources[0]: u.targets for u in read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po").units}
    assert units["Open"] == ("[DE] Open",)


@pytest.mark.parametrize("depth", [50_000, 1_000])
def test_an_answer_nested_too_deep_is_a_refusal_reported_and_the_rest_is_written(tmp_path: Path, depth: int) -> None:
    settings = project(tmp_path)
    service = HostileService(translate=b"[" * depth + b"]" * depth, spare=1)  # the first request is answered
    report = run(settings, service)
    assert report.exit_code == ExitCode.PARTIAL and len(service.requests) == 2
    assert report.totals.segments_translated > 0 and report.totals.segments_failed > 0
    assert any("unexpected answer to POST /v2/translate" in i.reason for i in report.issues), report.issues
    written = [t for u in read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po").units for t in u.targets]
    assert sum(1 for target in written if target.startswith("[DE]")) == report.totals.segments_translated


def test_an_answer_holding_a_lone_surrogate_is_refused_and_nothing_of_it_is_cached(tmp_path: Path) -> None:
    settings = project(tmp_path)
    report = run(settings, HostileService(translate=with_surrogate))
    assert report.exit_code == ExitCode.PARTIAL and report.totals.segments_translated == 0
    assert any("lone surrogate" in i.reason for i in report.issues), report.issues
    assert "[DE]" not in (tmp_path / "locale/de/LC_MESSAGES/app.po").read_text(encoding="utf-8")
    fair = FakeService()
    again = run(settings, fair)
    assert again.exit_code == ExitCode.OK and again.totals.segments_from_cache == 0 and fair.requests


@pytest.mark.parametrize(
    "answer",
    [
        b'{"character_count": 1e400, "character_limit": 1000}',
        b'{"character_count": 0, "character_limit": 1e400}',
        b'{"character_count": -1e400, "character_limit": 1000}',
        b'{"character_count": Infinity, "character_limit": Infinity}',
        b'{"character_count": 0, "character_limit": NaN}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_usage_figures_of_no_count_mean_no_quota_check_and_the_run_goes_on(tmp_path: Path, answer: bytes) -> None:
    report = run(project(tmp_path), HostileService(usage=answer))
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated == 4
    assert report.usage is not None and report.usage.note is not None
    assert "without a quota check" in report.usage.note
    assert report.usage.before is None and report.usage.after is None
    assert json.dumps(to_json(report), allow_nan=False)


@pytest.mark.parametrize("figure", [b"1e400", b"Infinity", b"10e300"])
def test_key_figures_of_no_count_are_no_key_limit(tmp_path: Path, figure: bytes) -> None:
    answer = b'{"character_count": 0, "character_limit": 1000000, "api_key_character_limit": %s}' % figure
    report = run(project(tmp_path), HostileService(usage=answer))
    assert report.exit_code == ExitCode.OK and usage(report).key_limit is None
    assert json.dumps(to_json(report), allow_nan=False)
