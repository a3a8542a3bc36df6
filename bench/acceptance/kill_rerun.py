"""A run stopped at any moment can be re-run, and nothing is paid for twice: printed as JSON (brief K1).

A project of published catalogs (the bench corpus: sphinx pl, okular de, coreutils pl, plone de; or
``--project DIR``) is translated by ``pipeline translate`` (or ``pipeline refresh``, whose merge has
work to do: each catalog's template is made from it with some sources changed, some removed and
some added) against ``pipeline serve`` on 127.0.0.1 (a free port; the key is handed to both
through the environment; the billed characters are read from ``/v2/usage``). Once uninterrupted
(the reference), then per trial: a fresh copy is started, sent the signal after a random delay
(seeded, spread over the reference's whole wall time), and run again to the end. After each:

- ``invalid``: catalogs ``msgfmt -c --use-fuzzy`` refuses (that it accepted before), after the
  stop and after the re-run;
- ``human_changed``: entries translated before the run whose translation, flags or comments
  changed (``translate`` only: a refresh's merge marks fuzzy what changed on purpose);
- ``differs``: catalogs whose bytes after the re-run are not the reference's;
- ``paid_twice``: characters billed over stop + re-run minus the reference's;
- ``left_behind``: files after the re-run that the reference did not have (temporary files,
  journals), and those found right after the stop.

With ``--redis`` the runs also write a throw-away ``redis-server`` (emptied before each trial).
``--two same`` starts a second run on the same project after a random delay instead of a signal,
both to their end (a pre-commit hook and an editor's save); ``--two checkouts`` starts it on a second
copy of the project that shares the first's cache folder (two CI jobs sharing a persisted cache).

Usage: python -m bench.acceptance.kill_rerun [--command translate|refresh] [--signals KILL,INT,TERM]
       [--trials 50] [--seed 13] [--redis] [--two same|checkouts] [--project DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import polib
from starlette.types import Message, Receive, Scope, Send

from bench.harness.proxy import LoopbackProxy
from bench.harness.serve import SERVE_KEY, Service, pipeline_exe
from pipeline.protocol import AUTH_HEADER, AUTH_SCHEME

CORPUS = Path(os.environ.get("PIPELINE_BENCH_CORPUS", "/work/corpus/bench")) / "trees"
CATALOGS = {
    "sphinx/pl.po": "sphinx/sphinx/locale/pl/LC_MESSAGES/sphinx.po",
    "okular/de.po": "okular/po/de/okular.po",
    "coreutils/pl.po": "coreutils/po/pl.po",
    "plone/de.po": "plone/plone/app/locales/locales/de/LC_MESSAGES/plone.po",
}
CONFIG = 'catalogs = ["locale/*/*.po"]\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
STOP_TIMEOUT = 60.0  # seconds a run may take to end after SIGINT/SIGTERM before it counts as hung


def make_project(root: Path, source: Path | None, refresh: bool) -> None:
    """The project every trial copies: the corpus catalogs (or ``source``), with templates for a refresh."""
    if source is not None:
        shutil.copytree(source, root)
        return
    for name, published in CATALOGS.items():
        path = root / "locale" / name
        path.parent.mkdir(parents=True)
        shutil.copyfile(CORPUS / published, path)
        if refresh:
            make_template(path, path.with_name(f"{path.parent.name}.pot"))
    (root / "pipeline.toml").write_text(CONFIG, encoding="utf-8")


def make_template(catalog: Path, template: Path) -> None:
    """A template a merge has work in: every 7th source changed (its start), every 11th gone, one new source per 13."""
    po = polib.pofile(str(catalog))
    pot = polib.POFile(wrapwidth=79)
    pot.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Content-Transfer-Encoding": "8bit"}
    for n, entry in enumerate(e for e in po if not e.obsolete):
        if n % 11 == 5:
            continue
        msgid = ("Changed: " if n % 7 == 3 else "") + entry.msgid
        pot.append(
            polib.POEntry(
                msgctxt=entry.msgctxt,
                msgid=msgid,
                msgid_plural=entry.msgid_plural,
                msgstr="" if not entry.msgid_plural else "",
                msgstr_plural={0: "", 1: ""} if entry.msgid_plural else {},
                occurrences=entry.occurrences,
                comment=entry.comment,
                flags=[f for f in entry.flags if f != "fuzzy"],
            )
        )
        if n % 13 == 0:
            pot.append(polib.POEntry(msgid=f"A new message number {n} of this template", msgstr=""))
    pot.save(str(template))


class BillingProxy(LoopbackProxy):
    """Between the runs and the service: when each translate request came and when its answer went, and its characters.

    What a stopped run never got the answer of is what it may pay for again: :meth:`unanswered` at the stop.
    """

    name = "billing proxy"

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.requests_seen: list[list[float]] = []  # [came, answered (0: not yet), characters, texts]

    def unanswered(self, at: float, settle: float) -> tuple[int, int, int]:
        """Characters of the requests under way at ``at``, of those answered less than ``settle`` s before it, and
        how many texts were answered before it."""
        flying = sum(int(r[2]) for r in self.requests_seen if r[0] <= at and (not r[1] or r[1] > at))
        recent = sum(int(r[2]) for r in self.requests_seen if r[1] and at - settle < r[1] <= at)
        return flying, recent, sum(int(r[3]) for r in self.requests_seen if r[1] and r[1] <= at)

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/translate"):
            await super()._app(scope, receive, send)
            return
        body = bytearray()
        record = [time.monotonic(), 0.0, 0.0, 0.0]

        async def teed() -> Message:
            message = await receive()
            body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                record[2], record[3] = _characters(bytes(body))
                self.requests_seen.append(record)
            return message

        async def sent(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                record[1] = time.monotonic()

        await super()._app(scope, teed, sent)


def _characters(body: bytes) -> tuple[int, int]:
    """Characters a translate request bills (its texts', form or JSON body), and how many texts it sends."""
    try:
        texts = json.loads(body)["text"]
    except (ValueError, KeyError, TypeError):
        texts = parse_qs(body.decode("utf-8", "replace")).get("text", [])
    return sum(len(text) for text in texts), len(texts)


class Runner:
    """Starts the command on a copy of the project, against the service; reads the service's usage."""

    def __init__(self, service_url: str, command: str, redis_url: str | None, proxy: BillingProxy | None) -> None:
        self.url = service_url
        self.proxy = proxy
        self.command = command
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
        self.env.update(PIPELINE_AUTH_KEY=SERVE_KEY, PIPELINE_SERVICE_URL=proxy.url if proxy else service_url)
        if redis_url:
            self.env["PIPELINE_CACHE_URL"] = redis_url
        self.redis_url = redis_url
        self.started: list[subprocess.Popen[bytes]] = []  # ended on the way out, should the bench be stopped

    def start(self, root: Path, extra: list[str] | None = None) -> subprocess.Popen[bytes]:
        self.started = [p for p in self.started if p.poll() is None]
        process = subprocess.Popen(
            [pipeline_exe(), self.command, "--quiet", *(extra or [])],
            cwd=root,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # A job started with & in a shell inherits SIGINT ignored, and Python leaves it so: Ctrl-C's default back.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.started.append(process)
        return process

    def end(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
                process.wait()

    def billed(self) -> int:
        response = httpx.get(
            f"{self.url}/v2/usage", headers={AUTH_HEADER: f"{AUTH_SCHEME} {SERVE_KEY}"}, trust_env=False, timeout=30
        )
        return int(response.json()["character_count"])

    def empty_redis(self) -> None:
        if self.redis_url:
            import redis

            redis.Redis.from_url(self.redis_url).flushall()


def files(root: Path) -> dict[str, Path]:
    """Every file below ``root`` by its relative path (the report folder left out: it holds times)."""
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file() and "report/" not in p.as_posix()}


def catalogs(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "locale").glob("*/*.po"))}


