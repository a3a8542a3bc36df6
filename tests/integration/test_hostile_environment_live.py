"""Unlucky environments against a real `pipeline serve`: two runs at once, Ctrl-C, a full disk."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.client.sync import Client
from tests.integration.conftest import LiveService
from tests.sample_project import copy_sample_project
from tests.waiting import Lines

pytestmark = pytest.mark.integration

FAULTY_CLI = Path(__file__).resolve().parent / "faulty_cli.py"


def _project(tmp_path: Path, url: str, concurrency: int = 1, cache: str = ".cache", report: str = "report") -> Path:
    root = copy_sample_project(tmp_path, url)
    (root / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n'
        f'[service]\nurl = "{url}"\nconcurrency = {concurrency}\nmax_attempts = 1\n'
        f'[cache]\ndir = "{cache}"\n[report]\ndir = "{report}"\n',
        encoding="utf-8",
    )
    return root


class Gate:
    """Holds a run's translate requests (after the first ``through``) until :meth:`open`; says when one waits."""

    def __init__(self, through: int = 0) -> None:
        self.through = through
        self._gate_read, self._gate_write = os.pipe()
        held_read, self._held_write = os.pipe()
        self.held = Lines(os.fdopen(held_read, "rb"))

    def environment(self) -> dict[str, str]:
        """What ``faulty_cli.py`` reads to hold its requests here."""
        return {
            "FAULTY_CLI_GATE": str(self._gate_read),
            "FAULTY_CLI_HELD": str(self._held_write),
            "FAULTY_CLI_THROUGH": str(self.through),
        }

    def passed(self) -> tuple[int, int]:
        """The descriptors the run inherits."""
        return (self._gate_read, self._held_write)

    def started(self) -> None:
        """The run has its ends: close ours, so that only it holds them."""
        os.close(self._gate_read)
        os.close(self._held_write)

    def open(self) -> None:
        """Let every request through, those waiting and those to come."""
        os.close(self._gate_write)


def _start(
    service: LiveService, root: Path, name: str = "run", gate: Gate | None = None, stderr_pipe: bool = False
) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "FAULTY_CLI_"))}
    env["PIPELINE_AUTH_KEY"] = service.auth_key
    argv = [sys.executable, str(FAULTY_CLI)] if gate else [sys.executable, "-m", "pipeline"]
    if gate:
        env.update(gate.environment())
    out = (root / f"{name}.out").open("wb")
    err = subprocess.PIPE if stderr_pipe else (root / f"{name}.err").open("wb")
    process = subprocess.Popen(
        [*argv, "translate", "--config", str(root / "pipeline.toml")],
        stdout=out,
        stderr=err,
        env=env,
        cwd=root,
        pass_fds=gate.passed() if gate else (),
    )
    if gate:
        gate.started()
    return process


def _billed(service: LiveService) -> int:
    with Client(service.url, service.auth_key) as client:
        return client.usage().character_count


def _reference(service: LiveService, tmp_path: Path) -> tuple[int, Path]:
    """What one run of the sample project bills on its own, and the project it translated."""
    before = _billed(service)
    root = _project(tmp_path / "reference", service.url)
    process = _start(service, root)
    assert process.wait(timeout=120) == 0
    return _billed(service) - before, root


def _catalogs(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted((root / "sample_locales").glob("*/LC_MESSAGES/*.po"))
    }


def test_two_runs_at_once_on_the_same_catalogs_bill_everything_once_and_both_exit_0(
    launch_service: Callable[..., LiveService], tmp_path: Path
) -> None:
    service = launch_service()
    reference, reference_root = _reference(service, tmp_path)
    root = _project(tmp_path / "shared", service.url, concurrency=2)
    before = _billed(service)
    gate = Gate()
    first = _start(service, root, "first", gate)
    gate.held.wait_for("held 1")  # the first run holds its catalogs and has a request in flight
    second = _start(service, root, "second", stderr_pipe=True)
    assert second.stderr is not None
    second_err = Lines(second.stderr)
    second_err.wait_for("which another run holds: process")  # named, with its pid
    gate.open()
    assert first.wait(timeout=180) == 0, (root / "first.err").read_text()
    assert second.wait(timeout=180) == 0, second_err.join()
    assert _billed(service) - before == reference
    assert "Traceback" not in (root / "first.err").read_text() and "Traceback" not in second_err.join()
    assert _catalogs(root) == _catalogs(reference_root)  # the same catalogs as one run alone writes


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_writes_what_is_done_and_a_rerun_pays_only_for_the_rest(
    launch_service: Callable[..., LiveService], tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    service = launch_service()
    reference, reference_root = _reference(service, tmp_path)
    root = _project(tmp_path / "interrupted", service.url)
    pristine = _catalogs(root)
    before = _billed(service)
    gate = Gate(through=1)
    process = _start(service, root, gate=gate)
    gate.held.wait_for("held 2")  # one request answered, the next in flight, the others not sent
    answered = _billed(service) - before
    assert answered > 0
    process.send_signal(signum)
    gate.open()  # the request in flight goes on after the signal
    assert process.wait(timeout=60) == code
    err = (root / "run.err").read_text()
    assert "Traceback" not in err and "interrupted" in err
    report = json.loads((root / "report" / "report.json").read_text())
    assert "interrupted" in json.dumps(report["stopped"])
    assert report["remaining"]  # it did stop before the end
    written = {name for name, text in _catalogs(root).items() if text != pristine[name]}
    assert written, "the translations done before the signal were written"
    first_billed = _billed(service) - before
    assert answered < first_billed < reference  # the request in flight was answered; nothing more was sent
    assert gate.held.join() == "held 2\n"
    rerun = _start(service, root, "rerun")
    assert rerun.wait(timeout=120) == 0, (root / "rerun.err").read_text()
    # The request in flight was let finish (and cached), so nothing is paid twice.
    assert _billed(service) - before == reference
    assert _catalogs(root) == _catalogs(reference_root)


def _mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir(parents=True)
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")


def _fill(where: Path) -> None:
    """Leave no free byte on the file system of ``where``."""
    for name, size in (("filler", 65536), ("filler-small", 1)):
        with (where / name).open("wb", buffering=0) as handle:
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                pass


@pytest.mark.parametrize("full", ["cache", "report"])
def test_a_full_disk_under_the_cache_or_the_report_is_said_clearly_and_the_catalogs_are_written(
    launch_service: Callable[..., LiveService], tmp_path: Path, full: str
) -> None:
    service = launch_service()
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "1m")
    try:
        (disk / "sub").mkdir()
        root = _project(
            tmp_path / "full",
            service.url,
            concurrency=4,
            cache=str(disk / "sub") if full == "cache" else ".cache",
            report=str(disk / "sub") if full == "report" else "report",
        )
        pristine = _catalogs(root)
        _fill(disk)
        process = _start(service, root)
        code = process.wait(timeout=120)
        err = (root / "run.err").read_text()
        assert "Traceback" not in err, err
        if full == "report":  # the report is lost: an error
            assert code == 1 and f"cannot write the report in {disk / 'sub'}: No space left on device" in err, err
        else:  # the cache never fails a run: a warning, in the report too
            assert code == 0 and "the translation cache in" in err and "cannot be used" in err, err
            assert "cannot be used" in (root / "report" / "report.md").read_text()
        assert all(_catalogs(root)[name] != text for name, text in pristine.items())  # written nonetheless
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
