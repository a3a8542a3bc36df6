"""Document jobs nobody downloads expire: after they finished, or after their upload if they never finish."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.engine.pseudo import transliterate
from pipeline.service.store.database import DATABASE_FILE
from pipeline.service.store.jobs import SWEEP_INTERVAL_MS
from tests.unit.service.conftest import Clock, Headers, InProcess
from tests.unit.service.documents_support import HeldEngine

HOUR = dt.timedelta(hours=1)
JUST = dt.timedelta(milliseconds=1)


def upload(client: InProcess, headers: dict[str, str], data: bytes = b"Hello\n", **fields: str) -> dict[str, str]:
    response = client.post(
        "/v2/document", files={"file": ("a.txt", data)}, data={"target_lang": "DE", **fields}, headers=headers
    )
    assert response.status_code == 200, response.text
    body: dict[str, str] = response.json()
    return body


def status(client: InProcess, headers: dict[str, str], handle: dict[str, str]) -> httpx.Response:
    return client.post(
        f"/v2/document/{handle['document_id']}", json={"document_key": handle["document_key"]}, headers=headers
    )


def download(client: InProcess, headers: dict[str, str], handle: dict[str, str]) -> httpx.Response:
    body = {"document_key": handle["document_key"]}
    return client.post(f"/v2/document/{handle['document_id']}/result", json=body, headers=headers)


def finish(client: InProcess, headers: dict[str, str], *handles: dict[str, str]) -> None:
    """Until the worker is done with each job, which then answers as ended (done or error)."""
    assert client.jobs_ended is not None
    client.jobs_ended.wait(*(handle["document_id"] for handle in handles))
    for handle in handles:
        assert status(client, headers, handle).json()["status"] in ("done", "error")


def stored(client: InProcess) -> tuple[int, int]:
    """(jobs, files) left in the service database."""
    db = client.app.state.service.db
    return db.query_one("SELECT COUNT(*) FROM document_jobs")[0], db.query_one("SELECT COUNT(*) FROM document_files")[0]


def assert_unknown(response: httpx.Response) -> None:
    assert response.status_code == 404 and "document not found" in response.json()["message"]


def test_a_done_job_is_kept_24_hours_after_it_finished_then_answers_as_unknown(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    client = make_client(clock=clock)
    handle = upload(client, headers.paid)
    finish(client, headers.paid, handle)
    clock.now += 24 * HOUR - JUST
    assert status(client, headers.paid, handle).json()["status"] == "done"
    clock.now += JUST
    assert_unknown(status(client, headers.paid, handle))
    assert_unknown(download(client, headers.paid, handle))
    clock.now += dt.timedelta(milliseconds=SWEEP_INTERVAL_MS)  # the last sweep ran a moment ago
    assert_unknown(status(client, headers.paid, handle))
    assert stored(client) == (0, 0)
    assert client.get("/v2/usage", headers=headers.paid).json()["character_count"] == 0


def test_an_error_job_expires_too(make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock) -> None:
    client = make_client(clock=clock)
    handle = upload(client, headers.paid, source_lang="DE")
    finish(client, headers.paid, handle)
    assert status(client, headers.paid, handle).json()["status"] == "error"
    clock.now += 24 * HOUR
    assert_unknown(status(client, headers.paid, handle))
    assert_unknown(download(client, headers.paid, handle))


def test_expiry_counts_from_the_finish_and_a_download_before_it_works(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    engine = HeldEngine()
    client = make_client(clock=clock, engine=engine, document_retention_hours=1)
    handle = upload(client, headers.paid)
    engine.reached()
    clock.now += 50 * dt.timedelta(minutes=1)  # a long translation
    engine.release()
    finish(client, headers.paid, handle)
    clock.now += 59 * dt.timedelta(minutes=1)
    result = download(client, headers.paid, handle)
    assert result.status_code == 200 and result.content == (transliterate("Hello", "DE") + "\n").encode()


def test_an_expired_job_is_swept_without_being_asked_for(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    client = make_client(clock=clock, document_retention_hours=0.5)
    first = upload(client, headers.paid)
    finish(client, headers.paid, first)
    clock.now += dt.timedelta(minutes=30)
    second = upload(client, headers.paid, b"Other\n")  # any upload sweeps (at most once a minute)
    finish(client, headers.paid, second)
    assert stored(client) == (1, 2)


def test_the_sweep_runs_at_most_once_a_minute_but_expiry_is_exact(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    client = make_client(clock=clock, document_retention_hours=1)
    first = upload(client, headers.paid)
    finish(client, headers.paid, first)
    clock.now += HOUR - dt.timedelta(milliseconds=SWEEP_INTERVAL_MS // 2)
    second = upload(client, headers.paid)  # sweeps: nothing expired yet
    finish(client, headers.paid, second)
    clock.now += dt.timedelta(milliseconds=SWEEP_INTERVAL_MS // 2)
    assert_unknown(status(client, headers.paid, first))  # expired, not yet swept
    assert stored(client) == (2, 4)
    assert status(client, headers.paid, second).json()["status"] == "done"
    clock.now += dt.timedelta(milliseconds=SWEEP_INTERVAL_MS // 2)
    status(client, headers.paid, second)
    assert stored(client) == (1, 2)


def test_an_upload_whose_job_never_finishes_expires_after_its_upload(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    engine = HeldEngine()
    client = make_client(clock=clock, engine=engine)
    stuck = upload(client, headers.paid)
    engine.reached()
    clock.now += 24 * HOUR
    assert_unknown(status(client, headers.paid, stuck))
    assert stored(client) == (0, 0)
    engine.release()  # the worker finishes a job that is gone: nothing is stored, it goes on
    later = upload(client, headers.paid)
    finish(client, headers.paid, later)
    assert stored(client) == (1, 2)
    assert status(client, headers.paid, later).json()["status"] == "done"


def test_expiry_survives_a_restart(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock, tmp_path: Path
) -> None:
    client = make_client(clock=clock, data_dir=tmp_path)
    kept, dropped = upload(client, headers.paid), upload(client, headers.paid, b"Bye\n")
    finish(client, headers.paid, kept, dropped)
    client.close()
    clock.now += 23 * HOUR
    restarted = make_client(clock=clock, data_dir=tmp_path)
    assert download(restarted, headers.paid, kept).status_code == 200
    restarted.close()
    clock.now += HOUR
    again = make_client(clock=clock, data_dir=tmp_path)
    assert stored(again) == (0, 0)  # swept at start-up, measured from the finish, not the restart
    assert_unknown(status(again, headers.paid, dropped))


def test_a_job_table_from_before_expiry_gets_its_column_and_expires_by_upload_time(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock, tmp_path: Path
) -> None:
    conn = sqlite3.connect(tmp_path / DATABASE_FILE)
    conn.execute(
        "CREATE TABLE document_jobs (document_id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, account_id TEXT NOT NULL,"
        " key_id TEXT NOT NULL, spec TEXT NOT NULL, status TEXT NOT NULL, message TEXT, size INTEGER NOT NULL,"
        " billed_characters INTEGER, progress REAL NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL, started_ms INTEGER)"
    )
    conn.commit()
    conn.close()
    client = make_client(clock=clock, data_dir=tmp_path)
    handle = upload(client, headers.paid)
    finish(client, headers.paid, handle)
    client.close()
    conn = sqlite3.connect(tmp_path / DATABASE_FILE)
    conn.execute("UPDATE document_jobs SET finished_ms = NULL")  # as a job finished before the column existed
    conn.commit()
    conn.close()
    clock.now += 24 * HOUR - JUST
    restarted = make_client(clock=clock, data_dir=tmp_path)
    assert status(restarted, headers.paid, handle).json()["status"] == "done"
    clock.now += JUST
    assert_unknown(status(restarted, headers.paid, handle))


@pytest.mark.parametrize("hours", [0, -1, 876_001, float("inf"), float("nan"), True, "24"])
def test_the_retention_must_be_a_positive_number_of_hours(hours: Any) -> None:
    with pytest.raises(ValueError, match="document_retention_hours"):
        ServiceConfig(accounts=(AccountSpec("paid", ("k",)),), document_retention_hours=hours)