def cached(root: Path) -> int:
    """Entries in the project's translation cache (both tables), as a killed run left them."""
    import sqlite3

    path = root / ".cache" / "translations.sqlite3"
    if not path.exists():
        return 0
    db = sqlite3.connect(path)
    try:
        return sum(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("translations", "recent"))
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def invalid(root: Path) -> set[str]:
    """What ``msgfmt -c --use-fuzzy`` refuses in the catalogs: each kind of fatal error once per catalog."""
    bad: set[str] = set()
    for name in catalogs(root):
        proc = subprocess.run(
            ["msgfmt", "-c", "--use-fuzzy", "-o", os.devnull, name], cwd=root, capture_output=True, check=False
        )
        if proc.returncode != 0:
            lines = proc.stderr.decode("utf-8", "replace").splitlines()
            # Without the line: a merge or a write moves the entries, not what is wrong with them.
            bad.update(re.sub(r"^([^:]*):\d+:", r"\1:", line) for line in lines if line.startswith(name))
    return bad


def human(root: Path) -> dict[tuple[str, ...], tuple[object, ...]]:
    """Every translated entry (fuzzy or not) of every catalog: its translation, flags and comments."""
    found: dict[tuple[str, ...], tuple[object, ...]] = {}
    for name in catalogs(root):
        for entry in polib.pofile(str(root / name)):
            if entry.translated() or entry.fuzzy or any(entry.msgstr_plural.values()) or entry.msgstr:
                key = (name, entry.msgctxt or "", entry.msgid, entry.msgid_plural or "")
                found[key] = (entry.msgstr, sorted(entry.msgstr_plural.items()), entry.flags, entry.tcomment)
    return found


