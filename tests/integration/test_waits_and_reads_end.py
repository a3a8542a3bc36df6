"""Nothing a run waits for or reads is endless: Ctrl-C and SIGTERM stop a wait, and what never ends is not read.

Each case is the whole command in its own process, with the embedded service; the address space
is bounded (1 GiB), so that a read that never ends fails fast instead of taking the machine's memory.
What was endless before: a wait for another run's lock took no signal until ``--lock-wait`` ran out
(600 s by default); a compendium that is a FIFO, the run state in ``--cache-dir /proc``, and
``pipeline document translate`` of a FIFO waited for ever; a compendium linked to ``/dev/zero`` and
a document ``/dev/zero`` read until memory ran out.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample_project import SAMPLES
from tests.waiting import Lines

pytestmark = pytest.mark.integration

MEMORY = 1024 * 1024 * 1024
CATALOG = "locale/de/LC_MESSAGES/messages.po"


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _project(tmp_path: Path, extra: str = "") -> Path:
    root = tmp_path / "project"
    (root / CATALOG).parent.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "de" / "LC_MESSAGES" / "messages.po", root / CATALOG)
    (root / "pipeline.toml").write_text(
        'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n'
        f'[report]\ndir = "report"\n{extra}',
        encoding="utf-8",
    )
    return root


def _start(root: Path, *args: str, watched: bool = False) -> subprocess.Popen[bytes]:
    """The command in ``root``; its stderr goes to ``root/err``, or to a pipe the test reads (``watched``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline", *args],
        cwd=root,
        env=env,
        stdout=(root / "out").open("wb"),
        stderr=subprocess.PIPE if watched else (root / "err").open("wb"),
        preexec_fn=_bounded,
    )


def _finish(
    process: subprocess.Popen[bytes], root: Path, timeout: float = 60, said: Lines | None = None
) -> tuple[int, str]:
    """The exit status and stderr (``said``: what the watched pipe carried)."""
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        seen = said.text() if said else (root / "err").read_text(errors="replace")
        pytest.fail(f"still running after {timeout:g} s: {seen[-2000:]}")
    err = said.join() if said else (root / "err").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in err and "MemoryError" not in err, err
    return code, err


HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_wait_for_another_runs_lock_ends_at_a_signal(tmp_path: Path, signum: signal.Signals, code: int) -> None:
    root = _project(tmp_path)
    catalog = (root / CATALOG).resolve()
    locks = root / ".cache" / "locks"
    locks.mkdir(parents=True)
    lock = locks / f"{hashlib.sha256(os.fsencode(catalog)).hexdigest()[:32]}.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        before = (root / CATALOG).read_bytes()
        run = _start(root, "translate", watched=True)  # waits up to 600 s, the default
        assert run.stderr is not None
        said = Lines(run.stderr)
        said.wait_for("waiting up to 600 s for")
        run.send_signal(signum)
        status, err = _finish(run, root, timeout=30, said=said)
    finally:
        holder.communicate("", timeout=30)
    assert status == code, err
    assert "interrupted" in err and "not read: the run stopped before reaching this catalog" in err
    assert (root / CATALOG).read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-large"])
def test_a_compendium_that_never_ends_is_named_and_the_run_goes_on(tmp_path: Path, kind: str) -> None:
    root = _project(tmp_path, '[translate]\ncompendia = ["i18n/*.po"]\n')
    (root / "i18n").mkdir()
    compendium = root / "i18n" / "de.po"
    if kind == "fifo":
        os.mkfifo(compendium)
    elif kind == "dev-zero":
        compendium.symlink_to("/dev/zero")
    else:  # a sparse file past the bound: nothing of it is read
        with compendium.open("wb") as handle:
            handle.truncate(300 * 1024 * 1024)
    code, err = _finish(_start(root, "translate"), root)
    assert code == 0, err
    reason = "not a regular file" if kind != "too-large" else "larger than"
    assert f"i18n/de.po: warning: compendium not used: cannot be read: {reason}" in err, err
    assert "#, fuzzy" in (root / CATALOG).read_text(encoding="utf-8")  # translated all the same


def test_a_compendium_whose_language_cannot_be_told_is_named(tmp_path: Path) -> None:
    root = _project(tmp_path, '[translate]\ncompendia = ["i18n/compendium.po"]\n')
    (root / "i18n").mkdir()
    text = (SAMPLES / "de" / "LC_MESSAGES" / "messages.po").read_text(encoding="utf-8")
    (root / "i18n" / "compendium.po").write_text(text.replace('"Language: de\\n"\n', ""), encoding="utf-8")
    code, err = _finish(_start(root, "translate"), root)
    assert code == 0, err
    assert "i18n/compendium.po: warning: compendium not used: its language cannot be told" in err, err
    assert "[translate] languages" in err


def test_the_run_state_in_an_unwritable_kind_of_folder_is_a_warning(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, err = _finish(_start(root, "translate", "--cache-dir", "/proc"), root)
    assert code == 0, err
    assert "cannot save the run state" in err
    assert "#, fuzzy" in (root / CATALOG).read_text(encoding="utf-8")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        result: int = probe.getsockname()[1]
        return result


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder"])
def test_a_document_that_never_ends_is_refused_before_anything_is_sent(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    document = Path("/dev/zero") if kind == "dev-zero" else root / "doc.txt"
    if kind == "fifo":
        os.mkfifo(document)
    elif kind == "folder":
        document.mkdir()
    url = f"http://127.0.0.1:{_closed_port()}"  # nothing listens: the file is refused before
    process = _start(root, "document", "translate", str(document), "--target-lang", "DE", "--service-url", url)
    code, err = _finish(process, root)
    assert code == 2 and f"{document}: not a regular file" in err, err


@pytest.mark.parametrize("name", ["locale/fr/LC_MESSAGES/messages.po", "locale/fr/LC_MESSAGES/messages.xlf"])
def test_a_catalog_that_is_a_fifo_is_an_error_naming_it_and_the_others_are_translated(
    tmp_path: Path, name: str
) -> None:
    root = _project(tmp_path)
    (root / "pipeline.toml").write_text(
        (root / "pipeline.toml").read_text(encoding="utf-8").replace('"locale/*/LC_MESSAGES/*.po"', '"locale/**/*"')
    )
    (root / name).parent.mkdir(parents=True)
    os.mkfifo(root / name)
    code, err = _finish(_start(root, "translate"), root)
    assert code == 1 and f"{name}: error: cannot read" in err and "not a regular file (a FIFO)" in err, err
    assert "#, fuzzy" in (root / CATALOG).read_text(encoding="utf-8")
