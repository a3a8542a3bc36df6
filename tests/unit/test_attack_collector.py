"""Attacks on the per-window garbage collection settings, after errors and for library callers (they hold)."""

from __future__ import annotations

import asyncio
import gc

import pytest
from test_run import FakeService, project, run

import pipeline.catalog_paths
import pipeline.run.scan
from pipeline.run.orchestrate import RunOptions, translate_catalogs


@pytest.fixture
def one_catalog_per_window(monkeypatch):
    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", 1)


def test_attack_an_exception_in_window_two_leaves_gc_as_it_was(tmp_path, one_catalog_per_window, monkeypatch):
    settings = project(tmp_path, langs=("de", "fr", "pl"))
    real_scan = pipeline.run.scan.scan
    calls = 0

    def scan(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("boom in window two")
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(pipeline.run.scan, "scan", scan)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError):
        run(settings, FakeService())
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_attack_a_caller_with_gc_disabled_keeps_it_disabled(tmp_path, one_catalog_per_window):
    settings = project(tmp_path, langs=("de", "fr"))
    gc.disable()
    try:
        run(settings, FakeService())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_attack_a_caller_that_froze_objects_keeps_them_frozen(tmp_path, one_catalog_per_window):
    settings = project(tmp_path, langs=("de", "fr"))
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        run(settings, FakeService())
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()


def test_attack_library_use_inside_an_event_loop_with_other_tasks(tmp_path, one_catalog_per_window):
    settings = project(tmp_path, langs=("de", "fr", "pl"))
    service = FakeService()

    async def main():
        other_saw_disabled = []

        async def other():
            for _ in range(200):
                other_saw_disabled.append(not gc.isenabled())
                await asyncio.sleep(0)

        task = asyncio.create_task(other())
        report = await translate_catalogs(settings, RunOptions(), log=lambda m: None, client_factory=service.factory())
        await task
        return report, other_saw_disabled

    report, saw = asyncio.run(main())
    assert report.exit_code == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert not any(saw)  # the host's tasks never run with the collector off