def stop(process: subprocess.Popen[bytes], signum: int) -> tuple[int | None, bool, bytes]:
    """Send ``signum``; the exit code, whether it hung (then killed), and what it printed on stderr."""
    if process.poll() is None:
        process.send_signal(signum)
    try:
        _, err = process.communicate(timeout=STOP_TIMEOUT)
        return process.returncode, False, err
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return process.returncode, True, err


def left_files(root: Path, expected: set[str]) -> list[str]:
    """Files below ``root`` not ``expected``. Lock files are kept by design (a lock is a ``flock``, not the file), and
    so are the reuse index's records (``.cache/reuse/``: each trusted only while its catalog has the bytes it
    records; a run that writes its catalogs keeps none for them, a killed one may have)."""
    return sorted(
        name for name in set(files(root)) - expected if not name.startswith((".cache/locks/", ".cache/reuse/"))
    )


def trial_stop(runner: Runner, src: Path, work: Path, signum: int, delay: float) -> dict[str, Any]:
    root = work / "project"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(src, root)
    runner.empty_redis()
    before = runner.billed()
    if runner.proxy is not None:
        runner.proxy.requests_seen.clear()
    process = runner.start(root)
    time.sleep(delay)
    finished = process.poll() is not None
    at = time.monotonic()
    code, hung, err = stop(process, signum)
    row: dict[str, Any] = {"delay": round(delay, 3), "finished_first": finished, "stop_exit": code, "hung": hung}
    if runner.proxy is not None and signum == signal.SIGKILL:
        row["unanswered"], row["answered_just_before"], answered = runner.proxy.unanswered(at, 0.5)
        row["answered_not_cached"] = answered - cached(root)
    row["after_stop"] = {"invalid": sorted(invalid(root)), "files": left_files(root, set(files(src)))}
    row["after_stop"]["files"] = [f for f in row["after_stop"]["files"] if not f.startswith(".cache/") or ".tmp" in f]
    if b"Traceback" in err:
        row["stop_traceback"] = err.decode("utf-8", "replace")[-600:]
    rerun = runner.start(root)
    _, err2 = rerun.communicate()
    row["rerun_exit"] = rerun.returncode
    if b"Traceback" in err2 or rerun.returncode not in (0,):
        row["rerun_stderr"] = err2.decode("utf-8", "replace")[-600:]
    row["billed"] = runner.billed() - before
    row["root"] = root
    return row


