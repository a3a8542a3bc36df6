"""The figures users feel, each as the whole command beside the same work in-process; prints JSON.

The whole command is a fresh ``pipeline`` process (start, imports, scan, write), with a bytecode
cache as an installed package has (even where PYTHONDONTWRITEBYTECODE is set), compiled by a small
run before any row; in-process is the library call (``run_translate`` in a child process of its own,
``merge`` in this one), its modules imported before the clock starts. Ratios are taken within one
run; ``python -c pass`` and the load average are printed beside them (the machine may be shared: CPU
seconds are printed too, steadier than wall time).

- ``latency``: Django's catalogs (bench/_workload.py: 6 languages x 920 messages) against the
  stand-in of bench/latency_bound.py (200 ms a request, 4 in flight, the pipeline not told;
  ceiling 16): wall time against ``ceil(requests / 4) x 200 ms``. Target <= 1.15.
- ``embedded``: the same workload with the embedded service: segments per second. Target >= 8,000.
- ``storm``: the same workload against the stand-in with no in-flight limit, 100 ms a request and
  20 % of translate requests refused at random (429, ``Retry-After: 1``), and clean. Target: at
  most clean + 3 x Retry-After.
- ``memory``: one generated catalog (bench/scale.py) of about 1 MB and of 10 MB: the slope of peak
  RSS between the two sizes, against the slope of a process that only parses it with polib
  (in-process: the run's own RSS, bench/scale.py's child, against the same). Target <= 2x.
- ``context``: the requests each context policy costs on the workload (dry runs), against what
  the same texts would need without context.
- ``merge``: ``pipeline refresh --merge-only`` on Weblate 5.8's Greek catalog (0.8 MB) and Weblate
  5.14's template (0.45 MB), wheels downloaded into a temporary folder and kept there, against
  ``msgmerge --previous`` on the same pair. Target <= 1.0x.

Usage: python bench/whole_command.py [ROW ...]   (default: every row; BENCH_MEMORY_ENTRIES=N,M
changes the two catalog sizes, 14000,140000 by default)
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _workload import downloaded_wheel, python_startup_seconds, write_corpus  # noqa: E402

HERE = Path(__file__).resolve().parent
GNU_TIME = "/usr/bin/time"  # Debian's package "time"
LATENCY, LIMIT, CEILING, RETRY_AFTER = 0.2, 4, 16, 1.0
STORM_LATENCY, STORM_SHARE = 0.1, 0.2
WEBLATE = {
    "template": ("weblate==5.14.3", "weblate/locale/django.pot"),
    "catalog": ("weblate==5.8.4", "weblate/locale/el/LC_MESSAGES/django.po"),
}
CONFIG = (
    'catalogs = ["src/**/*.po"]\n[service]\nurl = "{url}"\nconcurrency = {ceiling}\n'
    '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
)


def fresh_env(work: Path) -> dict[str, str]:
    """The environment of a fresh process with a bytecode cache, its report out of the real ~/.cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(work / "pycache"), "XDG_CACHE_HOME": str(work / "xdg")}


