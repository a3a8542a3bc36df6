"""Rules of the test suite itself, checked from its source: no real sleeps, no wall-clock timing, pristine samples.

A test that sleeps to let something happen, or times how long something took, passes or fails
with the machine's load. Tests wait for events (``tests/waiting.py``) or run on virtual time
(``tests/virtual_time.py``); speed is measured by the scripts under ``bench/``. And
``make translate`` rewrites ``sample_locales/``, so tests read the samples as git holds them,
through ``sample_project.SAMPLES`` only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
#: The one place that polls, for a real server's state nothing announces; what it waits for is
#: a condition, its interval and deadline decide nothing a test asserts.
POLLING = TESTS / "waiting.py"
SAMPLES_READER = TESTS / "sample_project.py"
#: Clock readings that wait or measure; reading the date to set a file's time is neither.
TIMING = {"time.sleep", "time.monotonic", "time.perf_counter", "time.monotonic_ns", "time.perf_counter_ns"}
FILES = sorted(p for p in TESTS.rglob("*.py") if p != Path(__file__).resolve())


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def timing_calls(source: str) -> list[str]:
    """``line: call`` of every real sleep and wall-clock reading in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            found += [f"{node.lineno}: from time import {a.name}" for a in node.names if f"time.{a.name}" in TIMING]
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        if name in TIMING:
            found.append(f"{node.lineno}: {name}")
        elif name == "asyncio.sleep" and not (
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
        ):
            found.append(f"{node.lineno}: {name} (only asyncio.sleep(0), a turn of the loop, is no wait)")
    return found


def repository_samples(source: str) -> list[str]:
    """``line`` of every path built to the repository's own sample_locales/ (``REPO / "sample_locales"``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and isinstance(node.right, ast.Constant)
            and node.right.value == "sample_locales"
            and ("__file__" in ast.unparse(node.left) or _dotted(node.left) in {"REPO", "ROOT"})
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def _found(check: Callable[[str], list[str]], files: list[Path]) -> dict[str, list[str]]:
    found = {str(p.relative_to(TESTS)): check(p.read_text(encoding="utf-8")) for p in files}
    return {name: lines for name, lines in found.items() if lines}


def test_no_real_sleep_nor_wall_clock_timing() -> None:
    assert _found(timing_calls, [p for p in FILES if p != POLLING]) == {}


def test_the_samples_are_read_through_sample_project_only() -> None:
    assert _found(repository_samples, [p for p in FILES if p != SAMPLES_READER]) == {}


def test_the_rules_see_what_they_forbid() -> None:
    source = (
        "import asyncio, time\nfrom time import monotonic\nfrom pathlib import Path\n"
        "time.sleep(0.05)\nstarted = time.perf_counter()\nawait asyncio.sleep(0.01)\nawait asyncio.sleep(0)\n"
        'SAMPLES = Path(__file__).resolve().parents[2] / "sample_locales"\nother = REPO / "sample_locales"\n'
        'copy = tmp_path / "sample_locales"\nmtime = time.time_ns()\n'
    )
    assert [line.split(":")[0] for line in timing_calls(source)] == ["2", "4", "5", "6"]
    assert [line.split(":")[0] for line in repository_samples(source)] == ["8", "9"]