def trial_two(runner: Runner, src: Path, work: Path, delay: float, checkouts: bool) -> dict[str, Any]:
    """A second run on the project ``delay`` seconds after the first; with ``checkouts``, on a second copy of it
    (two CI jobs) sharing the first's cache folder. Both to their end."""
    root = work / "project"
    other = work / "checkout" if checkouts else root
    for folder in {root, other}:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(src, folder)
    shared = ["--cache-dir", str(root / ".cache")] if checkouts else []
    runner.empty_redis()
    before = runner.billed()
    first = runner.start(root, shared)
    time.sleep(delay)
    second = runner.start(other, shared)
    _, err1 = first.communicate()
    _, err2 = second.communicate()
    row: dict[str, Any] = {"delay": round(delay, 3), "stop_exit": first.returncode, "rerun_exit": second.returncode}
    row["hung"] = False
    for label, err in (("first_stderr", err1), ("second_stderr", err2)):
        if b"Traceback" in err or b"error" in err:
            row[label] = err.decode("utf-8", "replace")[-400:]
    row["after_stop"] = {"invalid": [], "files": []}
    if checkouts:  # the second checkout's catalogs are the first's, written by another run
        mine, theirs = catalogs(root), catalogs(other)
        row["checkouts_differ"] = sorted(name for name in mine if mine[name] != theirs.get(name))
    row["billed"] = runner.billed() - before
    row["root"] = root
    return row


def judge(row: dict[str, Any], reference: dict[str, Any], humans: dict[Any, Any] | None) -> dict[str, Any]:
    """What a trial's project holds after its re-run, against the reference."""
    root: Path = row.pop("root")
    row["invalid"] = sorted(invalid(root) ^ reference["invalid"])  # the reference's own errors, no more, no fewer
    row["after_stop"]["invalid"] = sorted(
        set(row["after_stop"]["invalid"]) - reference["invalid"] - reference["before"]
    )
    row["paid_twice"] = row.pop("billed") - reference["billed"]
    now = catalogs(root)
    row["differs"] = sorted(n for n in reference["catalogs"] if now.get(n) != reference["catalogs"][n])
    row["left_behind"] = left_files(root, reference["files"])
    if humans is not None:
        after = human(root)
        row["human_changed"] = sum(1 for key, value in humans.items() if after.get(key) != value)
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    paid = [r["paid_twice"] for r in rows]
    bad = [
        r
        for r in rows
        if r["invalid"]
        or r["differs"]
        or r["left_behind"]
        or r.get("human_changed")
        or r["paid_twice"]
        or r["hung"]
        or r["after_stop"]["invalid"]
        or r["rerun_exit"] != 0
        or "stop_traceback" in r
        or r.get("checkouts_differ")
    ]
    return {
        "trials": len(rows),
        "finished_before_signal": sum(r.get("finished_first", False) for r in rows),
        "stop_exit_codes": dict(Counter(str(r["stop_exit"]) for r in rows)),
        "rerun_exit_codes": dict(Counter(str(r["rerun_exit"]) for r in rows)),
        "hung": sum(r.get("hung", False) for r in rows),
        "invalid_after_stop": sum(bool(r["after_stop"]["invalid"]) for r in rows),
        "invalid_after_rerun": sum(bool(r["invalid"]) for r in rows),
        "human_changed": sum(r.get("human_changed", 0) for r in rows),
        "differs_from_reference": sum(bool(r["differs"]) for r in rows),
        "checkouts_differ": sum(bool(r.get("checkouts_differ")) for r in rows),
        "left_after_stop": dict(Counter(_kind(f) for r in rows for f in r["after_stop"]["files"])),
        "left_after_rerun": dict(Counter(_kind(f) for r in rows for f in r["left_behind"])),
        "paid_twice": {
            "trials_paying": sum(p > 0 for p in paid),
            "max": max(paid),
            "mean": round(statistics.mean(paid), 1),
            "total": sum(paid),
            "below_zero": sum(p < 0 for p in paid),
            # what a SIGKILL left unanswered (under way at the kill, or answered < 0.5 s before it): the bound
            "most_unanswered_at_kill": max(
                (r["unanswered"] + r["answered_just_before"] for r in rows if "unanswered" in r), default=None
            ),
            "beyond_unanswered": sum(
                r["paid_twice"] > r["unanswered"] + r["answered_just_before"] for r in rows if "unanswered" in r
            ),
        },
        "examples": [_short(r) for r in bad[:5]],
    }


