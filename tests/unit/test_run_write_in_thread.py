"""A window's catalogs are written in a worker thread while the loop reads the usage: what the loop may
do meanwhile (a cancellation, a signal) never lets the run's catalogs go before they are written."""

from __future__ import annotations

import asyncio
import threading

import pytest
from run_fakes import FakeService, project

from pipeline.formats import read_catalog
from pipeline.run import write
from pipeline.run.locks import CatalogLocks
from pipeline.run.orchestrate import RunOptions, translate_catalogs


@pytest.mark.parametrize("every_task", [False, True], ids=["its task", "every task, as asyncio.run on Ctrl-C"])
def test_a_run_cancelled_while_it_writes_keeps_its_catalogs_locked_until_they_are_written(
    tmp_path, monkeypatch, every_task
):
    settings = project(tmp_path)
    began, go = threading.Event(), threading.Event()
    events: list[str] = []
    write_catalogs, release = write.write_catalogs, CatalogLocks.release

    def writing(*args, **kwargs):
        began.set()
        events.append(f"went on: {go.wait(10)}")
        outcome = write_catalogs(*args, **kwargs)
        events.append("written")
        return outcome

    def releasing(self: CatalogLocks) -> None:
        events.append("released")
        release(self)

    monkeypatch.setattr(write, "write_catalogs", writing)
    monkeypatch.setattr(CatalogLocks, "release", releasing)

    async def cancel_while_writing() -> None:
        run = asyncio.ensure_future(translate_catalogs(settings, RunOptions(), lambda m: None, FakeService().factory()))
        assert await asyncio.to_thread(began.wait, 10)
        for task in asyncio.all_tasks() if every_task else {run}:
            if task is not asyncio.current_task():
                task.cancel()
        asyncio.get_running_loop().call_soon(go.set)  # once the run has taken its cancellation
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(cancel_while_writing())
    assert events[:3] == ["went on: True", "written", "released"]
    (unit,) = [u for u in read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po").units if u.sources == ("Open",)]
    assert unit.targets == ("[DE] Open",)
