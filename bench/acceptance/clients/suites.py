"""The official clients' own test suites: brought here from their repositories' snapshots, installed, run.

A suite's source comes from a git snapshot of its repository (the search tool's ``fetch`` brings
one; any clone does), exported at its HEAD into the work folder, never into this repository. The
Node.js suite installs its locked dev dependencies with ``npm ci`` from the npm registry; the
Python suite gets a virtual environment with its test dependencies from PyPI and tests the
client source of the same snapshot. Both run in their "real server" mode (no ``DEEPL_MOCK_*``
variables) against the URL given, and report through JUnit XML, which both runners write.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.acceptance.clients import pytest_left_out as left_out_plugin

#: Where a suite's progress lines go.
Log = Callable[[str], None]

#: What the Python suite imports besides the client: pydantic 1 (its conftest uses BaseSettings).
PYTHON_SUITE_REQUIREMENTS = ("pytest", "pydantic<2", "requests", "click", "typing_extensions")
#: The suites read these; a mock's variables would switch them to their mock-server mode.
_SUITE_VARIABLES = ("DEEPL_AUTH_KEY", "DEEPL_SERVER_URL", "DEEPL_PROXY_URL")
_MOCK_VARIABLES = ("DEEPL_MOCK_SERVER_PORT", "DEEPL_MOCK_PROXY_SERVER_PORT")
NODE_SKIP_REASON = "skipped by the suite itself: runs against the vendor's mock server only (its session headers)"
FILE_TIMEOUT_SECONDS = 900


@dataclass
class Outcome:
    """One suite's results: test names, failures with their first message line, skips with their reason."""

    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    #: The test cases left out, each with the reason of its entry in the left-out list.
    left_out: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def report(self, commit: str, listed: dict[str, str]) -> dict[str, object]:
        """The JSON of this outcome; ``listed`` is the left-out list, to name entries that matched no test."""
        unmatched = [name for name in listed if not any(case.split("[", 1)[0] == name for case in self.left_out)]
        return {
            "commit": commit,
            "passed": len(self.passed),
            "failed": len(self.failed),
            "skipped": len(self.skipped),
            "left_out": len(self.left_out),
            "failures": [{"test": name, "message": message} for name, message in sorted(self.failed.items())],
            "skipped_tests": [{"test": name, "reason": reason} for name, reason in sorted(self.skipped.items())],
            "left_out_tests": [{"test": name, "reason": reason} for name, reason in sorted(self.left_out.items())],
            "left_out_entries_matching_no_test": unmatched,
            "seconds": round(self.seconds, 1),
        }


def export_snapshot(repository: Path, work: Path, name: str) -> tuple[Path, str]:
    """The files of ``repository``'s HEAD under ``work`` (exported once per commit), and the commit."""
    commit = _git(repository, "rev-parse", "HEAD").decode().strip()
    tree = work / f"{name}-{commit[:12]}"
    if not (tree / ".exported").exists():
        archive = _git(repository, "archive", "--format=tar", "HEAD")
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
        (tree / ".exported").touch()
    return tree, commit


def _git(repository: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repository), *args], check=True, capture_output=True).stdout


def install_node_suite(tree: Path, log: Log) -> None:
    """``npm ci`` of the suite's locked dependencies (once per exported tree); no install scripts run."""
    if (tree / "node_modules" / ".package-lock.json").exists():
        return
    log(f"npm ci in {tree}")
    command = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    subprocess.run(command, cwd=tree, check=True, stdout=sys.stderr)  # stdout carries the JSON only


def install_python_suite(venv: Path, log: Log) -> Path:
    """A virtual environment with the Python suite's test dependencies; its interpreter."""
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"creating {venv}")
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        quiet = ["--quiet", "--disable-pip-version-check"]
        install = [str(python), "-m", "pip", "install", *quiet, *PYTHON_SUITE_REQUIREMENTS]
        subprocess.run(install, check=True, stdout=sys.stderr)
    return python


def suite_environment(url: str, key: str) -> dict[str, str]:
    """The environment a suite runs in: real-server mode against ``url`` with ``key``."""
    env = {k: v for k, v in os.environ.items() if k not in _SUITE_VARIABLES + _MOCK_VARIABLES}
    return {**env, "DEEPL_AUTH_KEY": key, "DEEPL_SERVER_URL": url}


