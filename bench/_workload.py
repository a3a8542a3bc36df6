"""The benches' real workload: Django's English catalogs as templates, translated into six languages.

Fetched from the published Django wheel with ``pip download`` into a temporary folder (kept there
between runs so a second bench does not download again); third-party catalogs are never committed.
Imported by the bench scripts; ``make bench`` skips modules whose name starts with an underscore.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import polib

DJANGO = "django==5.2.*"
LANGS = ("de", "fr", "es", "pl", "ja", "pt_BR")
DOWNLOADS = Path(tempfile.gettempdir()) / "pipeline-bench-downloads"


def downloaded_wheel(requirement: str) -> Path:
    """The wheel of ``requirement`` (``name==version``), downloaded once into the benches' download folder."""
    folder = DOWNLOADS / requirement.replace("==", "-")
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
            + ["--only-binary", ":all:", "-d", str(folder), requirement],
            check=True,
        )
        wheels = sorted(folder.glob("*.whl"))
    return wheels[-1]


def django_templates() -> dict[str, bytes]:
    """Every ``en`` catalog of the Django wheel, by its path inside the wheel."""
    with zipfile.ZipFile(downloaded_wheel(DJANGO)) as wheel:
        return {
            name: wheel.read(name)
            for name in sorted(wheel.namelist())
            if "/locale/en/LC_MESSAGES/" in name and name.endswith(".po")
        }


def write_corpus(root: Path, langs: tuple[str, ...] = LANGS) -> dict[str, int]:
    """Write the templates as empty catalogs of every language under ``root``; returns counts."""
    templates = django_templates()
    messages = segments = 0
    for name, data in templates.items():
        template = polib.pofile(data.decode("utf-8"))
        template.metadata.pop("Plural-Forms", None)  # English's rule; each language gets its CLDR rule
        for entry in template:
            entry.msgstr = ""
            if entry.msgid_plural:
                entry.msgstr_plural = {0: "", 1: ""}
        messages += len(template)
        segments += sum(2 if e.msgid_plural else 1 for e in template)
        for lang in langs:
            template.metadata["Language"] = lang
            path = root / name.replace("/locale/en/", f"/locale/{lang}/")
            path.parent.mkdir(parents=True, exist_ok=True)
            template.save(str(path))
    return {
        "templates": len(templates),
        "messages_per_language": messages,
        "languages": len(langs),
        "catalogs": len(templates) * len(langs),
        "source_segments": segments * len(langs),
    }


def python_startup_seconds(runs: int = 5) -> float:
    """Best wall-clock time of ``python -c pass`` on this machine, printed beside every figure."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - started)
    return round(best, 4)