def _kind(name: str) -> str:
    """A left file's kind: its folder and the shape of its name (``.cache/locks/*.lock``, ``locale/*/.*.tmp``)."""
    path = Path(name)
    stem = ".*" + path.suffix if path.name.startswith(".") else "*" + path.suffix
    parts = ["*" if part.startswith(("sphinx", "okular", "coreutils", "plone")) else part for part in path.parts[:-1]]
    return "/".join([*parts, stem]) if path.parent.name != ".cache" else name


def _short(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if v not in ([], None, 0, False) or k in ("delay", "paid_twice")}


def reference_run(runner: Runner, src: Path, work: Path) -> dict[str, Any]:
    root = work / "reference"
    shutil.copytree(src, root)
    runner.empty_redis()
    before = runner.billed()
    started = time.perf_counter()
    process = runner.start(root)
    _, err = process.communicate()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"the reference run ended {process.returncode}: {err.decode()[-800:]}")
    return {
        "billed": runner.billed() - before,
        "wall": wall,
        "catalogs": catalogs(root),
        "files": set(files(root)),
        "invalid": invalid(root),
        "before": invalid(src),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--command", choices=("translate", "refresh"), default="translate")
    parser.add_argument("--signals", default="KILL,INT,TERM")
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--redis", action="store_true")
    parser.add_argument(
        "--two",
        choices=("same", "checkouts"),
        help="a second run at once instead of a signal: on the same project, or on a second copy sharing its cache",
    )
    parser.add_argument("--project", type=Path)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the service and redis-server are ended on the way out
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="kill-rerun-") as tmp:
        work = Path(tmp)
        src = work / "source"
        make_project(src, args.project, args.command == "refresh")
        redis_server = None
        redis_url = None
        if args.redis:
            from bench.performance.cache_redis import start_redis

            redis_server, redis_url = start_redis(work)
        try:
            with Service(work) as service, contextlib.ExitStack() as stack:
                proxy = stack.enter_context(BillingProxy(service.url))
                runner = Runner(service.url, args.command, redis_url, proxy)
                stack.callback(runner.end)
                reference = reference_run(runner, src, work)
                humans = human(src) if args.command == "translate" else None
                figures: dict[str, Any] = {
                    "command": args.command,
                    "redis": bool(args.redis),
                    "seed": args.seed,
                    "load": os.getloadavg(),
                    "reference": {"billed": reference["billed"], "wall_seconds": round(reference["wall"], 2)},
                }
                horizon = reference["wall"] * 1.1
                modes = [f"TWO-{args.two}"] if args.two else args.signals.split(",")
                for mode in modes:
                    rows = []
                    for _ in range(args.trials):
                        delay = rng.uniform(0, horizon)
                        if args.two:
                            row = trial_two(runner, src, work, delay, args.two == "checkouts")
                        else:
                            row = trial_stop(runner, src, work, getattr(signal, f"SIG{mode}"), delay)
                        rows.append(judge(row, reference, humans))
                        print(mode, len(rows), json.dumps(_short(rows[-1]), default=str), file=sys.stderr, flush=True)
                    figures[mode] = summary(rows)
        finally:
            if redis_server is not None:
                redis_server.kill()
                redis_server.wait()
    print(json.dumps(figures, indent=1, default=str))


if __name__ == "__main__":
    main()
