"""The review page is answered while a decision waits for a catalog a run holds.

A decision is written under its catalog's lock and waits for a run that holds it; the app serves every
request on one event loop, so that wait must not block it: the list, an entry's details and decisions on
other catalogs are answered meanwhile. The app is driven in-process (httpx's ASGI transport, no socket); the
test waits for what the session says ("waiting up to ... which another run holds"), never for a while.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import Settings
from pipeline.review.app import create_app
from pipeline.review.session import Session
from pipeline.run.locks import CatalogLocks
from tests.review_project import PO, REVIEW_DATA, XLIFF_12, review_project
from tests.waiting import SAFETY_SECONDS

PORT = 8765
TOKEN = "t0ken-for-the-tests"
WAITING = "which another run holds"


def _held_by_a_run(cache: Path, catalog: Path) -> CatalogLocks:
    """``catalog``'s lock, held as a translation run holds it (its note names this process)."""
    locks = CatalogLocks(cache)
    assert locks.take_free([catalog.resolve()], str, print)
    return locks


class Page:
    """The app around a session whose warnings are kept, and an event set at each "waiting" line."""

    def __init__(self, settings: Settings) -> None:
        self.said: list[str] = []
        self.waiting = asyncio.Event()
        self.session = Session(settings, warn=self.warn)
        app = create_app(self.session, TOKEN, PORT, lambda: None)
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url=f"http://127.0.0.1:{PORT}",
            headers={"X-Review-Token": TOKEN},
            timeout=SAFETY_SECONDS,
        )

    def warn(self, line: object) -> None:
        self.said.append(str(line))
        if WAITING in str(line):
            self.waiting.set()

    async def rows(self, catalog: str) -> list[dict[str, Any]]:
        listing = (await self.client.get("/api/entries")).json()
        return [r for r in listing["entries"] if r["catalog"] == catalog and r["level"] != "error"]

    def decide(self, row: dict[str, Any]) -> asyncio.Task[httpx.Response]:
        """Accept ``row``, as a task: it waits while a run holds its catalog."""
        accept = self.client.post(f"/api/entries/{row['id']}/accept", json={"version": row["version"]})
        return asyncio.create_task(accept)


def test_the_page_is_answered_while_a_decision_waits_for_a_run_that_holds_its_catalog(tmp_path: Path) -> None:
    settings = review_project(tmp_path)

    async def review() -> None:
        page = Page(settings)
        first, second = (await page.rows(PO))[:2]
        other = (await page.rows(XLIFF_12))[0]
        run = _held_by_a_run(tmp_path / ".cache", tmp_path / PO)
        try:
            waiting = page.decide(first)
            await asyncio.wait_for(page.waiting.wait(), SAFETY_SECONDS)
            page.waiting.clear()
            second_tab = page.decide(second)  # the same catalog, from another tab: waits too
            await asyncio.wait_for(page.waiting.wait(), SAFETY_SECONDS)
            listing = await page.client.get("/api/entries")
            detail = await page.client.get(f"/api/entries/{first['id']}")
            elsewhere = await page.client.post(f"/api/entries/{other['id']}/accept", json={"version": other["version"]})
            assert (listing.status_code, detail.status_code, elsewhere.status_code) == (200, 200, 200)
            assert not waiting.done() and not second_tab.done()  # answered while both decisions wait
        finally:
            run.release()
        answers = await asyncio.wait_for(asyncio.gather(waiting, second_tab), SAFETY_SECONDS)
        assert [a.status_code for a in answers] == [200, 200]
        assert [a.json()["entry"]["status"] for a in answers] == ["accepted", "accepted"]
        assert len([line for line in page.said if WAITING in line]) == 2  # once per decision, not once per try
        await page.client.aclose()

    asyncio.run(review())
    assert _awaiting(tmp_path / PO) == _awaiting(REVIEW_DATA / "awaiting_review.po") - 2  # each written once


def test_a_decision_that_waited_the_whole_wait_is_refused_naming_the_run_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    settings = review_project(tmp_path)._replace(lock_wait=0.2)
    before = (tmp_path / PO).read_bytes()

    async def review() -> None:
        page = Page(settings)
        row = (await page.rows(PO))[0]
        run = _held_by_a_run(tmp_path / ".cache", tmp_path / PO)
        try:
            answer = await asyncio.wait_for(page.decide(row), SAFETY_SECONDS)
        finally:
            run.release()
        assert answer.status_code == 422
        (reason,) = answer.json()["errors"]
        assert "another run holds locale/de/LC_MESSAGES/app.po: process" in reason
        assert reason.endswith("nothing was written: decide again once it has finished")
        assert len([line for line in page.said if WAITING in line]) == 1
        assert (tmp_path / PO).read_bytes() == before
        again = await page.client.post(f"/api/entries/{row['id']}/accept", json={"version": row["version"]})
        assert again.status_code == 200  # once the run has let it go
        await page.client.aclose()

    asyncio.run(review())
    assert _awaiting(tmp_path / PO) == _awaiting(REVIEW_DATA / "awaiting_review.po") - 1


def _awaiting(catalog: Path) -> int:
    return sum(1 for unit in read_catalog(catalog).units if unit.state is UnitState.FUZZY)
