"""The catalog locks of a run: a bounded number of descriptors, and a bounded, visible wait for another run.

1,500 catalogs under ``ulimit -n 1024`` (300 under 256) ended in "Too many open files" (a lock file
held per catalog for the whole run); a run suspended with Ctrl-Z made the next one wait silently,
for ever, under ``--quiet``.
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.model import Alert
from pipeline.run.locks import CatalogLocks, Holder, at_once
from pipeline.run.orchestrate import work
from pipeline.run.records import RunReport
from tests.run_fakes import FakeService, project, run

CATALOG = (
    'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "Hello {n}"\nmsgstr ""\n'
)


def many(root: Path, count: int) -> Path:
    """A project of ``count`` one-entry German catalogs (embedded service); its root."""
    for n in range(count):
        path = root / "locale" / f"c{n:05d}" / "de.po"
        path.parent.mkdir(parents=True)
        path.write_text(CATALOG.replace("{n}", str(n)), encoding="utf-8")
    (root / "pipeline.toml").write_text(
        'catalogs = ["locale/*/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
    )
    return root


def translate_limited(root: Path, descriptors: int) -> subprocess.CompletedProcess[str]:
    """``pipeline translate --quiet`` in ``root``, in a process whose descriptor limit is ``descriptors``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--quiet"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors)),
    )


def test_300_catalogs_under_a_limit_of_256_descriptors_are_translated_and_then_skipped(tmp_path: Path) -> None:
    root = many(tmp_path, 300)
    done = translate_limited(root, 256)
    assert done.returncode == 0 and "Too many open files" not in done.stderr, done.stderr[-2000:]
    for n in (0, 150, 299):
        (unit,) = read_catalog(root / "locale" / f"c{n:05d}" / "de.po").units
        assert unit.targets[0] and unit.targets[0] != ""
    again = translate_limited(root, 256)  # nothing to do: nothing locked, nothing read
    assert (again.returncode, again.stderr) == (0, "")


def test_a_run_locks_at_most_two_windows_waits_only_holding_none_and_lets_each_go_once_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = project(tmp_path, body="")
    folder = tmp_path / "locale" / "de" / "LC_MESSAGES"
    for n in range(23):
        (folder / f"c{n}.po").write_text(CATALOG.replace("{n}", str(n)), encoding="utf-8")
    monkeypatch.setattr(work, "at_once", lambda: 5)
    taken: list[int] = []  # catalogs locked by each window, in order
    most = [0]  # the most catalogs held at once
    real_acquire, real_take_free = CatalogLocks.acquire, CatalogLocks.take_free

    async def acquire(
        self: CatalogLocks,
        paths: Iterable[Path],
        name: Callable[[Path], str],
        log: Callable[[str], None],
        stopped: Callable[[], bool] = lambda: False,
    ) -> bool:
        assert self._held == {}  # a run that may wait for another's catalogs holds none: no circle of waits
        before = len(self._held)
        waited = await real_acquire(self, paths, name, log, stopped)
        taken.append(len(self._held) - before)
        most[0] = max(most[0], len(self._held))
        return waited

    def take_free(
        self: CatalogLocks, paths: Iterable[Path], name: Callable[[Path], str], log: Callable[[str], None]
    ) -> bool:
        before = len(self._held)
        free = real_take_free(self, paths, name, log)
        taken.append(len(self._held) - before)
        most[0] = max(most[0], len(self._held))
        return free

    monkeypatch.setattr(CatalogLocks, "acquire", acquire)
    monkeypatch.setattr(CatalogLocks, "take_free", take_free)
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated == 23
    assert taken == [5, 5, 5, 5, 4]  # app.po (nothing to translate) and the 23: in windows of 5
    assert 5 <= most[0] <= 10  # the window being written and the next one sending, at most
    assert at_once(1024) == 256 and at_once(64) == 16 and at_once(10**6) == 512