def command(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Wall seconds, CPU seconds, peak RSS (MiB) and exit code of one process.

    Started through GNU ``time``: a process forked from this one counts this one's memory in its
    own peak (the memory it had before its exec), a process forked from ``time`` does not.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as measured:
        started = time.perf_counter()
        done = subprocess.run(
            [GNU_TIME, "-o", measured.name, "-f", "%M %U %S", *argv],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wall = time.perf_counter() - started
        last = measured.read().split("\n")[-2].split()  # "Command exited with non-zero status N" may come first
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr.decode(errors='replace')[-2000:]}")
    return {
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(float(last[1]) + float(last[2]), 3),
        "peak_rss_mib": round(int(last[0]) / 1024, 1),
        "exit_code": done.returncode,
    }


def child_json(argv: list[str], env: dict[str, str]) -> Any:
    """What a measuring child process prints (started through ``time`` too, for the same reason)."""
    done = subprocess.run([GNU_TIME, "-o", os.devnull, *argv], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def pipeline_argv(*args: str) -> list[str]:
    """The ``pipeline`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("pipeline")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "pipeline", *args]


def corpus_project(root: Path, url: str, ceiling: int = CEILING) -> dict[str, int]:
    """A project of Django's catalogs at ``root`` for the service at ``url``; returns the workload's counts."""
    workload = write_corpus(root / "src")
    (root / "pipeline.toml").write_text(CONFIG.format(url=url, ceiling=ceiling), encoding="utf-8")
    return workload


def whole_run(root: Path, env: dict[str, str]) -> dict[str, Any]:
    """``pipeline translate`` as a fresh process in ``root``, with what its report says."""
    figures = command(pipeline_argv("translate", "--quiet"), root, env)
    report = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    totals = report["totals"]
    figures.update(
        requests=totals["requests"],
        segments=totals["segments_translated"] + totals["segments_copied"],
        timings=report["timings"],
    )
    return figures


def in_process_run(root: Path) -> dict[str, Any]:
    """The same run through ``run_translate`` in a child process that imported the run's modules first.

    A child of its own for each run, so no run finds the memos of one before it (judged sources,
    protected texts) warm in this process.
    """
    child = [sys.executable, str(Path(__file__).resolve()), "--in-process", str(root)]
    done = subprocess.run(child, capture_output=True, text=True, check=True, env=fresh_env(root.parent))
    return json.loads(done.stdout)


def _timed_run(root: Path) -> dict[str, Any]:
    """``run_translate`` on the project at ``root``, timed (in the child of :func:`in_process_run`)."""
    from pipeline.config import load_settings
    from pipeline.run.orchestrate import RunOptions, run_translate

    settings = load_settings(root / "pipeline.toml")
    started, cpu = time.perf_counter(), time.process_time()
    report = run_translate(settings, RunOptions(), log=lambda m: None)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "exit_code": report.exit_code,
        "requests": report.totals.requests,
        "timings": report.timings,
        "segments": report.totals.segments_translated + report.totals.segments_copied,
    }


def warm_bytecode(work: Path, env: dict[str, str]) -> None:
    """One small embedded run, so every module a run imports is compiled before any row is timed."""
    root = work / "warm-up"
    (root / "src").mkdir(parents=True)
    (root / "src" / "de.po").write_text('msgid ""\nmsgstr "Language: de\\n"\n\nmsgid "Hello"\nmsgstr ""\n')
    (root / "pipeline.toml").write_text(CONFIG.format(url="embedded", ceiling=CEILING), encoding="utf-8")
    subprocess.run(pipeline_argv("translate", "--quiet"), cwd=root, env=env, check=True, capture_output=True)


def import_run_modules() -> None:
    """What a run imports lazily, imported before any in-process clock starts."""
    import concurrent.futures.thread  # noqa: F401
    import importlib.metadata  # noqa: F401

    import babel.messages.plurals  # noqa: F401

    import pipeline.catalogs.merge  # noqa: F401
    import pipeline.client.aio  # noqa: F401
    import pipeline.resources.attach  # noqa: F401
    import pipeline.run.cached  # noqa: F401
    import pipeline.run.gate  # noqa: F401
    import pipeline.run.plan  # noqa: F401
    import pipeline.run.scan  # noqa: F401
    import pipeline.run.send  # noqa: F401
    import pipeline.run.write  # noqa: F401
    import pipeline.service.embedded  # noqa: F401


class StandIn:
    """bench/latency_bound.py's stand-in service, for the length of a ``with``."""

    def __init__(self, latency: float, limit: int, share: float = 0.0) -> None:
        self.argv = [sys.executable, str(HERE / "latency_bound.py"), "--stand-in", str(latency), str(limit), str(share)]
        self.key = secrets.token_urlsafe(16)
        self.url = ""

    def __enter__(self) -> StandIn:
        env = {**os.environ, "STAND_IN_KEY": self.key}
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http"):
            self.process.kill()
            raise SystemExit(f"the stand-in did not start: {self.argv}")
        return self

    def stats(self) -> dict[str, Any]:
        """What the stand-in counted so far (answered, 429s, the most in flight)."""
        import httpx

        return httpx.get(self.url + "/_stand-in/stats").json()

    def __exit__(self, *exc_info: object) -> None:
        self.process.terminate()
        self.process.wait()


def run_both(work: Path, name: str, url: str, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The workload translated as a whole command and in-process, each from scratch in a folder of its own."""
    out = {}
    for how in ("whole_command", "in_process"):
        root = work / f"{name}-{how}"
        corpus_project(root, url)
        out[how] = whole_run(root, env) if how == "whole_command" else in_process_run(root)
    return out


def row_latency(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Wall time against ceil(requests / LIMIT) x LATENCY, whole command and in-process."""
    with StandIn(LATENCY, LIMIT) as service:
        env = {**env, "PIPELINE_AUTH_KEY": service.key}
        os.environ["PIPELINE_AUTH_KEY"] = service.key
        runs = run_both(work, "latency", service.url, env)
        stats = service.stats()
    for figures in runs.values():
        bound = math.ceil(figures["requests"] / LIMIT) * LATENCY
        figures.update(bound_seconds=round(bound, 3), wall_vs_bound=round(figures["wall_seconds"] / bound, 3))
    return {
        **runs,
        "target_wall_vs_bound": 1.15,
        "answered_429": stats["rejected"],
        "max_in_flight_seen": stats["max_in_flight"],
    }


def row_embedded(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Segments per second (and per CPU second) with the embedded service."""
    runs = run_both(work, "embedded", "embedded", env)
    for figures in runs.values():
        figures["segments_per_second"] = round(figures["segments"] / figures["wall_seconds"])
        figures["segments_per_cpu_second"] = round(figures["segments"] / figures["cpu_seconds"])
    return {**runs, "target_segments_per_second": 8000}


def row_storm(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """The workload with 20 % of translate requests refused at random, against the same run clean."""
    out: dict[str, Any] = {}
    for label, share in (("clean", 0.0), ("refused_20_percent", STORM_SHARE)):
        with StandIn(STORM_LATENCY, 10_000, share) as service:
            os.environ["PIPELINE_AUTH_KEY"] = service.key
            out[label] = run_both(work, f"storm-{label}", service.url, {**env, "PIPELINE_AUTH_KEY": service.key})
            out[label]["answered_429"] = service.stats()["rejected"]
    for how in ("whole_command", "in_process"):
        clean, storm = out["clean"][how]["wall_seconds"], out["refused_20_percent"][how]["wall_seconds"]
        out[f"{how}_extra_seconds"] = round(storm - clean, 3)
        out[f"{how}_within_target"] = storm <= clean + 3 * RETRY_AFTER
    out["target"] = "refused <= clean + 3 x Retry-After (1 s)"
    return out


def row_memory(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Peak RSS of the whole command for two catalog sizes, its slope against a bare polib parse's."""
    from scale import generate

    sizes = [int(n) for n in os.environ.get("BENCH_MEMORY_ENTRIES", "14000,140000").split(",")]
    out: dict[str, Any] = {}
    for entries in sizes:
        root = work / f"memory-{entries}"
        generate(root / "src" / "de" / "messages.po", entries)
        original = work / f"memory-{entries}.po"
        shutil.copy(root / "src" / "de" / "messages.po", original)
        (root / "pipeline.toml").write_text(CONFIG.format(url="embedded", ceiling=CEILING), encoding="utf-8")
        polib = command(
            [sys.executable, "-c", "import polib, sys; polib.pofile(sys.argv[1])", str(original)], work, env
        )
        whole = whole_run(root, env)
        shutil.copy(original, root / "src" / "de" / "messages.po")
        shutil.rmtree(root / ".cache")
        inner = child_json([sys.executable, str(HERE / "scale.py"), "--child", "real", str(root / "src")], env)
        out[f"entries_{entries}"] = {
            "catalog_mib": round(original.stat().st_size / 2**20, 2),
            "polib_parse": polib,
            "whole_command": whole,
            "in_process": inner,
        }
    small, large = (out[f"entries_{n}"] for n in sizes)
    mib = large["catalog_mib"] - small["catalog_mib"]

    def slope(get: Any) -> float:
        return round((get(large) - get(small)) / mib, 2)

    polib_slope = slope(lambda f: f["polib_parse"]["peak_rss_mib"])
    whole_slope = slope(lambda f: f["whole_command"]["peak_rss_mib"])
    in_slope = slope(lambda f: f["in_process"]["run_rss_mib"])
    out.update(
        polib_slope_mib_per_mib=polib_slope,
        whole_command_slope_mib_per_mib=whole_slope,
        whole_command_vs_polib=round(whole_slope / polib_slope, 2),
        in_process_slope_mib_per_mib=in_slope,
        in_process_vs_polib=round(in_slope / polib_slope, 2),
        target_vs_polib=2.0,
    )
    return out


def weblate_file(requirement: str, member: str) -> bytes:
    """One file of a Weblate wheel, downloaded once into the benches' download folder."""
    with zipfile.ZipFile(downloaded_wheel(requirement)) as wheel:
        return wheel.read(member)


def row_merge(work: Path, env: dict[str, str], runs: int = 3) -> dict[str, Any]:
    """``refresh --merge-only`` and ``merge()`` against ``msgmerge --previous`` on one pair, best of ``runs``."""
    from pipeline.catalogs.merge import merge

    if shutil.which("msgmerge") is None or not Path(GNU_TIME).exists():
        return {"skipped": "msgmerge (GNU gettext) or GNU time is not installed"}
    template, catalog = work / "django.pot", work / "el.po"
    template.write_bytes(weblate_file(*WEBLATE["template"]))
    catalog.write_bytes(weblate_file(*WEBLATE["catalog"]))
    root = work / "merge"
    target = root / "locale" / "el" / "LC_MESSAGES" / "django.po"
    target.parent.mkdir(parents=True)
    shutil.copy(template, root / "locale" / "django.pot")
    (root / "pipeline.toml").write_text('catalogs = ["locale/**/*.po"]\n', encoding="utf-8")
    best: dict[str, dict[str, Any]] = {}
    for _ in range(runs):
        shutil.copy(catalog, target)
        figures = {
            "msgmerge": command(
                ["msgmerge", "--previous", "--quiet", "-o", str(work / "msgmerge.po"), str(catalog), str(template)],
                work,
                env,
            ),
            "whole_command": command(pipeline_argv("refresh", "--merge-only"), root, env),
        }
        started, cpu = time.perf_counter(), time.process_time()
        result = merge(catalog, template)
        figures["in_process"] = {
            "wall_seconds": round(time.perf_counter() - started, 3),
            "cpu_seconds": round(time.process_time() - cpu, 3),
            "fuzzy": result.fuzzy,
            "added": result.added,
        }
        for name, figure in figures.items():
            if name not in best or figure["cpu_seconds"] < best[name]["cpu_seconds"]:
                best[name] = figure
    ratios = {
        f"{name}_vs_msgmerge_{unit}": round(best[name][f"{unit}_seconds"] / best["msgmerge"][f"{unit}_seconds"], 2)
        for name in ("whole_command", "in_process")
        for unit in ("wall", "cpu")
    }
    return {
        "template_mib": round(template.stat().st_size / 2**20, 2),
        "catalog_mib": round(catalog.stat().st_size / 2**20, 2),
        **best,
        **ratios,
        "target_vs_msgmerge": 1.0,
    }


def row_context(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Requests a context policy costs on the workload (dry runs): texts with equal context share requests.

    ``context`` is one per request (the API applies it to every text), so each distinct context of a
    language is a request of its own at least; ``requests_without_context`` is what the same texts
    would need if context were not sent.
    """
    from pipeline.config import ServiceSettings, Settings
    from pipeline.run.orchestrate import RunOptions, run_translate

    root = work / "context"
    write_corpus(root / "src")
    out: dict[str, Any] = {}
    for policy in ("all", "msgctxt", "none"):
        settings = Settings(
            root=root, catalogs=("src/**/*.po",), service=ServiceSettings(url="embedded"), context=policy
        )
        estimate = run_translate(settings, RunOptions(dry_run=True, use_cache=False), log=lambda m: None).would_send
        assert estimate is not None
        out[f"policy_{policy}"] = {
            "requests": estimate.requests,
            "requests_without_context": estimate.requests - estimate.context_requests,
            "texts": estimate.texts,
        }
    return out


ROWS = {
    "latency": row_latency,
    "embedded": row_embedded,
    "storm": row_storm,
    "memory": row_memory,
    "merge": row_merge,
    "context": row_context,
}


def main() -> None:
    """Run the rows asked for (all by default) and print them."""
    if sys.argv[1:2] == ["--in-process"]:
        import_run_modules()
        print(json.dumps(_timed_run(Path(sys.argv[2]))))
        return
    wanted = sys.argv[1:] or list(ROWS)
    if not Path(GNU_TIME).exists():
        print(json.dumps({"skipped": f"{GNU_TIME} (Debian's package time) is not installed"}))
        return
    import_run_modules()  # for the rows timed in this process (merge)
    figures: dict[str, Any] = {
        "python_c_pass_seconds": python_startup_seconds(),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="whole-command-bench-") as tmp:
        work = Path(tmp)
        env = fresh_env(work)
        warm_bytecode(work, env)
        for name in wanted:
            print(f"# whole_command: {name}", file=sys.stderr, flush=True)
            figures[name] = ROWS[name](work, env)
    figures["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
