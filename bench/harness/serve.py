"""What the real-catalog benches share: the local service they run, fault probes, entry lines, JSON layout."""

from __future__ import annotations

import bisect
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import polib

from .faultproxy import FAULT_HEADER
from .sources import Key, key_of

SERVE_KEY = "real-catalogs-bench-key"  # a throwaway key of the throwaway local service


def pipeline_exe() -> str:
    """The ``pipeline`` command of this interpreter's environment."""
    beside = Path(sys.executable).with_name("pipeline")
    return str(beside) if beside.exists() else (shutil.which("pipeline") or "pipeline")


class Service:
    """``pipeline serve --test-faults`` on a free loopback port, for the length of a ``with``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.url = ""

    def __enter__(self) -> Service:
        env = {**os.environ, "PIPELINE_SERVE_AUTH_KEYS": SERVE_KEY}
        self._out = (self.folder / "serve.out").open("w+")
        self._err = (self.folder / "serve.err").open("w")
        self.proc = subprocess.Popen(
            [pipeline_exe(), "serve", "--host", "127.0.0.1", "--port", "0", "--test-faults"],
            env=env,
            stdout=self._out,
            stderr=self._err,
            text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            first = (self.folder / "serve.out").read_text().split("\n", 1)
            if len(first) == 2 and "listening on " in first[0]:
                self.url = first[0].split("listening on ", 1)[1].strip()
                return self
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError(f"pipeline serve did not start: {(self.folder / 'serve.err').read_text()[-500:]}")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
        self._err.close()


def probe_fault(url: str, header: str) -> tuple[int, str]:
    """The service's answer to one small translate request carrying ``header``."""
    try:
        from pipeline.protocol import AUTH_HEADER, AUTH_SCHEME
    except ImportError:  # the wire contract moved; these are its values today
        AUTH_HEADER, AUTH_SCHEME = "Authorization", "Service-Auth-Key"
    try:
        response = httpx.post(
            f"{url}/v2/translate",
            timeout=30,
            trust_env=False,
            headers={AUTH_HEADER: f"{AUTH_SCHEME} {SERVE_KEY}", FAULT_HEADER: header},
            data={"text": "Open <b>the</b> file", "target_lang": "DE", "tag_handling": "xml"},
        )
    except httpx.HTTPError as exc:
        return 0, type(exc).__name__
    return response.status_code, response.text[:200]


def fault_headers(url: str, modes: list[str], every: int | None) -> tuple[dict[str, str], dict[str, Any]]:
    """The X-Test-Fault value per mode, and what the probes found (``every`` support, refused modes)."""
    found: dict[str, Any] = {"every_asked": every}
    status, text = probe_fault(url, "mangle=move;every=2;id=bench-probe-every")
    found["every_supported"] = status == 200
    if status != 200:
        found["every_probe"] = f"HTTP {status}: {text}"
    headers = {}
    for mode in modes:  # "MODE" or "MODE/N": damage every N-th text only, whatever ``every`` says
        name, _, own = mode.partition("/")
        each = int(own) if own else every
        value = f"mangle={name}" + (f";every={each}" if each and found["every_supported"] else "")
        status, text = probe_fault(url, f"{value};id=bench-probe-{name}")
        if status == 200:
            headers[mode] = f"{value};id=bench-{name}-{own or 'all'}"
        else:
            found.setdefault("refused_modes", {})[mode] = f"HTTP {status}: {text}"
    return headers, found


def line_keys(path: Path) -> tuple[list[int], list[Key]]:
    """First line (1-based) of each entry's block (comments included) and the entry's key, in file order."""
    po = polib.pofile(str(path))
    lines = path.read_bytes().split(b"\n")
    starts, keys = [], []
    for entry in po:
        start = entry.linenum
        while start > 1 and lines[start - 2].strip():
            start -= 1
        starts.append(start)
        keys.append(key_of(entry))
    return starts, keys


def entry_at(index: tuple[list[int], list[Key]], line: int) -> Key | None:
    """The entry whose block holds ``line``; None for the header."""
    at = bisect.bisect_right(index[0], line) - 1
    return index[1][at] if at >= 0 else None


def commit() -> str | None:
    """The commit of the checkout the bench runs from, so figures can be compared over time."""
    proc = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True
    )
    return proc.stdout.strip() or None


def render(value: object, indent: int = 0, width: int = 118) -> str:
    """JSON with short containers on one line; each per-catalog row is one (long) line."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or len(flat) + indent <= width:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        wide = ("catalogs", "per_project")  # one (long) line per row
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {render(v, indent + 1, 400 if k in wide else width)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + render(v, indent + 1, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def relative_to_root(root: Path, name: str) -> str:
    """``name`` (a path a tool printed, absolute or relative to ``root``) as a path below ``root``, else as given."""
    path = Path(name)
    path = path if path.is_absolute() else root / path
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return name
