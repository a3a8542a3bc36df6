"""A small project with catalogs awaiting review (PO, XLIFF 1.2 and 2), for the review tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.config import Settings, load_settings

REVIEW_DATA = Path(__file__).resolve().parent / "data" / "review"
PO = "locale/de/LC_MESSAGES/app.po"
XLIFF_12 = "xliff/messages.fr.xlf"
XLIFF_2 = "xliff/messages.pl.xlf"


def review_project(root: Path) -> Settings:
    """Copy the review fixtures into ``root`` as a project (cache in ``root/.cache``); its settings."""
    for name, fixture in (
        (PO, "awaiting_review.po"),
        (XLIFF_12, "awaiting_review_12.xlf"),
        (XLIFF_2, "awaiting_review_20.xlf"),
    ):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REVIEW_DATA / fixture, path)
    (root / "pipeline.toml").write_text('source_lang = "en"\n[cache]\ndir = ".cache"\n', encoding="utf-8")
    return load_settings(root / "pipeline.toml")