def test_the_next_window_waits_for_another_run_only_once_the_one_before_let_its_catalogs_go(tmp_path: Path) -> None:
    first, other = CatalogLocks(tmp_path / "cache"), CatalogLocks(tmp_path / "cache")
    mine, theirs = tmp_path / "a.po", tmp_path / "b.po"
    asyncio.run(first.acquire([mine], str, lambda m: None))
    asyncio.run(other.acquire([theirs], str, lambda m: None))
    try:
        # Held by the other run: nothing taken, nothing waited for, what was held stays held.
        assert first.take_free([theirs, tmp_path / "c.po"], str, lambda m: None) is False
        assert list(first._held) == [mine]
        other.release([theirs])
        assert first.take_free([theirs, tmp_path / "c.po"], str, lambda m: None) is True
        assert sorted(first._held) == [mine, theirs, tmp_path / "c.po"]
        first.release([mine])
        assert sorted(first._held) == [theirs, tmp_path / "c.po"]
    finally:
        first.release()
        other.release()


def holder_of(settings: Settings) -> CatalogLocks:
    """Another run, in this process: it holds the German catalog's lock."""
    other = CatalogLocks(settings.cache_dir)
    asyncio.run(other.acquire([(settings.root / "locale/de/LC_MESSAGES/app.po").resolve()], str, lambda m: None))
    return other


def test_a_run_waits_a_bounded_time_says_for_whom_then_stops_with_exit_6(tmp_path: Path) -> None:
    settings = project(tmp_path)._replace(lock_wait=0.2)
    before = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    other = holder_of(settings)
    said: list[str] = []
    service = FakeService()
    try:
        report = run_with_log(settings, service, said.append)
    finally:
        other.release()
    assert report.exit_code == ExitCode.LOCKED == 6 and service.requests == []
    assert str(report.stopped).startswith("gave up after waiting 0.2 s for locale/de/LC_MESSAGES/app.po")
    me = Holder.me()
    assert f"process {me.pid} on {me.host}" in str(report.stopped) and "since " in str(report.stopped)
    (alert,) = [m for m in said if isinstance(m, Alert)]
    assert alert.startswith("waiting up to 0.2 s for locale/de/LC_MESSAGES/app.po, which another run holds: process")
    assert (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes() == before
    assert run(settings, FakeService()).exit_code == ExitCode.OK  # free again: the next run goes ahead


def run_with_log(settings: Settings, service: FakeService, log: Callable[[str], None]) -> RunReport:
    from pipeline.run.orchestrate import RunOptions, run_translate

    return run_translate(settings, RunOptions(), log=log, client_factory=service.factory())


def test_quiet_still_says_whom_it_waits_for_and_the_lock_wait_option_bounds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = many(tmp_path, 1)
    monkeypatch.chdir(root)
    for name in ("PIPELINE_SERVICE_URL", "PIPELINE_AUTH_KEY", "PIPELINE_CACHE_URL"):
        monkeypatch.delenv(name, raising=False)
    other = CatalogLocks(root / ".cache")
    asyncio.run(other.acquire([(root / "locale/c00000/de.po").resolve()], str, lambda m: None))
    try:
        code = main(["translate", "--quiet", "--lock-wait", "0.1"])
    finally:
        other.release()
    out, err = capsys.readouterr()
    assert code == 6 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("pipeline: waiting up to 0.1 s for locale/c00000/de.po, which another run holds:")
    assert "stopped early: gave up after waiting 0.1 s for locale/c00000/de.po" in err


HOLD = textwrap.dedent(
    """
    import asyncio
    import sys
    from pathlib import Path
    from pipeline.run.locks import CatalogLocks
    locks = CatalogLocks(Path(sys.argv[1]))
    asyncio.run(locks.acquire([Path(sys.argv[2])], str, print))
    print("held", flush=True)
    sys.stdin.read()
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see a process's state")
def test_a_holder_stopped_with_ctrl_z_is_named_as_stopped(tmp_path: Path) -> None:
    settings = project(tmp_path)._replace(lock_wait=0.1)
    catalog = (tmp_path / "locale/de/LC_MESSAGES/app.po").resolve()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(settings.cache_dir), str(catalog)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        os.kill(holder.pid, signal.SIGSTOP)
        os.waitpid(holder.pid, os.WUNTRACED)  # returns once it has stopped, not merely been signalled
        report = run(settings, FakeService())
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.communicate("", timeout=30)
    assert report.exit_code == ExitCode.LOCKED
    assert f"process {holder.pid}" in str(report.stopped)
    assert f"that process is stopped (Ctrl-Z, or a frozen job): `kill -CONT {holder.pid}`" in str(report.stopped)
