"""The sending stage: the character budget, 456, context-grouping cost, concurrency across languages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings, Settings
from pipeline.connect import ClientFactory
from pipeline.errors import ExitCode
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import Remaining
from pipeline.run.send.budget import Budget
from tests.run_fakes import FakeService, estimate, languages_answer, project, run
from tests.virtual_time import VirtualTime

DE, PL = "locale/de/LC_MESSAGES/app.po", "locale/pl/LC_MESSAGES/app.po"


def sent_texts(service: FakeService) -> list[str]:
    return [t for r in service.requests for t in r["text"]]


def pairs(service: FakeService) -> set[tuple[str, str]]:
    return {(r["target_lang"], t) for r in service.requests for t in r["text"]}


def _german_and_polish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> Settings:
    """A German and a Polish catalog, sent ``concurrency`` requests at a time without context grouping,
    with worker threads' work (scan, plan) run inline: the virtual clock moves on only while the event
    loop waits, so which request is in flight when another is ready is the same on any machine."""

    async def inline(function: Callable[..., Any], /, *args: Any) -> Any:
        return function(*args)

    monkeypatch.setattr(asyncio, "to_thread", inline)
    settings = project(tmp_path, langs=("de", "pl"))
    return settings._replace(service=replace(settings.service, concurrency=concurrency), context="none")


class _Handled:
    """A service that is ``handler`` (a request is tried once: its own test says what follows a refusal)."""

    def __init__(self, handler: Callable[[httpx.Request], Any]) -> None:
        self.handler = handler

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: AsyncClient("http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=1))


def test_budget_fitting_takes_the_prefix_that_fits() -> None:
    budget = Budget(10)
    assert budget.fitting([4, 4, 4]) == 2
    budget.reserve(8)
    assert budget.fitting([2, 1]) == 1
    budget.settle(8, 3)  # billed less than reserved: the rest is free again
    assert budget.spent == 3 and budget.fitting([7, 1]) == 1
    assert Budget(None).fitting([10**9]) == 1


def test_a_free_target_the_service_bills_all_the_same_reserves_what_it_sends_from_then_on() -> None:
    budget = Budget(10, free=frozenset({"GA"}))
    assert budget.cost("GA", 50) == 0 and budget.cost("DE", 5) == 5
    budget.reserve(0)
    budget.settle(0, 50, "GA")  # a service whose list says beta, and bills it
    assert budget.cost("GA", 5) == 5 and budget.fitting([5]) == 0


def test_the_budget_stops_the_run_saves_the_work_and_a_rerun_finishes_it(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    unlimited = FakeService()
    total = run(project(tmp_path / "reference", langs=("de", "pl")), unlimited).totals.segments_translated
    everything = sum(len(t) for t in sent_texts(unlimited))
    budget = everything // 2
    service = FakeService()
    report = run(settings._replace(max_characters=budget), service)
    assert report.stopped is not None
    assert report.exit_code == ExitCode.QUOTA and report.stopped.message.startswith("budget of")
    billed = report.totals.billed_characters
    assert 0 < billed <= budget and billed == sum(len(t) for t in sent_texts(service))
    done = report.totals.segments_translated
    assert report.remaining is not None
    assert report.remaining.segments + done == total
    assert report.remaining.characters == everything - billed
    for name in (DE, PL):  # what was translated is saved, and the files are valid
        msgfmt_check(tmp_path / name)
    rerun = FakeService()
    again = run(settings, rerun)
    assert again.exit_code == ExitCode.OK and again.totals.segments_translated == total - done
    assert again.totals.billed_characters == everything - billed  # nothing paid twice
    assert not pairs(rerun) & pairs(service)


def test_no_request_ever_goes_beyond_the_budget(tmp_path: Path) -> None:
    for budget in range(0, 60, 7):
        settings = project(tmp_path / str(budget), langs=("de", "pl"))
        service = FakeService()
        report = run(settings._replace(max_characters=budget), service)
        assert sum(len(t) for t in sent_texts(service)) <= budget, budget
        assert report.exit_code == ExitCode.QUOTA


def test_requests_in_flight_that_bill_less_than_they_hold_do_not_stop_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A beta language is billed nothing: konsole in eo, ga, hi, kk and sr with --max-characters 20000
    # stopped after 545 billed characters, "budget of 20000 billed characters reached", because the
    # requests in flight held 16,493 characters of it. A request that does not fit beside the requests
    # in flight now waits for them to be billed. Here the German request (54 characters, billed nothing)
    # is in flight when the Polish one (51) asks for room in a budget of 60.
    settings = _german_and_polish(tmp_path, monkeypatch, concurrency=2)
    time_ = VirtualTime()
    billed: list[int] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            return languages_answer(("de", "pl"))
        if request.url.path != "/v2/translate":
            return httpx.Response(404, json={"message": "not found"})
        body = json.loads(request.content)
        await time_.sleep(0.05)
        billed.append(0 if body["target_lang"] == "DE" else sum(map(len, body["text"])))
        texts = [{"text": t, "detected_source_language": "EN"} for t in body["text"]]
        return httpx.Response(200, json={"translations": texts, "billed_characters": billed[-1]})

    report = run(settings._replace(max_characters=60), _Handled(handler))
    assert report.stopped is None and report.exit_code == ExitCode.OK
    assert billed == [0, 51] and report.totals.billed_characters == 51


def test_a_beta_language_is_billed_nothing_so_the_budget_and_the_dry_run_count_nothing_for_it(tmp_path: Path) -> None:
    # The service's billing rules: "beta languages are not billed during beta". With --max-characters 20, a
    # run into Irish (beta) was refused ("budget of 20 billed characters reached; left for the next run: 2
    # segments, 63 characters"), and its dry run said "about 63 billed characters". The embedded service
    # bills as the service does; a German catalog beside it is billed as before.
    settings = project(tmp_path, langs=("de", "ga"))._replace(service=ServiceSettings(url="embedded", concurrency=1))
    german = sum(len(t) for t in sent_texts(_sent(tmp_path / "german", "de")))
    dry = run_translate(settings, RunOptions(dry_run=True), log=lambda m: None)
    assert estimate(dry).characters == german
    assert {w.target_lang: w.characters for w in dry.would_write} == {"DE": german, "GA": 0}
    report = run_translate(settings._replace(max_characters=german), RunOptions(), log=lambda m: None)
    assert report.stopped is None and report.exit_code == ExitCode.OK
    assert report.totals.billed_characters == german and report.remaining is None
    assert read_catalog(tmp_path / "locale/ga/LC_MESSAGES/app.po").units[0].state is UnitState.FUZZY


def test_a_dry_run_against_a_remote_service_counts_its_beta_targets_free(tmp_path: Path) -> None:
    # The dry run against the embedded service counted Irish (beta) free; against a remote one it counted
    # every character of it, though the service bills none: it read no language list. The list costs
    # nothing; it is read once there is something to estimate, and nothing is translated.
    settings = project(tmp_path, langs=("de", "ga"))
    german = sum(len(t) for t in sent_texts(_sent(tmp_path / "german", "de")))
    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        if request.url.path == "/v3/languages":
            answer = json.loads(languages_answer(("de", "ga")).content)
            return httpx.Response(
                200, json=[{**lang, "status": "beta" if lang["lang"] == "ga" else "stable"} for lang in answer]
            )
        return httpx.Response(404, json={"message": "not found"})

    dry = run(settings, _Handled(handler), dry_run=True)
    assert paths == ["/v3/languages"]
    assert estimate(dry).characters == german
    assert {w.target_lang: w.characters for w in dry.would_write} == {"DE": german, "GA": 0}


def test_a_dry_run_that_cannot_read_the_language_list_counts_every_target_billed(tmp_path: Path) -> None:
    # No answer, no key: a dry run still says what it would send, counting beta targets as billed (an upper bound).
    settings = project(tmp_path, langs=("de", "ga"))
    german = sum(len(t) for t in sent_texts(_sent(tmp_path / "german", "de")))
    irish_service = FakeService(languages=("ga",))
    run(project(tmp_path / "irish", langs=("ga",)), irish_service)
    irish = sum(len(t) for t in sent_texts(irish_service))
    assert irish > 0
    dry = run(settings, _Handled(lambda request: httpx.Response(403, json={"message": "no"})), dry_run=True)
    assert dry.exit_code == ExitCode.OK
    assert estimate(dry).characters == german + irish


def _sent(root: Path, lang: str) -> FakeService:
    """What a run of ``lang`` alone sends (the fake service bills every character)."""
    service = FakeService()
    run(project(root, langs=(lang,)), service)
    return service


@pytest.mark.parametrize(
    ("german", "exit_code"), [(("429", "429", "ok"), ExitCode.OK), (("500",), ExitCode.PARTIAL)], ids=["429", "500"]
)
def test_a_request_waiting_for_room_goes_once_the_one_in_flight_settles_after_429s_or_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, german: tuple[str, ...], exit_code: int
) -> None:
    # One ticket: the Polish request waits for the German one without it, which needs it again after each
    # 429; a German request that fails settles nothing billed. Neither waits forever, nor stops the run.
    settings = _german_and_polish(tmp_path, monkeypatch, concurrency=1)
    time_, script, answered = VirtualTime(), list(german), []

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            return languages_answer(("de", "pl"))
        if request.url.path != "/v2/translate":
            return httpx.Response(404, json={"message": "not found"})
        body = json.loads(request.content)
        await time_.sleep(0.05)
        what = script.pop(0) if body["target_lang"] == "DE" else "ok"
        answered.append((body["target_lang"], what))
        if what != "ok":
            return httpx.Response(int(what), headers={"Retry-After": "0"}, json={"message": what})
        billed = 0 if body["target_lang"] == "DE" else sum(map(len, body["text"]))
        texts = [{"text": t, "detected_source_language": "EN"} for t in body["text"]]
        return httpx.Response(200, json={"translations": texts, "billed_characters": billed})

    report = run(settings._replace(max_characters=60), _Handled(handler))
    assert answered == [("DE", what) for what in german] + [("PL", "ok")]
    assert report.stopped is None and report.exit_code == exit_code and report.totals.billed_characters == 51


def test_a_zero_budget_sends_nothing_but_serves_the_cache(tmp_path: Path) -> None:
    settings = project(tmp_path)
    original = (tmp_path / DE).read_bytes()
    run(settings, FakeService())
    (tmp_path / DE).write_bytes(original)
    service = FakeService()
    report = run(settings._replace(max_characters=0), service)
    assert service.requests == [] and report.exit_code == ExitCode.OK  # all from the cache: within budget
    with (tmp_path / DE).open("a", encoding="utf-8") as handle:
        handle.write('\nmsgid "New"\nmsgstr ""\n')
    report = run(settings._replace(max_characters=0), service)
    assert service.requests == [] and report.exit_code == ExitCode.QUOTA
    assert report.remaining == Remaining(segments=1, texts=1, characters=3)


def test_a_456_reports_what_remains(tmp_path: Path) -> None:
    total = run(project(tmp_path / "reference", langs=("de", "pl")), FakeService()).totals.segments_translated
    report = run(project(tmp_path, langs=("de", "pl")), FakeService(fail_with={2: 456}))
    assert report.stopped is not None
    assert report.exit_code == ExitCode.QUOTA and report.stopped.message.startswith("quota exceeded")
    assert report.remaining is not None
    assert report.remaining.segments == total - report.totals.segments_translated > 0


def test_context_grouping_cost_is_counted(tmp_path: Path) -> None:
    service = FakeService()
    report = run(project(tmp_path), service)
    assert len(service.requests) == 2  # "verb" context and no context
    assert report.context_requests == 1  # without context grouping, one request would carry all four texts
    dry = run(project(tmp_path / "again"), FakeService(), dry_run=True)
    assert estimate(dry).context_requests == 1
    none = run(project(tmp_path / "none")._replace(context="none"), FakeService())
    assert none.context_requests == 0


def test_requests_for_all_languages_share_one_concurrency_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The virtual clock moves on whenever the event loop waits, a worker thread's scan or plan included: they
    # run inline here, so that the German requests are still in flight when the Polish ones are ready.
    settings = _german_and_polish(tmp_path, monkeypatch, concurrency=2)
    in_flight, peak, langs_in_flight = 0, 0, set()
    time_ = VirtualTime()  # an answer takes 0.05 s of it: the others get sent meanwhile, on any machine

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        if request.url.path == "/v3/languages":
            return languages_answer(("de", "pl"))
        if request.url.path != "/v2/translate":  # the usage check: a service without it goes on unchecked
            return httpx.Response(404, json={"message": "not found"})
        body = json.loads(request.content)
        in_flight += 1
        peak = max(peak, in_flight)
        langs_in_flight.add(body["target_lang"])
        await time_.sleep(0.05)
        in_flight -= 1
        return httpx.Response(
            200, json={"translations": [{"text": t, "detected_source_language": "EN"} for t in body["text"]]}
        )

    class Slow:
        def factory(self) -> ClientFactory:
            transport = httpx.MockTransport(handler)
            return lambda: AsyncClient(
                "http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=1)
            )

    report = run(settings, Slow())
    assert report.exit_code == ExitCode.OK and peak == 2 and langs_in_flight == {"DE", "PL"}
    assert read_catalog(tmp_path / PL).units[0].state is UnitState.FUZZY