def run_node_suite(tree: Path, url: str, key: str, left_out: dict[str, str], log: Log) -> Outcome:
    """Every Jest test file in its own run (``mock-fs`` in one file breaks later files of a shared worker)."""
    outcome = Outcome()
    started = time.monotonic()
    kept = "^(?!(?:" + "|".join(re.escape(name) for name in left_out) + ")$)" if left_out else ".*"
    for test_file in sorted((tree / "tests").rglob("*.test.ts")):
        relative = test_file.relative_to(tree).as_posix()
        report = tree / "junit" / (relative.replace("/", "_") + ".xml")
        report.unlink(missing_ok=True)
        log(f"jest {relative}")
        env = {**suite_environment(url, key), "JEST_JUNIT_OUTPUT_FILE": str(report)}
        command = ["npx", "jest", "--ci", "--reporters=default", "--reporters=jest-junit", "-t", kept, relative]
        subprocess.run(command, cwd=tree, env=env, timeout=FILE_TIMEOUT_SECONDS, capture_output=True)
        if not report.exists():
            outcome.failed[relative] = "the test file did not run (no JUnit report)"
            continue
        for name, state, message in _junit_cases(report, lambda case: case.get("classname", "")):
            _record(outcome, name, state, message or NODE_SKIP_REASON, left_out)
    outcome.seconds = time.monotonic() - started
    return outcome


def run_python_suite(tree: Path, python: Path, url: str, key: str, left_out: dict[str, str], log: Log) -> Outcome:
    """The pytest suite with the left-out tests deselected (exactly: ``pytest_left_out``)."""
    started = time.monotonic()
    report = tree / "junit" / "pytest.xml"
    report.parent.mkdir(exist_ok=True)
    report.unlink(missing_ok=True)
    dropped = tree / "junit" / "left-out.json"
    dropped.unlink(missing_ok=True)
    env = {
        **suite_environment(url, key),
        "PYTHONPATH": str(Path(__file__).resolve().parent),
        left_out_plugin.VARIABLE: json.dumps(sorted(left_out)),
        left_out_plugin.REPORT: str(dropped),
    }
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pytest_left_out"]
    log("pytest tests")
    subprocess.run(
        [*command, f"--junitxml={report}", "tests"],
        cwd=tree,
        env=env,
        timeout=FILE_TIMEOUT_SECONDS,
        capture_output=True,
    )
    outcome = Outcome()
    if not report.exists():
        outcome.failed["tests"] = "the suite did not run (no JUnit report)"
        return outcome

    def node_id(case: ElementTree.Element) -> str:
        return case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")

    for name, state, message in _junit_cases(report, node_id):
        _record(outcome, name, state, message, left_out)
    for case in json.loads(dropped.read_text(encoding="utf-8")) if dropped.exists() else []:
        outcome.left_out[case] = left_out[case.split("[", 1)[0]]
    outcome.seconds = time.monotonic() - started
    return outcome


def _junit_cases(report: Path, name_of: Callable[[ElementTree.Element], str]) -> list[tuple[str, str, str]]:
    """``(name, state, first message line)`` of each test case of a JUnit report."""
    cases = []
    for case in ElementTree.parse(report).iter("testcase"):
        problem = next((child for child in case if child.tag in ("failure", "error")), None)
        skipped = case.find("skipped")
        if problem is not None:
            text = problem.get("message") or problem.text or ""
            cases.append((name_of(case), "failed", " ".join(text.strip().split("\n")[:2])[:300]))
        elif skipped is not None:
            cases.append((name_of(case), "skipped", skipped.get("message") or ""))
        else:
            cases.append((name_of(case), "passed", ""))
    return cases


def _record(outcome: Outcome, name: str, state: str, message: str, left_out: dict[str, str]) -> None:
    if state == "skipped" and name in left_out:
        outcome.left_out[name] = left_out[name]  # left out by us, not the suite's own skip
        return
    if state == "passed":
        outcome.passed.append(name)
    elif state == "failed":
        outcome.failed[name] = message
    else:
        outcome.skipped[name] = message
