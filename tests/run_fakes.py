"""A project of catalogs and a scripted fake service (httpx.MockTransport) for tests of whole runs.

``project(tmp_path, langs, body)`` writes one catalog per language and returns its settings;
``run(settings, service, **options)`` runs ``pipeline translate`` on it against ``service``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal, Protocol

import httpx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings, Settings
from pipeline.connect import ClientFactory
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.quota import Allowance
from pipeline.run.records import RunReport
from pipeline.run.window import DryRunEstimate

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
    '"Plural-Forms: {plural}\\n"\n\n'
)
PLURALS = {
    "de": "nplurals=2; plural=(n != 1);",
    "pl": "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "fr": "nplurals=2; plural=(n > 1);",
    "ja": "nplurals=1; plural=0;",
    "ga": "nplurals=5; plural=(n==1 ? 0 : n==2 ? 1 : n<7 ? 2 : n<11 ? 3 : 4);",
}
BODY = (
    '#, python-format\nmsgid "Hello %(name)s"\nmsgstr ""\n\nmsgid "Done"\nmsgstr "Fertig"\n\n'
    'msgctxt "verb"\nmsgid "Open"\nmsgstr ""\n\n#, python-format\nmsgid "%(count)d file"\n'
    'msgid_plural "%(count)d files"\nmsgstr[0] ""\nmsgstr[1] ""\n\nmsgid "%(name)s"\nmsgstr ""\n\n'
    'msgid "Human"\nmsgstr "Mensch"\n\n#, fuzzy\nmsgid "Review me"\nmsgstr "Prüf mich"\n'
)


def languages_answer(codes: Iterable[str]) -> httpx.Response:
    """The service's ``/v3/languages`` answer offering ``codes`` as source and target, with no features."""
    return httpx.Response(
        200,
        json=[
            {
                "lang": code,
                "name": code,
                "usable_as_source": True,
                "usable_as_target": True,
                "status": "stable",
                "features": {},
            }
            for code in codes
        ],
    )


class FakeService:
    """Answers /v3/languages, /v2/usage and /v2/translate; translation = target code + text, tags kept."""

    def __init__(
        self,
        fail_with: dict[int, int] | None = None,
        mangle: bool | set[str] = False,
        max_texts: int = 50,
        rewrite: Callable[[str], str] = str,
        languages: tuple[str, ...] = ("de", "pl", "fr", "ru"),
        usage: dict[str, Any] | int | None = None,
    ) -> None:
        self.languages = languages
        self.language_requests = 0
        self.requests: list[dict[str, Any]] = []
        # GET /v2/usage answers this body (or this status); the default: an account without a limit.
        self.usage: dict[str, Any] | int = {"character_count": 0, "character_limit": None} if usage is None else usage
        self.usage_calls = 0
        self.billed = 0
        self.rewrite = rewrite  # applied to each translation, e.g. to spell a number out
        self.fail_with = fail_with or {}  # translate request number (1-based) -> status
        # Which ways of showing placeholders this engine damages: True for all of them.
        self.mangle = {"xml", "html", "tokens", "pieces"} if mangle is True else set(mangle or ())
        self.max_texts = max_texts  # a service with a smaller limit than the spec's answers 413

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            self.language_requests += 1
            return languages_answer(self.languages)
        if request.url.path == "/v2/usage":
            self.usage_calls += 1
            if isinstance(self.usage, int):
                return httpx.Response(self.usage, json={"message": f"scripted {self.usage}"})
            count = self.usage["character_count"] + self.billed
            return httpx.Response(200, json={**self.usage, "character_count": count})
        body = json.loads(request.content)
        self.requests.append(body)
        status = self.fail_with.get(len(self.requests))
        if status:
            return httpx.Response(status, json={"message": f"scripted {status}"})
        texts = body["text"]
        if len(texts) > self.max_texts:
            return httpx.Response(413, json={"message": "too many texts"})
        self.billed += sum(len(t) for t in texts)
        out = [self.rewrite(f"[{body['target_lang']}] {t}") for t in texts]
        out = [self._damage(body.get("tag_handling"), t) for t in out]
        return httpx.Response(
            200,
            json={
                "translations": [{"text": t, "detected_source_language": "EN"} for t in out],
                "billed_characters": sum(len(t) for t in texts),
            },
        )

    def _damage(self, tag_handling: str | None, text: str) -> str:
        """The first placeholder dropped, however it was shown; foreign markup where there is none."""
        if tag_handling == "xml" and "xml" in self.mangle:
            return text.replace('<x id="1"/>', "")
        if tag_handling == "html" and "html" in self.mangle:
            return text.replace('<span translate="no" id="p1"></span>', "")
        if tag_handling is None and "_XQ1_" in text and "tokens" in self.mangle:
            return text.replace("_XQ1_", "")
        if tag_handling is None and "XQ" not in text and "pieces" in self.mangle:
            return text + " <b>"
        return text

    async def answer(self, request: httpx.Request) -> httpx.Response:
        """What the mock transport answers: the handler's response (a subclass may wait before it)."""
        return self.handler(request)

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.answer)
        return lambda: AsyncClient(
            "http://fake.invalid", "secret-key", transport=transport, retry=RetryPolicy(max_attempts=1)
        )


def project(tmp_path: Path, langs: tuple[str, ...] = ("de",), body: str = BODY) -> Settings:
    for lang in langs:
        path = tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER.format(lang=lang, plural=PLURALS[lang]) + body, encoding="utf-8")
    return Settings(
        root=tmp_path,
        catalogs=("locale/*/LC_MESSAGES/*.po",),
        service=ServiceSettings(url="http://fake.invalid", concurrency=1),
        cache_dir=tmp_path / "cache",
    )


class MakesClients(Protocol):
    """A fake service, or anything else that makes the run's clients."""

    def factory(self) -> ClientFactory: ...


def run(settings: Settings, service: MakesClients, **options: Any) -> RunReport:
    return run_translate(settings, RunOptions(**options), log=lambda m: None, client_factory=service.factory())


def estimate(report: RunReport) -> DryRunEstimate:
    """What a dry run said it would send (a dry run's report always has it)."""
    assert report.would_send is not None, "not a dry run"
    return report.would_send


def usage(report: RunReport, when: Literal["before", "after"] = "before") -> Allowance:
    """The account's usage read before (or after) the run; the test fails when it was not read."""
    assert report.usage is not None, "the usage was not read"
    allowance = report.usage.before if when == "before" else report.usage.after
    assert allowance is not None, f"no usage read {when} the run: {report.usage.note}"
    return allowance


def cache_dir(settings: Settings) -> Path:
    """The cache folder of ``settings`` (the tests' projects always have one)."""
    assert settings.cache_dir is not None, "no cache folder"
    return settings.cache_dir
